/**
 * Rough edges from a walkthrough of the dashboard, in real Chromium on both backends, driven by
 * role and accessible name: Escape in a search or filter box leaves it and keeps the query and its
 * results; "Use the default answer" empties the mock form; a notification URL on a loopback or
 * private address is saved, with the server's warning at its field, after a reload too; on a phone (390 × 844) the endpoint's header
 * is short enough that the list starts in the upper part of the screen, every action still there.
 */
import { expect, test } from 'bun:test';
import { openSettings, isFocused, openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { fieldState } from '../support/a11y';
import { fitsNarrowScreen } from '../support/layout';
import { describeBackends } from '../support/suite';

const chromium = useChromium();


/** The settings page, reached the way a person does: the endpoint card's Settings link. */
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

    test('Use the default answer empties the mock form: nothing on the page reads as the old mock', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'mock off');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openSettings(page, h.url, ep);
        const mock = page.getByRole('region', { name: 'Mock response' });
        await mock.getByLabel('Status').fill('418');
        await mock.getByLabel('Headers').fill('content-type: text/plain\nx-mock: teapot');
        await mock.getByLabel('Body').fill('short and stout');
        await mock.getByRole('button', { name: 'Save' }).click();
        await mock.getByText('a mock response with status 418').waitFor();
        expect((await fetch(`${ep.url}/x`, { method: 'POST' })).status).toBe(418);

        await mock.getByRole('button', { name: 'Use the default answer' }).click();
        await mock.getByText('the default answer', { exact: true }).waitFor();
        const shown = async () => [await mock.getByLabel('Status').inputValue(), await mock.getByLabel('Headers').inputValue(), await mock.getByLabel('Body').inputValue()];
        expect(await shown()).toEqual(['200', '', '']);
        // The example stays as placeholder text, as on an endpoint that never had a mock.
        expect(await mock.getByLabel('Body').getAttribute('placeholder')).toBe('{"received": true}');
        expect(await isFocused(mock.getByRole('button', { name: 'Save' }))).toBe(true);
        expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.mockResponse).toBeNull();
        expect((await fetch(`${ep.url}/y`, { method: 'POST' })).status).toBe(200);
        // A reload shows the same: the page held nothing the server does not.
        await page.reload();
        await mock.getByText('the default answer', { exact: true }).waitFor();
        expect(await shown()).toEqual(['200', '', '']);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a notification URL on a loopback address is saved, with a warning at its field that says why (after a reload too); a public one has none', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'internal hook');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openSettings(page, h.url, ep);
        const section = () => page.getByRole('region', { name: 'Notifications' });
        const field = () => section().getByLabel('Notification URL');
        const warning = () => section().getByText(/^Notifications to this URL will not be sent: /);
        const WHY = '127.0.0.1 is a loopback address';

        await field().fill('http://127.0.0.1:8080/hook');
        await section().getByRole('button', { name: 'Save' }).click();
        await section().getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        await section().getByText('Notifications are on.').waitFor();
        // Told in a status region (announced as it appears), beside the field and in its description: a warning, not an error.
        const shown = section().getByRole('status').filter({ hasText: WHY });
        await shown.waitFor();
        expect(await warning().textContent()).toContain('OUTBOUND_ALLOW');
        const state = await fieldState(field());
        expect(state.invalid).toBe(false);
        expect(state.description).toContain(`Notifications to this URL will not be sent: ${WHY}`);
        expect(state.description).toContain('leave empty to stop notifications');
        expect(await section().getByRole('alert').count()).toBe(0);
        expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.notificationUrl).toBe('http://127.0.0.1:8080/hook');

        // The endpoint still carries it after a reload, so the field still says it.
        await page.reload();
        await page.getByRole('heading', { name: 'Mock response' }).waitFor();
        expect(await field().inputValue()).toBe('http://127.0.0.1:8080/hook');
        await warning().waitFor();
        expect((await fieldState(field())).description).toContain(WHY);

        // A public one: saved, and the warning goes.
        await field().fill('https://hooks.example.com/hookcap');
        await section().getByRole('button', { name: 'Save' }).click();
        await eventually(async () => (await warning().count()) === 0);
        await section().getByText('Notifications are on.').waitFor();
        const after = await fieldState(field());
        expect([after.invalid, after.description.includes('will not be sent')]).toEqual([false, false]);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('on a phone (390 × 844) the endpoint header is short and the list’s first row is in the first screen; every action is still there', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe payments production');
      for (let i = 0; i < 3; i++) await fetch(`${ep.url}/orders/${i}`, { method: 'POST', body: '{}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 390, height: 844 } });
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        const list = page.getByRole('list', { name: 'Requests' });
        const first = list.getByRole('link', { name: /\/orders\/2/ });
        await first.waitFor();
        // Measured without the unconfirmed address's one-line banner (its own line, checked in dashboard-polish).
        await page.getByRole('complementary', { name: 'Address not confirmed' }).getByRole('button', { name: 'Dismiss' }).click();
        const title = page.getByRole('heading', { name: 'Stripe payments production', level: 1 });
        const more = page.getByRole('button', { name: 'More actions' });
        // Measured: the header from its breadcrumb to its last row, and the first row's box.
        const head = await page.getByRole('navigation', { name: 'Breadcrumb' }).evaluate((nav) => {
          const r = nav.parentElement?.getBoundingClientRect();
          return { top: r?.top ?? NaN, bottom: r?.bottom ?? NaN, height: r?.height ?? NaN };
        });
        const row = await first.evaluate((el) => {
          const r = el.getBoundingClientRect();
          return { top: r.top, bottom: r.bottom };
        });
        // It was ~205 px tall, and the first row began at ~380 px; now three short rows.
        expect(head.height).toBeLessThanOrEqual(120);
        expect(row.top).toBeGreaterThanOrEqual(head.bottom);
        expect(row.bottom).toBeLessThanOrEqual(844 * 0.4);
        await fitsNarrowScreen(page, ['Copy URL', 'More actions', 'Log out'], 390);
        // The URL is whole in the page (cut only on screen), and Copy URL is beside it.
        expect(await page.getByTitle(ep.url).textContent()).toBe(ep.url);
        expect(await page.getByRole('link', { name: 'Settings', exact: true }).isVisible()).toBe(true);

        // Rename, Clear captures and Delete endpoint are behind More actions, a disclosure.
        for (const name of ['Rename', 'Clear captures', 'Delete endpoint']) expect(await page.getByRole('button', { name }).count()).toBe(0);
        expect(await more.getAttribute('aria-expanded')).toBe('false');
        await more.focus();
        await page.keyboard.press('Enter');
        expect(await more.getAttribute('aria-expanded')).toBe('true');
        for (const name of ['Rename', 'Clear captures', 'Delete endpoint']) expect(await page.getByRole('button', { name }).isVisible()).toBe(true);
        await page.keyboard.press('Tab');
        expect(await isFocused(page.getByRole('button', { name: 'Rename' }))).toBe(true);
        // Escape closes it and gives the focus back to its button.
        await page.keyboard.press('Escape');
        expect(await more.getAttribute('aria-expanded')).toBe('false');
        expect(await isFocused(more)).toBe(true);

        // Rename from it, then the focus is back on Rename.
        await more.click();
        await page.getByRole('button', { name: 'Rename' }).click();
        await page.getByLabel('Name').fill('Stripe prod');
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'Stripe prod', level: 1 }).waitFor();
        await eventually(() => isFocused(page.getByRole('button', { name: 'Rename' })));
        expect(await title.count()).toBe(0);

        // Clear captures from it: its confirmation, then the list is empty.
        await page.getByRole('button', { name: 'Clear captures' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Clear' }).click();
        await page.getByText('Waiting for the first request').waitFor();
        // A click elsewhere closes it.
        await page.getByRole('heading', { name: 'Stripe prod', level: 1 }).click();
        expect(await more.getAttribute('aria-expanded')).toBe('false');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
