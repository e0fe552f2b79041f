/**
 * Our pages take scripts only from the paths that serve our own files (docs/security.md, "Where our
 * pages take scripts from"). In the default layout the receiver shares the origin and a mock response
 * can be JavaScript a stranger wrote: were any HTML injected into the dashboard or /docs,
 * `<script src="/w/<slug>">` must still not run. In real Chromium, signed in: the pages work, and
 * such a script, added to the page, is refused.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_SKIP, openPage, useChromium } from '../support/browser';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, setMock } from './support';

const chromium = useChromium();

/** Adds `<script src>` to the page and says whether it ran (it sets `window.__stranger`). */
function inject(page: Page, src: string): Promise<{ ran: boolean; event: string }> {
  // A string, as the other browser tests write page code: the test files are typed without the DOM.
  return page.evaluate(`new Promise((resolve) => {
    const s = document.createElement('script');
    s.src = ${JSON.stringify(src)};
    const done = (event) => resolve({ ran: window.__stranger === 'ran', event });
    s.onload = () => done('load');
    s.onerror = () => done('error');
    document.head.append(s);
  })`) as Promise<{ ran: boolean; event: string }>;
}

describeBackends(
  'security: script sources of our pages',
  (h) => {
    test("a stranger's script served by the receiver does not run in the dashboard or /docs", async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      await setMock(h.url, account.key, endpoint.slug, { status: 200, body: "window.__stranger = 'ran';", headers: { 'content-type': 'application/javascript' } });
      const { page, context, errors } = await openPage(chromium(), h.url, { email: account.email, session: account.session });
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      try {
        await page.goto(`${h.url}/`);
        await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
        await page.getByRole('link', { name: /security/ }).first().waitFor();
        expect(refused).toEqual([]);
        expect(await inject(page, `/w/${endpoint.slug}`)).toEqual({ ran: false, event: 'error' });
        // A path that starts like ours but is not: nothing under /assets/ serves it.
        expect(await inject(page, `/assets/..%2fw/${endpoint.slug}`)).toEqual({ ran: false, event: 'error' });
        expect(refused.some((t) => t.includes(`/w/${endpoint.slug}`))).toBe(true);

        refused.length = 0;
        await page.goto(`${h.url}/docs`);
        await page.getByRole('heading', { name: /hookcap API/ }).first().waitFor();
        await page.getByText('/api/endpoints', { exact: true }).first().waitFor();
        expect(refused).toEqual([]);
        expect(await inject(page, `/w/${endpoint.slug}`)).toEqual({ ran: false, event: 'error' });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test("a form injected into the dashboard cannot post what a user types to a stranger's endpoint (form-action 'none')", async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const { page, context } = await openPage(chromium(), h.url, { email: account.email, session: account.session });
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      try {
        await page.goto(`${h.url}/`);
        await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
        // Our own forms are handled by script and still work: make an endpoint through one.
        await page.getByRole('button', { name: 'New endpoint' }).click();
        await page.getByRole('heading', { level: 1 }).filter({ hasNotText: 'Endpoints' }).first().waitFor();
        await page.goto(`${h.url}/`);
        await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
        await page.evaluate(`(() => {
          const f = document.createElement('form');
          f.method = 'post';
          f.action = '/w/${endpoint.slug}/stolen';
          const i = document.createElement('input');
          i.name = 'password';
          i.value = 'typed by the user';
          f.append(i);
          document.body.append(f);
          f.submit();
        })()`);
        await page.waitForTimeout(1500);
        const r = await fetch(`${h.url}/api/endpoints/${endpoint.slug}/requests`, { headers: { authorization: `Bearer ${account.key}` } });
        expect(r.status).toBe(200);
        expect(JSON.stringify(await r.json())).not.toContain('stolen');
        expect(refused.some((t) => t.includes('form-action'))).toBe(true);
      } finally {
        await context.close();
      }
    });

    test("a form injected into /docs cannot post to a stranger's endpoint either; Authorize and Try it out still work", async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const { page, context, errors } = await openPage(chromium(), h.url, { email: account.email, session: account.session });
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      try {
        await page.goto(`${h.url}/docs`);
        await page.getByRole('heading', { name: /hookcap API/ }).first().waitFor();
        // Swagger UI's Authorize dialog is a form handled by script.
        await page.getByRole('button', { name: /Authorize/ }).first().click();
        // Its modal has no dialog role; the field is labelled auth-bearer-value.
        const modal = page.locator('.modal-ux');
        await modal.getByRole('textbox', { name: 'auth-bearer-value' }).fill(account.key);
        await modal.getByRole('button', { name: 'Apply credentials' }).or(modal.getByRole('button', { name: 'Authorize', exact: true })).first().click();
        await modal.getByRole('button', { name: /Logout|Remove authorization/ }).first().waitFor();
        await modal.getByRole('button', { name: /Close/ }).first().click();
        // Try it out on GET /api/auth/me answers with the key.
        await page.locator('#operations-auth-getApiAuthMe').getByRole('button').first().click();
        await page.getByRole('button', { name: 'Try it out' }).click();
        await page.getByRole('button', { name: 'Execute' }).click();
        await page.locator('.live-responses-table .response-col_status').filter({ hasText: '200' }).first().waitFor();
        expect(refused).toEqual([]);
        await page.evaluate(`(() => {
          const f = document.createElement('form');
          f.method = 'post';
          f.action = '/w/${endpoint.slug}/stolen';
          const i = document.createElement('input');
          i.name = 'password';
          i.value = 'typed by the user';
          f.append(i);
          document.body.append(f);
          f.submit();
        })()`);
        await page.waitForTimeout(1500);
        const r = await fetch(`${h.url}/api/endpoints/${endpoint.slug}/requests`, { headers: { authorization: `Bearer ${account.key}` } });
        expect(JSON.stringify(await r.json())).not.toContain('stolen');
        expect(refused.some((t) => t.includes('form-action'))).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('the dashboard works when opened by another name than BASE_URL (localhost for 127.0.0.1)', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      await setMock(h.url, account.key, endpoint.slug, { status: 200, body: "window.__stranger = 'ran';", headers: { 'content-type': 'application/javascript' } });
      const other = h.url.replace('127.0.0.1', 'localhost');
      expect(other).not.toBe(h.url);
      const { page, context, errors } = await openPage(chromium(), other, { email: account.email, session: account.session });
      const refused: string[] = [];
      page.on('console', (m) => {
        if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
      });
      try {
        await page.goto(`${other}/`);
        await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
        expect(refused).toEqual([]);
        expect(await inject(page, `/w/${endpoint.slug}`)).toEqual({ ran: false, event: 'error' });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
