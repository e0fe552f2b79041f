/**
 * Keeping a capture from the dashboard (docs/dashboard.md, docs/retention.md), in real Chromium on
 * both backends, by role and accessible name: **Keep** in the request's detail pins it through the
 * API and says so; its row carries "kept"; the search page's **Kept only** finds exactly it, in its
 * URL and the API's; **Keep** again takes it out; at PIN_LIMIT the refusal is said in words.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Page } from 'playwright-core';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium, type Account, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();
const PIN_LIMIT = 2;

async function send(ep: TestEndpoint, path: string): Promise<string> {
  const r = await fetch(`${ep.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
  expect(r.status).toBeLessThan(300);
  return ((await r.json()) as { id: string }).id;
}

async function openRequest(page: Page, base: string, ep: TestEndpoint, path: string): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
  await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: new RegExp(path) }).click();
  await page.getByRole('article').getByRole('heading', { name: new RegExp(`${path}$`) }).waitFor();
}

const pinnedOf = async (base: string, account: Account, id: string) =>
  (await call<{ pinned?: boolean }>(base, 'GET', `/api/requests/${id}`, { token: account.session })).body.pinned === true;

/** Whether the search's capture store holds the request yet (it lags the live list). */
const searchable = (base: string, account: Account, ep: TestEndpoint, n: number) =>
  eventually(async () => (await call<unknown[]>(base, 'GET', `/api/search/requests?slug=${ep.slug}`, { token: account.session })).body.length >= n, 10_000);

