/**
 * What an audit of the dashboard found, in real Chromium on both backends, by role and accessible
 * name: the list and the detail show a query decoded for reading (cURL keeps the bytes); a request
 * opened under another endpoint's URL moves to its own; a search result opened before the endpoint
 * lists load shows its real URL; removing a row hands the focus to its neighbour; /teams with the
 * server down says so without "Loading"; "Download body" names the file by its content type.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import type { Locator, Page, Route } from 'playwright-core';
import { nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { focusedName, isFocused, openPage, signUpAccount, useChromium, createEndpoint, type Account, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

/** What has the focus, for a failure's message. */

/** Waits until the capture store has the capture, as search and GET /api/requests/<id> read it. */
async function stored(base: string, account: Account, id: string): Promise<void> {
  await eventually(async () => (await call(base, 'GET', `/api/requests/${id}`, { token: account.session })).status === 200, 10_000);
}

describeBackends(
  'dashboard: audit fixes',
  (h) => {
    test('the list and the heading show the query decoded, hidden characters visible; cURL keeps the bytes', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'readable');
      const query = 'u=%E2%9C%93&arr%5B%5D=1&arr%5B%5D=2&bad=%zz&pct=%2541&rlo=%E2%80%AEevil';
      const sent = await fetch(`${ep.url}/caf%C3%A9/%zz?${query}`, { method: 'POST', body: 'x' });
      expect(sent.status).toBe(200);
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openEndpoint(page, h.url, ep);
        const readable = '/café/%zz?u=✓&arr[]=1&arr[]=2&bad=%zz&pct=%2541&rlo=%E2%80%AEevil';
        const esc = readable.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');
        // Decoded, a malformed escape as it was sent, and the right-to-left override shown as its escape, not obeyed.
        const row = page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: new RegExp(`^POST ${esc} `) });
        await row.waitFor();
        expect(await row.textContent()).not.toContain('\u202E');
        await row.click();
        const heading = page.getByRole('heading', { name: new RegExp(`${ep.url.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}${esc}$`) });
        await heading.waitFor();
        expect(await heading.textContent()).not.toContain('\u202E');
        // The Query table was already readable; it still is.
        const table = page.getByRole('table', { name: 'Query parameters' });
        expect(await table.getByRole('row', { name: 'u ✓' }).count()).toBe(1);
        // Copy as cURL sends the bytes as they were sent (`%zz` too), not the text shown.
        await page.getByRole('button', { name: 'Copy as cURL' }).click();
        const curl = String(await page.evaluate('navigator.clipboard.readText()'));
        expect(curl).toContain(`'${ep.url}/caf%C3%A9/%zz?${query}'`);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test("another endpoint's request opened under this endpoint's URL moves to its own endpoint", async () => {
      const account = await signUpAccount(h.url);
      const a = await createEndpoint(h.url, account, 'endpoint A');
      const b = await createEndpoint(h.url, account, 'endpoint B');
      await fetch(`${a.url}/of-a`, { method: 'POST', body: 'a' });
      const id = ((await (await fetch(`${b.url}/of-b`, { method: 'POST', body: 'b' })).json()) as { id: string }).id;
      await stored(h.url, account, id);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/endpoints/${a.slug}/requests/${id}`);
        await page.getByRole('heading', { name: `${b.url}/of-b` }).waitFor();
        expect(new URL(page.url()).pathname).toBe(`/endpoints/${b.slug}/requests/${id}`);
        await page.getByRole('heading', { name: 'endpoint B', level: 1 }).waitFor();
        expect(await page.getByRole('heading', { name: new RegExp(a.slug) }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test("a search result opened before the endpoint lists load shows its real endpoint's URL and cURL", async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'slow list');
      const id = ((await (await fetch(`${ep.url}/found?k=v`, { method: 'POST', body: 'needle' })).json()) as { id: string }).id;
      await stored(h.url, account, id);
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      // The endpoint lists take their time (a slow network): held until the end of the test.
      const held: Route[] = [];
      await page.route(/\/api\/(endpoints|teams)$/, (route) => void held.push(route));
      const asked: string[] = [];
      page.on('request', (r) => {
        if (new URL(r.url()).pathname.startsWith('/api/requests/')) asked.push(`${new URL(r.url()).pathname}${new URL(r.url()).search}`);
      });
      try {
        await page.goto(`${h.url}/search/requests/${id}?q=needle`);
        const heading = page.getByRole('heading', { name: `${ep.url}/found?k=v` });
        await heading.waitFor();
        expect(held.length).toBeGreaterThan(0);
        // Named by the request-by-id answer itself (endpointSlug, endpointUrl), not by downloading its HAR export.
        expect(asked).toEqual([`/api/requests/${id}`]);
        expect(await page.getByText('unknown-endpoint').count()).toBe(0);
        await page.getByRole('button', { name: 'Copy as cURL' }).click();
        expect(String(await page.evaluate('navigator.clipboard.readText()'))).toContain(`'${ep.url}/found?k=v'`);
        expect(errors).toEqual([]);
      } finally {
        await page.unroute(/\/api\/(endpoints|teams)$/);
        for (const r of held) await r.abort().catch(() => undefined);
        await context.close();
      }
    });

    test('deleting a key hands the focus to the next key, the last one, then the Key name field', async () => {
      const account = await signUpAccount(h.url);
      for (const name of ['first', 'second', 'third']) expect((await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name } })).status).toBe(201);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/account`);
        const del = (name: string) => page.getByRole('button', { name: `Delete key ${name}` });
        const remove = async (name: string) => {
          await del(name).focus();
          await page.keyboard.press('Enter');
          await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).click();
          await del(name).waitFor({ state: 'detached' });
        };
        await remove('second');
        expect(await eventually(() => isFocused(del('third')), 2_000).catch(() => false), await focusedName(page)).toBe(true);
        await remove('third');
        expect(await eventually(() => isFocused(del('first')), 2_000).catch(() => false), await focusedName(page)).toBe(true);
        await remove('first');
        expect(await eventually(() => isFocused(page.getByLabel('Key name')), 2_000).catch(() => false), await focusedName(page)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('removing a member, withdrawing an invite and unsharing an endpoint hand the focus to the next row, then to the form', async () => {
      const owner = await signUpAccount(h.url);
      const team = (await call(h.url, 'POST', '/api/teams', { token: owner.session, body: { name: 'Focus team' } })).body as { id: string };
      await setStripeSubscription(h.url, { teamId: team.id, seats: 10, created: nowSeconds() - 60 });
      for (const email of ['ann@example.com', 'bob@example.com']) {
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.session, body: { email } })).status).toBe(201);
      }
      const members = [await signUpAccount(h.url), await signUpAccount(h.url)];
      for (const m of members) {
        const inv = await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.session, body: { email: m.email } });
        expect(inv.status).toBe(201);
        expect((await call(h.url, 'POST', `/api/invites/${(inv.body as { id: string }).id}/accept`, { token: m.session })).status).toBe(200);
      }
      for (const name of ['shared one', 'shared two']) {
        const ep = await createEndpoint(h.url, owner, name);
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: ep.id } })).status).toBe(201);
      }
      const { page, context, errors } = await openPage(chromium(), h.url, owner);
      try {
        await page.goto(`${h.url}/teams/${team.id}`);
        const press = async (button: Locator) => {
          // The rows' buttons are aria-disabled while the previous withdrawal settles (a loaded CI
          // machine pressed Enter on one then, and the press was ignored): wait until it takes one.
          await eventually(async () => (await button.getAttribute('aria-disabled')) !== 'true', 10_000);
          await button.focus();
          await page.keyboard.press('Enter');
          await button.waitFor({ state: 'detached' });
        };
        const focused = async (l: Locator) => expect(await eventually(() => isFocused(l), 3_000).catch(() => false), await focusedName(page)).toBe(true);
        const withdraw = (email: string) => page.getByRole('button', { name: `Withdraw the invite to ${email}` });
        await press(withdraw('ann@example.com'));
        await focused(withdraw('bob@example.com'));
        await press(withdraw('bob@example.com'));
        await focused(page.getByLabel('Email address to invite'));
        // Remove (after its confirmation) hands it to the next member's Remove.
        const removeButtons = page.getByRole('list', { name: 'Members' }).getByRole('button');
        const firstRemove = removeButtons.first();
        const firstLabel = (await firstRemove.getAttribute('aria-label')) ?? '';
        const other = members.map((m) => `Remove ${m.email}`).find((l) => l !== firstLabel) ?? '';
        await firstRemove.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('dialog').getByRole('button', { name: 'Remove' }).click();
        await page.getByRole('button', { name: firstLabel }).waitFor({ state: 'detached' });
        await focused(page.getByRole('button', { name: other }));
        const unshare = (name: string) => page.getByRole('button', { name: `Unshare ${name}` });
        const first = (await page.getByRole('list', { name: 'Shared endpoints' }).getByRole('button').first().getAttribute('aria-label')) ?? '';
        const [one, two] = first === 'Unshare shared one' ? ['shared one', 'shared two'] : ['shared two', 'shared one'];
        await press(unshare(one));
        await focused(unshare(two));
        await press(unshare(two));
        await focused(page.getByLabel('Endpoint to share'));
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('with the server down, /teams and an endpoint say so, without "Loading…" beside it', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'unreachable');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        // The page and the session check load; every other API call finds no server.
        await page.route('**/api/**', (route) => (new URL(route.request().url()).pathname === '/api/auth/me' ? route.continue() : route.abort('connectionrefused')));
        await page.goto(`${h.url}/teams`);
        await page.getByRole('alert').filter({ hasText: 'Cannot reach the server' }).first().waitFor({ timeout: 15_000 });
        expect(await page.getByText('Loading teams…').count()).toBe(0);
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('alert').filter({ hasText: 'Cannot reach the server' }).first().waitFor({ timeout: 15_000 });
        expect(await page.getByText('Loading…').count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('Download body names the file by its content type and keeps the bytes', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'downloads');
      const png = new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a, 0x00, 0xff]);
      const cases: { path: string; type: string | null; body: string | Uint8Array<ArrayBuffer>; ext: string }[] = [
        { path: '/j', type: 'application/json; charset=utf-8', body: '{"a":1}', ext: 'json' },
        { path: '/v', type: 'application/vnd.api+json', body: '{"data":[]}', ext: 'json' },
        { path: '/t', type: 'text/plain', body: 'hello', ext: 'txt' },
        { path: '/h', type: 'text/html', body: '<b>hi</b>', ext: 'html' },
        { path: '/x', type: 'application/xml', body: '<a/>', ext: 'xml' },
        { path: '/c', type: 'text/csv', body: 'a,b\n1,2\n', ext: 'csv' },
        { path: '/f', type: 'application/x-www-form-urlencoded', body: 'a=1&b=2', ext: 'txt' },
        { path: '/p', type: 'image/png', body: png, ext: 'png' },
        { path: '/d', type: 'application/pdf', body: '%PDF-1.4\n', ext: 'pdf' },
        { path: '/u', type: 'application/x-unknown-thing', body: 'zz', ext: 'bin' },
        { path: '/n', type: null, body: png, ext: 'bin' },
      ];
      const ids: string[] = [];
      for (const c of cases) {
        const headers: Record<string, string> = c.type ? { 'content-type': c.type } : {};
        const r = await fetch(`${ep.url}${c.path}`, { method: 'POST', headers, body: c.body });
        expect(r.status).toBe(200);
        ids.push(((await r.json()) as { id: string }).id);
      }
      for (const id of ids) await stored(h.url, account, id);
      const { context, errors } = await openPage(chromium(), h.url, account);
      try {
        for (const [i, c] of cases.entries()) {
          // A tab per download: Chromium holds back a page's repeated downloads (its download limiter).
          const page = await context.newPage();
          page.on('pageerror', (e) => errors.push(String(e)));
          await page.goto(`${h.url}/endpoints/${ep.slug}/requests/${ids[i]}`);
          const detail = page.getByRole('article', { name: new RegExp(`\\${c.path}$`) });
          const [download] = await Promise.all([page.waitForEvent('download'), detail.getByRole('button', { name: 'Download body' }).click()]);
          expect(download.suggestedFilename()).toBe(`${ids[i]}.${c.ext}`);
          const bytes = typeof c.body === 'string' ? new TextEncoder().encode(c.body) : c.body;
          expect(new Uint8Array(readFileSync(await download.path()))).toEqual(bytes);
          await page.close();
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  TEAMS_ENV,
);
