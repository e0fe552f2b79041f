/**
 * The live list where an auditor found it wanting, in real Chromium on both backends: opened while
 * the server was down it recovers once the server is back (the whole list, not only what arrives
 * after); a filter whose matches are all among older captures reads older pages by itself, within
 * a bound, then offers Look further back and the search page.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium, type Account, type TestEndpoint } from '../support/browser';
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
  });
}
