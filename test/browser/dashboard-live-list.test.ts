/**
 * The live list where an auditor found it wanting, in real Chromium on both backends: opened while
 * the server was down it recovers once the server is back (the whole list, not only what arrives
 * after); a filter whose matches are all among older captures reads older pages by itself, within
 * a bound, then offers Look further back and the search page; Escape closes the open request; and
 * every signed-in page starts with Skip to content.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_SKIP, createEndpoint, focusedName, isFocused, openPage, signUpAccount, useChromium, type Account, type TestEndpoint } from '../support/browser';
import { BACKENDS, provision, type BackendEnv } from '../support/backends';
import { sendCaptures } from '../support/bulk-capture';
import { call, eventually } from '../support/client';
import { RESTART_TEST_MS, startServer, stopServer, SUITE_START_MS, type TestServer } from '../support/server';

const browser = useChromium();

const status = (page: Page, text: string) => page.getByRole('status', { name: 'Stream status' }).filter({ hasText: text });
const count = (page: Page) => page.locator('.list-count').textContent();

/** Waits until the capture store (which the paginated list reads) holds `n` captures of `ep`. */
async function stored(base: string, account: Account, ep: TestEndpoint, n: number): Promise<void> {
  await eventually(async () => (await call(base, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: account.session })).body.count === n, 30_000);
}

/** `n` captures to /bulk/<i>, as fast as the receiver takes them. */
const bulk = (ep: TestEndpoint, n: number) => sendCaptures({ url: new URL(ep.url).origin, slug: ep.slug, count: n, body: (i) => `{"n":${i}}` });