describeBackends(
  'dashboard: keep',
  (h) => {
    test('Keep in the detail keeps it (API, row marker, Kept only on search); Keep again lets it go', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Keepers');
      await send(ep, '/ordinary');
      const id = await send(ep, '/important');
      await searchable(h.url, account, ep, 2);
      const usage = await call<{ retentionDays: number }>(h.url, 'GET', '/api/usage', { token: account.session });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      // Every search the page asks the API for, to see Kept only reach it.
      const searches: string[] = [];
      page.on('request', (r) => {
        if (r.url().includes('/api/search/requests')) searches.push(r.url());
      });
      try {
        await openRequest(page, h.url, ep, '/important');
        const detail = page.getByRole('article');
        // The retention period, said once where it helps: in the detail's facts.
        await detail.getByText(`Deleted after ${usage.body.retentionDays} days unless kept`).waitFor();
        const keep = detail.getByRole('button', { name: 'Keep', exact: true });
        expect(await keep.getAttribute('aria-pressed')).toBe('false');
        // The comparison action no longer says only "Pin": users took it for keeping.
        await detail.getByRole('link', { name: 'Select for comparison' }).waitFor();
        expect(await detail.getByRole('link', { name: 'Pin', exact: true }).count()).toBe(0);
        expect(await detail.getByRole('button', { name: 'Pin', exact: true }).count()).toBe(0);

        await keep.click();
        await page.getByRole('status').filter({ hasText: 'Kept: retention will not delete this request' }).waitFor();
        await eventually(async () => (await keep.getAttribute('aria-pressed')) === 'true');
        expect(await pinnedOf(h.url, account, id)).toBe(true);
        await detail.getByText('Kept: retention will not delete it').waitFor();

        // Its row says so at once, and after a reload (read from the API); the other row does not.
        const rows = page.getByRole('list', { name: 'Requests' });
        await rows.getByRole('link', { name: /\/important.*kept/ }).waitFor();
        expect(await rows.getByRole('link', { name: /\/ordinary.*kept/ }).count()).toBe(0);
        await page.reload();
        await rows.getByRole('link', { name: /\/important.*kept/ }).waitFor();

        // Kept only on the search page: in its URL and the API's, exactly the kept one.
        await page.goto(`${h.url}/search?slug=${ep.slug}`);
        await page.getByRole('status').filter({ hasText: '2 matching requests' }).waitFor();
        await page.getByRole('checkbox', { name: 'Kept only' }).check();
        await page.getByRole('status').filter({ hasText: '1 matching request' }).waitFor();
        expect(new URL(page.url()).searchParams.get('pinned')).toBe('true');
        expect(searches.some((u) => new URL(u).searchParams.get('pinned') === 'true')).toBe(true);
        const results = page.getByRole('list', { name: 'Search results' });
        await results.getByRole('link', { name: /\/important/ }).waitFor();
        // The last results stay listed until the new ones arrive (docs/dashboard.md): the count may come first.
        await eventually(async () => (await results.getByRole('link').count()) === 1);
        // Export takes Kept only too: the file holds the kept one alone, as listed.
        await page.getByRole('button', { name: 'Export' }).click();
        const [file] = await Promise.all([page.waitForEvent('download'), page.getByRole('link', { name: /^Download NDJSON/ }).click()]);
        const lines = readFileSync(await file.path(), 'utf8').trimEnd().split('\n');
        expect(lines.map((l) => (JSON.parse(l) as { id: string }).id)).toEqual([id]);

        // A reload keeps the filter (it is the URL's).
        await page.reload();
        await page.getByRole('status').filter({ hasText: '1 matching request' }).waitFor();
        expect(await page.getByRole('checkbox', { name: 'Kept only' }).isChecked()).toBe(true);

        // Keep again, from the search's detail: no longer kept, gone from Kept only.
        await results.getByRole('link', { name: /\/important/ }).click();
        const found = page.getByRole('article');
        await found.getByRole('heading', { name: /\/important$/ }).waitFor();
        const keepHere = found.getByRole('button', { name: 'Keep', exact: true });
        expect(await keepHere.getAttribute('aria-pressed')).toBe('true');
        await keepHere.click();
        await page.getByRole('status').filter({ hasText: 'No longer kept' }).waitFor();
        await eventually(async () => (await keepHere.getAttribute('aria-pressed')) === 'false');
        expect(await pinnedOf(h.url, account, id)).toBe(false);
        await page.getByRole('status').filter({ hasText: '0 matching requests' }).waitFor();
        await page.getByText('No request matches these filters.').waitFor();

        await page.getByRole('checkbox', { name: 'Kept only' }).uncheck();
        await page.getByRole('status').filter({ hasText: '2 matching requests' }).waitFor();
        expect(new URL(page.url()).searchParams.has('pinned')).toBe(false);
        await eventually(async () => (await results.getByRole('link').count()) === 2);
        expect(await results.getByRole('link', { name: /kept/ }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test(`past PIN_LIMIT (${PIN_LIMIT} here) Keep says so in words, and the request stays not kept`, async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Full');
      const ids = [await send(ep, '/one'), await send(ep, '/two')];
      const third = await send(ep, '/three');
      // A pin needs the capture in the capture store, which lags the receiver.
      await searchable(h.url, account, ep, 3);
      for (const id of ids) expect((await call(h.url, 'POST', `/api/requests/${id}/pin`, { token: account.session })).status).toBe(200);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openRequest(page, h.url, ep, '/three');
        const detail = page.getByRole('article');
        const keep = detail.getByRole('button', { name: 'Keep', exact: true });
        await keep.click();
        await page.getByRole('alert').filter({ hasText: `You can keep at most ${PIN_LIMIT} requests; stop keeping one first.` }).waitFor();
        expect(await keep.getAttribute('aria-pressed')).toBe('false');
        expect(await pinnedOf(h.url, account, third)).toBe(false);

        // Stop keeping one (from its own detail), and the third can be kept; the refusal is gone.
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/one.*kept/ }).click();
        await detail.getByRole('heading', { name: /\/one$/ }).waitFor();
        expect(await page.getByRole('alert').filter({ hasText: 'You can keep' }).count()).toBe(0);
        await keep.click();
        await page.getByRole('status').filter({ hasText: 'No longer kept' }).waitFor();
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/three/ }).click();
        await detail.getByRole('heading', { name: /\/three$/ }).waitFor();
        await keep.click();
        await page.getByRole('status').filter({ hasText: 'Kept: retention will not delete this request' }).waitFor();
        expect(await pinnedOf(h.url, account, third)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  { PIN_LIMIT: String(PIN_LIMIT) },
  CHROMIUM_SKIP,
);
