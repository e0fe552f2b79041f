/**
 * Rough edges from a walkthrough of the dashboard, in real Chromium on both backends, driven by
 * role and accessible name: Escape in a search or filter box leaves it and keeps the query and its
 * results.
 */
import { expect, test } from 'bun:test';
import type { Locator } from 'playwright-core';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

const isFocused = (l: Locator) => l.evaluate((el) => el === el.ownerDocument.activeElement);

describeBackends(
  'dashboard: walkthrough rough edges',
  (h) => {
    test('Escape in the search page’s boxes and in Filter endpoints leaves the box and keeps the query, its results and the filter', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'escape');
      await fetch(`${ep.url}/needle`, { method: 'POST', headers: { 'x-kind': 'blue' }, body: '{"n":"needle-1"}' });
      await fetch(`${ep.url}/needle-red`, { method: 'POST', headers: { 'x-kind': 'red' }, body: '{"n":"needle-2"}' });
      await fetch(`${ep.url}/hay`, { method: 'POST', body: '{}' });
      await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: account.session })).body.count === 3, 15_000);
      for (let i = 1; i <= 5; i++) await createEndpoint(h.url, account, `other ${i}`);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/search`);
        const box = page.getByRole('searchbox', { name: 'Search' });
        const results = page.getByRole('list', { name: 'Search results' });
        const count = page.getByRole('status').filter({ hasText: 'matching request' });
        await box.fill('needle');
        await count.filter({ hasText: /^2 matching requests for “needle”$/ }).waitFor();
        await eventually(async () => (await results.getByRole('link').count()) === 2);

        // Escape leaves the box; the query, its count and its results stay (Chromium's own default emptied them).
        await box.press('Escape');
        expect(await isFocused(box)).toBe(false);
        expect(await box.inputValue()).toBe('needle');
        expect(new URL(page.url()).searchParams.get('q')).toBe('needle');
        await Bun.sleep(300); // a refetch for an emptied query would have landed by now
        expect(await count.textContent()).toBe('2 matching requests for “needle”');
        expect(await results.getByRole('link').count()).toBe(2);

        // The Header filter likewise: Escape keeps it, and leaving the box applies it.
        const header = page.getByLabel('Header');
        await header.fill('x-kind:blue');
        await header.press('Escape');
        expect(await isFocused(header)).toBe(false);
        expect(await header.inputValue()).toBe('x-kind:blue');
        await count.filter({ hasText: /^1 matching request for “needle”$/ }).waitFor();
        expect(new URL(page.url()).searchParams.get('header')).toBe('x-kind:blue');
        await results.getByRole('link', { name: /needle-red/ }).waitFor({ state: 'detached' });
        expect(await results.getByRole('link', { name: /\/needle/ }).count()).toBe(1);

        // And the endpoint list's filter.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
        const filter = page.getByRole('searchbox', { name: 'Filter endpoints' });
        await filter.fill('escape');
        await page.getByRole('link', { name: 'Requests of other 1' }).waitFor({ state: 'detached' });
        await filter.press('Escape');
        expect(await isFocused(filter)).toBe(false);
        expect(await filter.inputValue()).toBe('escape');
        expect(await page.getByRole('link', { name: /^Requests of / }).count()).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
