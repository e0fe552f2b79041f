/**
 * The search page's Header filter (docs/search.md, header filters) in real Chromium on both
 * backends, driven by label and role: `name:value` narrows the results and the count, a name
 * alone keeps the captures carrying it, and a malformed one is shown as the API's message.
 */
import { expect, test } from 'bun:test';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

describeBackends(
  'search page: Header filter',
  (h) => {
    test('name:value narrows the results and the count; a name alone keeps those carrying it; a bad one is explained', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'github');
      await fetch(`${ep.url}/push`, { method: 'POST', headers: { 'X-GitHub-Event': 'push' }, body: '{}' });
      await fetch(`${ep.url}/pr`, { method: 'POST', headers: { 'X-GitHub-Event': 'pull_request' }, body: '{}' });
      // The name and value only as another header's value.
      await fetch(`${ep.url}/note`, { method: 'POST', headers: { 'X-Note': 'x-github-event: push' }, body: '{}' });
      await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: account.session })).body.count === 3);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/search`);
        await page.getByRole('status').filter({ hasText: '3 matching requests' }).waitFor();
        const header = page.getByLabel('Header');
        const results = page.getByRole('list', { name: 'Search results' });

        await header.fill('X-GitHub-Event: PUSH');
        await header.press('Enter');
        await page.getByRole('status').filter({ hasText: '1 matching request' }).waitFor();
        // The list keeps the last results until the new ones arrive.
        for (const gone of [/\/pr/, /\/note/]) await results.getByRole('link', { name: gone }).waitFor({ state: 'detached' });
        expect(await results.getByRole('link').count()).toBe(1);
        await results.getByRole('link', { name: /\/push/ }).waitFor();
        expect(new URL(page.url()).searchParams.get('header')).toBe('X-GitHub-Event: PUSH');

        await header.fill('x-github-event');
        await page.getByLabel('Method').focus(); // leaving the field applies it
        await page.getByRole('status').filter({ hasText: '2 matching requests' }).waitFor();

        await header.fill('x github');
        await header.press('Enter');
        await page.getByText(/header: must be name:value/).first().waitFor();

        await header.fill('');
        await header.press('Enter');
        await page.getByRole('status').filter({ hasText: '3 matching requests' }).waitFor();
        expect(new URL(page.url()).searchParams.has('header')).toBe(false);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
