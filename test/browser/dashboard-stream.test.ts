/**
 * The live list across a server restart and an endpoint's deletion, in real Chromium on both
 * backends: a visible "Reconnecting…" while the server is away, then the capture that arrived in
 * between (resumed with Last-Event-ID); a stream that ends with `event: end` says why and stops; and
 * a hidden tab's title counts what arrived meanwhile.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { isFocused, CHROMIUM_SKIP, openPage, signUpAccount, useChromium, type Account } from '../support/browser';
import { BACKENDS, provision, type BackendEnv } from '../support/backends';
import { call, eventually } from '../support/client';
import { startServer, stopServer, type TestServer, RESTART_TEST_MS } from '../support/server';

const browser = useChromium();

const status = (page: Page, text: string) => page.getByRole('status', { name: 'Stream status' }).filter({ hasText: text });

async function newEndpoint(base: string, account: Account): Promise<{ slug: string; url: string }> {
  return (await call(base, 'POST', '/api/endpoints', { token: account.session, body: { name: 'stream' } })).body;
}

for (const backend of BACKENDS) {
  (CHROMIUM_SKIP === null ? describe : describe.skip)(`dashboard live stream [${backend}]`, () => {
    let provisioned: BackendEnv | undefined;
    let server: TestServer | undefined;
    beforeAll(async () => {
      provisioned = await provision(backend);
      server = await startServer({ env: provisioned.env });
    });
    afterAll(async () => {
      if (server) await stopServer(server);
      await provisioned?.cleanup();
    });

    test('a restart shows "Reconnecting…", then the list resumes with what arrived meanwhile', async () => {
      if (!server || !provisioned) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await newEndpoint(base, account);
      await fetch(`${ep.url}/before`, { method: 'POST' });
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await status(page, 'Live').waitFor();
        // One capture over the stream, so the browser has an id to resume from.
        await fetch(`${ep.url}/live`, { method: 'POST' });
        await page.getByRole('link', { name: /\/live/ }).waitFor();

        await stopServer(server, { keepData: true });
        await status(page, 'Reconnecting…').waitFor({ timeout: 10_000 });
        server = await startServer({ env: provisioned.env, port: server.port, dataDir: server.dataDir });
        // Sent before the browser is back: it must come from the resume, not from the live feed.
        await fetch(`${ep.url}/meanwhile`, { method: 'POST' });
        await status(page, 'Live').waitFor({ timeout: 15_000 });
        await page.getByRole('link', { name: /\/meanwhile/ }).waitFor({ timeout: 10_000 });
        await fetch(`${ep.url}/after`, { method: 'POST' });
        await page.getByRole('link', { name: /\/after/ }).waitFor();
        expect(await page.locator('.list-count').textContent()).toBe('4 requests');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    }, RESTART_TEST_MS);

    test('captures that arrive while the tab is hidden are counted in its title, "(2) stream · hookcap", until it is shown again', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await newEndpoint(base, account);
      await fetch(`${ep.url}/before`, { method: 'POST', body: '{}' });
      const { page, context, errors } = await openPage(browser(), base, account);
      // Headless Chromium keeps every tab visible: the test sets what a hidden tab reports and
      // fires the event the browser would.
      const setHidden = (hidden: boolean) =>
        page.evaluate(`(() => {
          Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => '${hidden ? 'hidden' : 'visible'}' });
          Object.defineProperty(document, 'hidden', { configurable: true, get: () => ${hidden} });
          document.dispatchEvent(new Event('visibilitychange'));
        })()`);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await status(page, 'Live').waitFor();
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/before / }).waitFor();
        expect(await page.title()).toBe('stream · hookcap');
        await setHidden(true);
        await fetch(`${ep.url}/one`, { method: 'POST', body: '{}' });
        await fetch(`${ep.url}/two`, { method: 'POST', body: '{}' });
        await list.getByRole('link', { name: /^POST \/two / }).waitFor();
        await eventually(async () => ((await page.title()) === '(2) stream · hookcap' ? true : undefined), 5_000);
        // Back to the tab: the count goes.
        await setHidden(false);
        await eventually(async () => ((await page.title()) === 'stream · hookcap' ? true : undefined), 5_000);
        // Hidden again: counted from there, not from the first time.
        await setHidden(true);
        await fetch(`${ep.url}/three`, { method: 'POST', body: '{}' });
        await eventually(async () => ((await page.title()) === '(1) stream · hookcap' ? true : undefined), 5_000);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('deleting the endpoint elsewhere ends the stream, says so, and stops', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await newEndpoint(base, account);
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await status(page, 'Live').waitFor();
        expect((await call(base, 'DELETE', `/api/endpoints/${ep.slug}`, { token: account.session })).status).toBe(204);
        await status(page, 'Stream ended').waitFor({ timeout: 10_000 });
        await page.getByText('This endpoint was deleted.').waitFor();
        expect(await page.getByRole('button', { name: 'Pause' }).isDisabled()).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('the session signed out elsewhere ends the stream, says so, and shows nothing captured after', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      const account = await signUpAccount(base);
      const ep = await newEndpoint(base, account);
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await status(page, 'Live').waitFor();
        expect((await call(base, 'POST', '/api/auth/logout', { token: account.session })).status).toBe(204);
        await status(page, 'Stream ended').waitFor({ timeout: 3_000 });
        await page.getByText('You were signed out.').waitFor();
        await fetch(`${ep.url}/after-logout`, { method: 'POST' });
        await Bun.sleep(500);
        expect(await page.getByRole('link', { name: /\/after-logout/ }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}

const SESSION_TTL_MS = 8_000;

for (const backend of BACKENDS) {
  (CHROMIUM_SKIP === null ? describe : describe.skip)(`dashboard live stream, when the session expires [${backend}]`, () => {
    let provisioned: BackendEnv | undefined;
    let server: TestServer | undefined;
    beforeAll(async () => {
      provisioned = await provision(backend);
      server = await startServer({ env: { ...provisioned.env, SESSION_TTL_MS: String(SESSION_TTL_MS) } });
    });
    afterAll(async () => {
      if (server) await stopServer(server);
      await provisioned?.cleanup();
    });

    test('the session reaching its expiry while the list is live shows sign-in, saying why; signing in again brings the live list back', async () => {
      if (!server) throw new Error('not started');
      const base = server.url;
      // The session expires TTL after the server made it, during the sign-up call: between these.
      const signUpSent = Date.now();
      const account = await signUpAccount(base);
      const signedUpAt = Date.now();
      const ep = await newEndpoint(base, account);
      const { page, context, errors } = await openPage(browser(), base, account);
      try {
        await page.goto(`${base}/endpoints/${ep.slug}`);
        await status(page, 'Live').waitFor();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: SESSION_TTL_MS + 5_000 });
        // Not before the session can have expired, and within 3 s of when it did at the latest
        // (measured from before the sign-up call, a loaded machine's slow sign-up counted as lag:
        // 4.1 s on CI at a load average of 20).
        expect(Date.now()).toBeGreaterThanOrEqual(signUpSent + SESSION_TTL_MS);
        expect(Date.now() - (signedUpAt + SESSION_TTL_MS)).toBeLessThan(3_000);
        await page.getByRole('status').filter({ hasText: 'Your session expired. Sign in again.' }).waitFor();
        // The page that had the focus is gone: the sign-in form's heading takes it.
        await eventually(() => isFocused(page.getByRole('heading', { name: 'Sign in' })));
        const form = page.getByRole('form', { name: 'Sign in' });
        await form.getByLabel('Email').fill(account.email);
        await form.getByLabel('Password').fill('correct horse battery');
        await form.getByRole('button', { name: 'Sign in' }).click();
        await status(page, 'Live').waitFor({ timeout: 5_000 });
        expect(await page.getByText('Your session expired. Sign in again.').count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  });
}
