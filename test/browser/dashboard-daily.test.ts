/**
 * A day with the dashboard open, in real Chromium on both backends, by role and accessible name:
 * reading a request while captures stream in (the open row and the focus stay put, "N newer
 * requests" jumps to the newest), and the live list's filter kept in the URL.
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { openPage, signUpAccount, useChromium, createEndpoint, type TestEndpoint } from '../support/browser';
import { eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint, suffix = ''): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}${suffix}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

async function send(ep: TestEndpoint, path: string, init: RequestInit = {}): Promise<void> {
  const r = await fetch(`${ep.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}', ...init });
  expect(r.status).toBeLessThan(300);
}

const isFocused = (l: Locator) => l.evaluate((el) => el === el.ownerDocument.activeElement);

/** Whether the row is drawn inside the list's scroll box, where the reader can see it. */
function inView(row: Locator) {
  return row.evaluate((el) => {
    const box = el.closest('.request-scroller');
    if (!box) return false;
    const r = el.getBoundingClientRect();
    const b = box.getBoundingClientRect();
    return r.top >= b.top - 1 && r.bottom <= b.bottom + 1;
  });
}

describeBackends('dashboard: a day of use', (h) => {
  test('a request open at the top stays in view, focused, while 40 arrive; "N newer requests" goes to the newest', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'reading');
    // Taller than the list's box, so it can scroll to hold the open row.
    for (let i = 0; i < 30; i++) await send(ep, `/seed/${i}`);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      const list = page.getByRole('list', { name: 'Requests' });
      const row = list.getByRole('link', { name: /\/seed\/29\b/ });
      await row.click();
      await page.getByRole('heading', { name: /\/seed\/29$/ }).waitFor();
      await row.focus();
      // Well past the rows drawn outside the view (overscan): the open row would leave the DOM.
      for (let i = 0; i < 40; i++) await send(ep, `/burst/${i}`);
      const newer = page.getByRole('button', { name: '↑ 40 newer requests' });
      await newer.waitFor();
      expect(await inView(row)).toBe(true);
      expect(await row.getAttribute('aria-current')).toBe('true');
      expect(await isFocused(row)).toBe(true);
      // j still moves from the open request, not from wherever the list slid to.
      await page.keyboard.press('j');
      await page.getByRole('heading', { name: /\/seed\/28$/ }).waitFor();

      await newer.click();
      await newer.waitFor({ state: 'detached' });
      const newest = list.getByRole('link', { name: /\/burst\/39\b/ });
      await eventually(() => isFocused(newest));
      expect(await inView(newest)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
