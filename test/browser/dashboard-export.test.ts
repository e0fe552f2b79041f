/**
 * Exporting captures from the dashboard, in real Chromium on both backends, by role and accessible
 * name: **Export** above an endpoint's live list downloads every capture as HAR or NDJSON (the
 * API's streamed export, with the session cookie), and on the search page, with an endpoint chosen,
 * the results matching the filters. The files are read back and compared with what was sent.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Download, Page } from 'playwright-core';
import { focusedName, isFocused, openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { fitsNarrowScreen } from '../support/layout';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/** Opens Export and clicks one of its links; the download. */
async function download(page: Page, link: RegExp): Promise<Download> {
  await page.getByRole('button', { name: 'Export' }).click();
  const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: link }).click()]);
  return file;
}

describeBackends(
  'dashboard: export',
  (h) => {
    test('Export on an endpoint downloads every capture as HAR and as NDJSON, the bytes as sent; Escape closes it, the focus back on Export', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe export');
      const json = '{"type":"invoice.paid","amount":4200,"note":"café ✓"}';
      const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80]);
      await fetch(`${ep.url}/stripe?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-trace': 'abc' }, body: json });
      await fetch(`${ep.url}/upload`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: bytes });
      await fetch(`${ep.url}/ping`, { method: 'GET' });
      // All three stored (the export reads the capture store, which lags the live list by up to SHIP_MAX_AGE_MS).
      await eventually(async () => {
        const r = await call<unknown[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session });
        return r.body.length === 3 ? true : undefined;
      }, 10_000);

      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^PUT \/upload / }).waitFor();

        // The menu: Escape closes it and leaves the focus on Export.
        const toggle = page.getByRole('button', { name: 'Export' });
        await toggle.click();
        expect(await toggle.getAttribute('aria-expanded')).toBe('true');
        await page.getByRole('link', { name: /^Download HAR/ }).focus();
        await page.keyboard.press('Escape');
        expect(await page.getByRole('link', { name: /^Download HAR/ }).count()).toBe(0);
        expect(await isFocused(toggle), await focusedName(page)).toBe(true);

        const har = await download(page, /^Download HAR/);
        expect(har.suggestedFilename()).toMatch(new RegExp(`^hookcap-${ep.slug}-.*\\.har$`));
        const doc = JSON.parse(readFileSync(await har.path(), 'utf8')) as { log: { entries: { request: { method: string; url: string; headers: { name: string; value: string }[]; postData?: { text: string } } }[] } };
        const entries = doc.log.entries.map((e) => e.request);
        expect(entries.map((r) => `${r.method} ${r.url}`)).toEqual([`POST ${ep.url}/stripe?x=1`, `PUT ${ep.url}/upload`, `GET ${ep.url}/ping`]);
        expect(entries[0]?.postData?.text).toBe(json);
        expect(entries[0]?.headers).toContainEqual({ name: 'x-trace', value: 'abc' });

        const tab = await context.newPage(); // Chromium holds back a page's repeated downloads
        await tab.goto(`${h.url}/endpoints/${ep.slug}`);
        await tab.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^PUT \/upload / }).waitFor();
        const nd = await download(tab, /^Download NDJSON/);
        expect(nd.suggestedFilename()).toMatch(/\.ndjson$/);
        const lines = readFileSync(await nd.path(), 'utf8').trimEnd().split('\n').map((l) => JSON.parse(l) as { path: string; body: string; bodyEncoding?: string });
        expect(lines.map((l) => l.path)).toEqual(['/stripe', '/upload', '/ping']);
        expect(lines[0]?.body).toBe(json);
        // The binary body comes back as the bytes sent.
        const upload = lines[1];
        expect(upload?.bodyEncoding).toBe('base64');
        expect(new Uint8Array(Buffer.from(upload?.body ?? '', 'base64'))).toEqual(bytes);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('an endpoint with no capture yet offers no Export; the search page offers it once an endpoint is chosen, for the matching requests only', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Search export');
      const other = await createEndpoint(h.url, account, 'Elsewhere');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
        expect(await page.getByRole('button', { name: 'Export' }).count()).toBe(0);

        for (const path of ['/orders/1', '/orders/2', '/refunds/1']) await fetch(`${ep.url}${path}`, { method: 'POST', body: `{"path":"${path}"}` });
        await fetch(`${ep.url}/orders/3`, { method: 'PUT', body: '{}' });
        await fetch(`${other.url}/orders/9`, { method: 'POST', body: '{}' });
        await eventually(async () => {
          const r = await call<{ count: number }>(h.url, 'GET', '/api/search/requests/count?q=orders', { token: account.session });
          return r.body.count === 4 ? true : undefined;
        }, 10_000);

        await page.goto(`${h.url}/search?q=orders&method=POST`);
        await page.getByRole('status').filter({ hasText: /^3 matching requests/ }).waitFor();
        // Across endpoints there is no one export to offer.
        expect(await page.getByRole('button', { name: 'Export' }).count()).toBe(0);
        await page.getByLabel('Endpoint', { exact: true }).selectOption({ label: 'Search export' });
        await page.getByRole('status').filter({ hasText: /^2 matching requests/ }).waitFor();
        await page.getByRole('button', { name: 'Export' }).click();
        expect(await page.getByRole('group', { name: 'Export These 2 matching requests' }).isVisible()).toBe(true);
        await page.getByRole('button', { name: 'Export' }).click();
        const nd = await download(page, /^Download NDJSON/);
        const paths = readFileSync(await nd.path(), 'utf8').trimEnd().split('\n').map((l) => (JSON.parse(l) as { path: string }).path);
        expect(paths).toEqual(['/orders/1', '/orders/2']);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('at 360 px Export sits beside Pause and its open menu stays on the screen', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Phone export');
      await fetch(`${ep.url}/hello`, { method: 'POST', body: '{}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 360, height: 740 } });
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/hello / }).waitFor();
        await fitsNarrowScreen(page, ['Pause'], 360); // (it matches a button's whole text; Export's has a ▾)
        const toggle = (await page.getByRole('button', { name: 'Export' }).boundingBox()) ?? { x: -1, y: -1, width: 0, height: 0 };
        expect(toggle.x).toBeGreaterThanOrEqual(0);
        expect(toggle.x + toggle.width).toBeLessThanOrEqual(360);
        await page.getByRole('button', { name: 'Export' }).click();
        await page.getByRole('link', { name: /^Download NDJSON/ }).waitFor();
        await fitsNarrowScreen(page, ['Pause'], 360);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
