/**
 * A day with the dashboard open, in real Chromium on both backends, by role and accessible name:
 * reading a request while captures stream in (the open row and the focus stay put, "N newer
 * requests" jumps to the newest), and the live list's filter kept in the URL.
 */
import { expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { Locator, Page } from 'playwright-core';
import { isFocused, openPage, signUpAccount, useChromium, createEndpoint, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
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
  test('a request open at the top stays in view, focused, while 40 arrive; "N newer requests" goes to the newest, and j/k go on from there', async () => {
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
      // The keys go on from the focused row at the top, not from /seed/28 still open far below
      // (j opened /seed/27 there, and the list scrolled back down to it).
      await page.keyboard.press('j');
      await page.getByRole('heading', { name: /\/burst\/38$/ }).waitFor();
      await page.keyboard.press('j');
      await page.getByRole('heading', { name: /\/burst\/37$/ }).waitFor();
      await page.keyboard.press('k');
      await page.getByRole('heading', { name: /\/burst\/38$/ }).waitFor();
      expect(await inView(list.getByRole('link', { name: /\/burst\/38\b/ }))).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the live list filters by provider, event, signature and method; the filter stays in the URL through opening, reloading and Back', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'filtered');
    const secret = 'gh-secret-for-filter-0123456789';
    expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: account.session, body: { signing: { provider: 'github', secret } } })).status).toBe(200);
    const github = async (path: string, event: string, body: object, good = true) => {
      const text = JSON.stringify(body);
      const sig = good ? `sha256=${createHmac('sha256', secret).update(text).digest('hex')}` : `sha256=${'0'.repeat(64)}`;
      await send(ep, path, { body: text, headers: { 'content-type': 'application/json', 'x-github-event': event, 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': sig } });
    };
    await github('/gh/push-1', 'push', { ref: 'refs/heads/main' });
    await github('/gh/pr-opened', 'pull_request', { action: 'opened', number: 1 });
    await github('/gh/push-forged', 'push', { ref: 'refs/heads/main' }, false);
    await send(ep, '/stripe', { body: JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.failed' }), headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' } });
    await send(ep, '/form', { method: 'PUT', body: 'a=1', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      const list = page.getByRole('list', { name: 'Requests' });
      const rows = list.getByRole('link');
      await list.getByRole('link', { name: /\/form/ }).waitFor();
      const paths = () => rows.locator('.row-path').evaluateAll((els) => els.map((el) => el.firstChild?.textContent));
      const filter = page.getByRole('searchbox', { name: 'Filter requests' });

      await filter.fill('provider:github event:push -bad-signature');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/gh/push-1']));
      expect(await page.getByText('1 of 5 requests').count()).toBe(1);
      expect(new URL(page.url()).searchParams.get('filter')).toBe('provider:github event:push -bad-signature');

      // The endpoint checks GitHub signatures: a forged signature is a bad one; what carries no
      // x-hub-signature-256 at all is unsigned (`no-signature`), as the rows' badges tell them apart.
      await filter.fill('bad-signature');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/gh/push-forged']));
      await filter.fill('no-signature');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/form', '/stripe']));
      await filter.fill('signed');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/gh/pr-opened', '/gh/push-1']));
      await filter.fill('method:put');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/form']));
      await filter.fill('charge.failed');
      await eventually(async () => JSON.stringify(await paths()) === JSON.stringify(['/stripe']));
      await filter.fill('nothing-like-this');
      await page.getByText('No request matches “nothing-like-this”.').waitFor();

      // Enter goes on to the first matching row; Enter there opens it, and the filter stays.
      await filter.fill('github');
      await eventually(async () => (await paths()).length === 3);
      await filter.press('Enter');
      const first = list.getByRole('link', { name: /\/gh\/push-forged/ });
      await eventually(() => isFocused(first));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: /\/gh\/push-forged$/ }).waitFor();
      expect(new URL(page.url()).pathname).toContain('/requests/');
      expect(new URL(page.url()).searchParams.get('filter')).toBe('github');
      // j moves within what the filter shows (the Stripe capture between them is skipped).
      await page.keyboard.press('j');
      await page.getByRole('heading', { name: /\/gh\/pr-opened$/ }).waitFor();

      // A capture arriving live is listed only when it matches.
      await send(ep, '/plain-live');
      await github('/gh/push-live', 'push', { ref: 'refs/heads/dev' });
      await list.getByRole('link', { name: /\/gh\/push-live/ }).waitFor();
      expect(await list.getByRole('link', { name: /\/plain-live/ }).count()).toBe(0);
      expect(await page.getByText('4 of 7 requests').count()).toBe(1);

      // A reload keeps the filter and the open request.
      await page.reload();
      await page.getByRole('heading', { name: /\/gh\/pr-opened$/ }).waitFor();
      expect(await filter.inputValue()).toBe('github');
      await eventually(async () => (await paths()).length === 4);

      // Back and Forward walk the requests opened, the filter with them.
      await page.goBack();
      await page.getByRole('heading', { name: /\/gh\/push-forged$/ }).waitFor();
      expect(await filter.inputValue()).toBe('github');
      await page.goForward();
      await page.getByRole('heading', { name: /\/gh\/pr-opened$/ }).waitFor();
      expect(await filter.inputValue()).toBe('github');
      await eventually(async () => (await paths()).length === 4);

      // Escape only leaves the field: the filter stays (Chromium's own default emptied it). Emptied,
      // everything is listed again.
      await filter.focus();
      await page.keyboard.press('Escape');
      expect(await isFocused(filter)).toBe(false);
      expect(await filter.inputValue()).toBe('github');
      expect(new URL(page.url()).searchParams.get('filter')).toBe('github');
      expect(await page.getByText('4 of 7 requests').count()).toBe(1);
      await filter.fill('');
      await eventually(async () => (await paths()).length === 7);
      expect(new URL(page.url()).search).toBe('');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('two requests compared: facts, headers and body (by JSON path, by line) that differ; the selected one stays through j/k and a reload', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'compared');
    await send(ep, '/notes', { method: 'PUT', body: 'first line\nsame middle\nlast: one', headers: { 'content-type': 'text/plain' } });
    await send(ep, '/orders', { body: JSON.stringify({ id: 1, amount: 100, items: [{ sku: 'a' }], meta: { x: 1 } }), headers: { 'content-type': 'application/json', 'x-attempt': '1' } });
    await send(ep, '/orders', { body: JSON.stringify({ id: 1, amount: 250, items: [{ sku: 'b' }], currency: 'eur' }), headers: { 'content-type': 'application/json', 'x-attempt': '2', 'x-new': 'yes' } });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      const list = page.getByRole('list', { name: 'Requests' });
      await list.getByRole('link').first().click();
      const detail = page.getByRole('article');
      await detail.getByRole('heading', { name: /\/orders$/ }).waitFor();
      await detail.getByRole('link', { name: 'Compare with previous' }).click();
      const comparison = detail.getByRole('region', { name: 'Compared with POST /orders' });
      await comparison.waitFor();
      const rowsOf = async (table: string) =>
        (await comparison.getByRole('table', { name: table }).getByRole('row').allTextContents()).slice(1);
      expect(await rowsOf('Body differences')).toEqual(['amount250100', 'items[0].sku"b""a"', 'currency"eur"absent', 'meta.xabsent1']);
      expect(await rowsOf('Header differences')).toEqual(expect.arrayContaining(['x-attempt21', 'x-newyesabsent']));
      expect((await rowsOf('Request differences')).some((r) => r.startsWith('Size'))).toBe(true);
      const compared = new URL(page.url()).searchParams.get('compare');
      expect(compared).toMatch(/^req_/);

      // The compared request is pinned: j opens it (nothing to show against itself), k comes back.
      await page.keyboard.press('j');
      await detail.getByText('Selected for comparison', { exact: false }).waitFor();
      expect(new URL(page.url()).pathname).toEndWith(`/requests/${compared}`);
      await page.keyboard.press('k');
      await comparison.waitFor();
      await page.reload();
      await comparison.getByRole('table', { name: 'Body differences' }).waitFor();
      // The text body against the pinned JSON one, line by line.
      await list.getByRole('link', { name: /\/notes/ }).click();
      await detail.getByRole('heading', { name: /\/notes$/ }).waitFor();
      const lines = await rowsOf('Body differences');
      expect(lines[0]).toStartWith('line 1first line{');
      expect(lines).toContain('line 3last: oneabsent');

      await detail.getByRole('link', { name: 'Stop comparing' }).click();
      await comparison.waitFor({ state: 'detached' });
      expect(new URL(page.url()).searchParams.get('compare')).toBeNull();
      // Select this one for comparison, open another: that one is compared with it.
      await detail.getByRole('link', { name: 'Select for comparison' }).click();
      await detail.getByText('Selected for comparison', { exact: false }).waitFor();
      await list.getByRole('link').first().click();
      await detail.getByRole('region', { name: 'Compared with PUT /notes' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('Switch endpoint goes from one endpoint to another without the endpoint list', async () => {
    const account = await signUpAccount(h.url);
    const stripe = await createEndpoint(h.url, account, 'Stripe live');
    await createEndpoint(h.url, account, 'GitHub app');
    const billing = await createEndpoint(h.url, account, 'Internal billing');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, stripe);
      const toggle = page.getByRole('button', { name: 'Switch endpoint' });
      await toggle.click();
      expect(await toggle.getAttribute('aria-expanded')).toBe('true');
      const others = page.getByRole('list', { name: 'Other endpoints' });
      expect(await others.getByRole('link').allTextContents()).toEqual(expect.arrayContaining(['GitHub app', 'Internal billing']));
      expect(await others.getByRole('link', { name: 'Stripe live' }).count()).toBe(0);
      // A click elsewhere closes it, as a menu would.
      const size = page.viewportSize() ?? { width: 1280, height: 800 };
      await page.mouse.click(size.width - 10, size.height - 10);
      await others.waitFor({ state: 'detached' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      await toggle.click();
      await others.waitFor();
      // Escape closes it and gives the focus back to the button.
      await page.keyboard.press('Escape');
      await others.waitFor({ state: 'detached' });
      expect(await isFocused(toggle)).toBe(true);
      // From the keyboard: open, type, Enter.
      await page.keyboard.press('Enter');
      const find = page.getByRole('searchbox', { name: 'Find an endpoint' });
      await eventually(() => isFocused(find));
      await page.keyboard.type('bill');
      expect(await others.getByRole('link').allTextContents()).toEqual(['Internal billing']);
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { level: 1, name: 'Internal billing' }).waitFor();
      expect(new URL(page.url()).pathname).toBe(`/endpoints/${billing.slug}`);
      await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
      expect(await others.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('outside UTC the received time is given in the local zone and in UTC too; in UTC once', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'zones');
    await send(ep, '/zoned');
    for (const [zone, local, utc] of [
      ['America/New_York', /UTC-0[45]:00/, true],
      ['UTC', /UTC\+00:00/, false],
    ] as const) {
      const { page, context, errors } = await openPage(chromium(), h.url, account, { timezoneId: zone });
      try {
        await openEndpoint(page, h.url, ep);
        const row = page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/zoned/ });
        const iso = (await row.locator('time').getAttribute('datetime')) ?? '';
        const inUtc = `${iso.replace('T', ' ').replace('Z', '')} UTC`;
        expect(await row.locator('time').getAttribute('title')).toMatch(local);
        await row.click();
        const facts = (await page.getByRole('article').getByRole('definition').first().textContent()) ?? '';
        expect(facts).toMatch(local);
        // (In UTC the local time itself reads "… UTC+00:00": the UTC one would follow it.)
        expect(facts.includes(`, ${inUtc}`)).toBe(utc);
        expect(((await row.locator('time').getAttribute('title')) ?? '').includes(`\n${inUtc}`)).toBe(utc);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }
  });

  test('a field picked in the JSON tree: Copy path and Copy value copy exactly', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'picked');
    const event = { id: 'evt_1', type: 'charge.succeeded', data: { object: { amount: 4200, currency: 'eur', 'odd key': { ok: true }, lines: [{ sku: 'a' }, { sku: 'pro-plan' }] } } };
    await send(ep, '/event', { body: JSON.stringify(event) });
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await openEndpoint(page, h.url, ep);
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/event/ }).click();
      const tree = page.getByRole('tree');
      const picked = page.getByRole('group', { name: 'Picked field' });
      await picked.getByText('Click a field to copy its path or value.').waitFor();
      const copied = async (button: string) => {
        await picked.getByRole('button', { name: button }).click();
        return page.evaluate('navigator.clipboard.readText()');
      };
      await tree.getByText('4200', { exact: true }).click();
      expect(await copied('Copy path')).toBe('data.object.amount');
      expect(await copied('Copy value')).toBe('4200');
      await tree.getByText('"pro-plan"').click();
      expect(await copied('Copy path')).toBe('data.object.lines[1].sku');
      // A string's value is its text, without the quotes.
      expect(await copied('Copy value')).toBe('pro-plan');
      await tree.getByText('odd key:').click();
      expect(await copied('Copy path')).toBe('data.object["odd key"]');
      expect(JSON.parse(String(await copied('Copy value')))).toEqual({ ok: true });
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