for (const backend of BACKENDS) {
  (CHROMIUM_SKIP === null ? describe : describe.skip)(`dashboard live list [${backend}]`, () => {
    let provisioned: BackendEnv | undefined;
    let server: TestServer | undefined;
    beforeAll(async () => {
      provisioned = await provision(backend);
      server = await startServer({ env: provisioned.env, healthyWithinMs: SUITE_START_MS - 10_000 });
    }, SUITE_START_MS);
    afterAll(async () => {
      if (server) await stopServer(server);
      await provisioned?.cleanup();
    });

    test('opened while the server is down, the list loads once it is back: no "Waiting for the first request", no "0 requests", no stale error', async () => {
      if (!server || !provisioned) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await createEndpoint(base, account, 'downstairs');
      await bulk(ep, 320);
      await stored(base, account, ep, 320);
      const { page, context } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/`);
        const requests = page.getByRole('link', { name: 'Requests of downstairs' });
        await requests.waitFor();

        await stopServer(server, { keepData: true });
        await requests.click();
        const unreachable = page.getByText('Cannot reach the server');
        await unreachable.waitFor({ timeout: 10_000 });
        // Down, the list is not known: nothing says it is empty, and nothing counts it.
        await page.getByText('The requests are listed as soon as the server answers.').waitFor();
        expect(await page.getByRole('heading', { name: 'Waiting for the first request' }).count()).toBe(0);
        expect(await count(page)).toBe('');

        server = await startServer({ env: provisioned.env, port: server.port, dataDir: server.dataDir });
        await status(page, 'Live').waitFor({ timeout: 30_000 });
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/bulk\/319 / }).waitFor({ timeout: 20_000 });
        await page.locator('.list-count').filter({ hasText: /^100 requests loaded$/ }).waitFor();
        await eventually(async () => (await unreachable.count()) === 0);
        expect(await page.getByRole('heading', { name: 'Waiting for the first request' }).count()).toBe(0);

        // And it is live, the older pages still there to scroll to.
        await fetch(`${ep.url}/after`, { method: 'POST' });
        await list.getByRole('link', { name: /^POST \/after / }).waitFor();
        await page.locator('.list-count').filter({ hasText: /^101 requests loaded$/ }).waitFor();
        // No `errors` check: the page logs its refused connections while the server is down.
      } finally {
        await context.close();
        // Failed while it was down: the next tests need it.
        if (server.proc.exitCode !== null) server = await startServer({ env: provisioned.env, port: server.port, dataDir: server.dataDir });
      }
    }, RESTART_TEST_MS);

    test('a filter whose matches are all older than the first page reads older pages by itself, up to 1,000 more captures, then offers Look further back and Search', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await createEndpoint(base, account, 'deep');
      for (let i = 0; i < 3; i++) await fetch(`${ep.url}/github/push-${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
      await bulk(ep, 1200);
      await stored(base, account, ep, 1203);
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await page.locator('.list-count').filter({ hasText: /^100 requests loaded$/ }).waitFor();
        // What the status under the filter says along the way (it changes faster than a poll).
        await page.evaluate(`(() => {
          window.__said = [];
          const said = () => window.__said.push(document.querySelector('.filter-status [role=status]')?.textContent ?? '');
          new MutationObserver(said).observe(document.body, { childList: true, subtree: true, characterData: true });
        })()`);
        const filter = page.getByRole('searchbox', { name: 'Filter requests' });
        await filter.fill('github');
        // Read by itself up to 1,000 past the 100 it started from; none of the three is there yet.
        const none = page.getByRole('status').filter({ hasText: 'No request matches “github” among the 1,100 loaded.' });
        await none.waitFor({ timeout: 30_000 });
        expect(await count(page)).toBe('0 of 1,100 requests loaded');
        expect(await page.evaluate('window.__said')).toContain('Looking through older requests…');
        const search = page.getByRole('link', { name: 'Search all of this endpoint\'s requests for “github”' });
        const href = new URL((await search.getAttribute('href')) ?? '', base);
        expect(href.pathname).toBe('/search');
        expect(Object.fromEntries(href.searchParams)).toEqual({ q: 'github', slug: ep.slug });

        await page.getByRole('button', { name: 'Look further back' }).click();
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/github\/push-0 / }).waitFor({ timeout: 30_000 });
        await page.locator('.list-count').filter({ hasText: /^3 of 1,203 requests$/ }).waitFor();
        expect(await page.getByRole('button', { name: 'Look further back' }).count()).toBe(0);

        // Everything loaded and still nothing: no "among the … loaded", Search still offered, and it goes there.
        await filter.fill('nothing-like-this');
        await page.getByRole('status').filter({ hasText: /^No request matches “nothing-like-this”\.$/ }).waitFor();
        await page.getByRole('link', { name: 'Search all of this endpoint\'s requests for “nothing-like-this”' }).click();
        await eventually(async () => new URL(page.url()).pathname === '/search');
        expect(new URL(page.url()).searchParams.get('q')).toBe('nothing-like-this');
        expect(new URL(page.url()).searchParams.get('slug')).toBe(ep.slug);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, RESTART_TEST_MS);

    test('Escape closes the open request, the filter and comparison kept, the focus on its row; not while a menu or a field has it', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await createEndpoint(base, account, 'escape');
      for (const p of ['one', 'two', 'three']) await fetch(`${ep.url}/${p}`, { method: 'POST', body: '{}' });
      await stored(base, account, ep, 3);
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}?filter=POST`);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/one / }).waitFor();
        const oneId = await list.getByRole('link', { name: /^POST \/one / }).getAttribute('data-id');
        await page.keyboard.press('j');
        await page.getByRole('heading', { name: /\/three$/ }).waitFor();
        const threeRow = list.getByRole('link', { name: /^POST \/three / });
        const threeId = await threeRow.getAttribute('data-id');
        expect(new URL(page.url()).pathname).toBe(`/endpoints/${ep.slug}/requests/${threeId}`);

        // Escape in a menu closes the menu, not the request.
        await page.getByRole('button', { name: 'Export' }).click();
        await page.getByRole('link', { name: /Download HAR/ }).first().focus();
        await page.keyboard.press('Escape');
        await eventually(async () => (await page.getByRole('button', { name: 'Export' }).getAttribute('aria-expanded')) === 'false');
        expect(new URL(page.url()).pathname).toBe(`/endpoints/${ep.slug}/requests/${threeId}`);
        // In the filter box it leaves the box.
        await page.getByRole('searchbox', { name: 'Filter requests' }).focus();
        await page.keyboard.press('Escape');
        expect(new URL(page.url()).pathname).toBe(`/endpoints/${ep.slug}/requests/${threeId}`);

        // With a comparison pinned too, from the detail's own button.
        await page.goto(`${base}/endpoints/${ep.slug}/requests/${threeId}?filter=POST&compare=${oneId}`);
        await page.getByRole('heading', { name: /\/three$/ }).waitFor();
        await page.getByRole('button', { name: 'Copy as cURL' }).focus();
        await page.keyboard.press('Escape');
        await eventually(async () => new URL(page.url()).pathname === `/endpoints/${ep.slug}`);
        expect(new URL(page.url()).search).toBe(`?filter=POST&compare=${oneId}`);
        await eventually(() => isFocused(threeRow), 3_000).catch(async () => {
          throw new Error(`the focus is on ${await focusedName(page)}, not on the closed request's row`);
        });
        await page.getByText('Select a request to see it in full').waitFor();
        expect(await page.getByRole('heading', { name: /\/three$/ }).count()).toBe(0);
        // From the row, j goes on from there.
        await page.keyboard.press('j');
        await page.getByRole('heading', { name: /\/two$/ }).waitFor();

        // On a phone the list and the request take turns: Escape brings the list back, the focus on the row.
        await page.setViewportSize({ width: 390, height: 844 });
        await page.goto(`${base}/endpoints/${ep.slug}`);
        const twoRow = list.getByRole('link', { name: /^POST \/two / });
        await twoRow.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: /\/two$/ }).waitFor();
        await page.keyboard.press('Escape');
        await eventually(async () => new URL(page.url()).pathname === `/endpoints/${ep.slug}`);
        await eventually(() => isFocused(twoRow), 3_000).catch(async () => {
          throw new Error(`the focus is on ${await focusedName(page)}, not on the closed request's row`);
        });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('the first Tab reaches Skip to content, shown when focused; Enter takes the focus into the page', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await createEndpoint(base, account, 'skipping');
      await fetch(`${ep.url}/first`, { method: 'POST', body: '{}' });
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/first / }).waitFor();
        const skip = page.getByRole('link', { name: 'Skip to content' });
        const box = await skip.boundingBox();
        expect(box === null || box.y + box.height <= 0).toBe(true);
        await page.keyboard.press('Tab');
        expect(await isFocused(skip)).toBe(true);
        const shown = await skip.boundingBox();
        expect(shown !== null && shown.y >= 0).toBe(true);
        await page.keyboard.press('Enter');
        expect(await page.evaluate('document.activeElement.tagName')).toBe('MAIN');
        expect(new URL(page.url()).hash).toBe('');
        // The next Tab is in the page: the breadcrumb's first link, past the top bar.
        await page.keyboard.press('Tab');
        expect(await focusedName(page)).toBe('a Endpoints');
        expect(await page.evaluate('document.querySelector("main").contains(document.activeElement)')).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
