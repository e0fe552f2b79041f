/**
 * Findings 1 and 5 in a real browser (headless Chromium, as test/browser/claim.test.ts): a mock
 * page's script does not run with the visitor's session; requests made the way the dashboard makes
 * them (same-origin fetch, JSON, credentials 'same-origin') pass; a page on another origin of the
 * same site (where SameSite=Lax still sends the cookie) can neither log a visitor in nor act for them.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import type { BrowserContext } from 'playwright-core';
import { CHROMIUM_SKIP, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, setMock } from './support';

const browser = useChromium();
/** Serves whatever page a test puts at a path: a site other than the service's origin. */
let attacker: ReturnType<typeof Bun.serve> | null = null;
const attackerPages = new Map<string, string>();

beforeAll(() => {
  attacker = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    fetch: (req) => new Response(attackerPages.get(new URL(req.url).pathname) ?? 'none', { headers: { 'content-type': 'text/html' } }),
  });
});
afterAll(() => {
  void attacker?.stop(true);
});

async function signedInContext(base: string, token: string): Promise<BrowserContext> {
  const context = await browser().newContext();
  const { hostname } = new URL(base);
  await context.addCookies([{ name: 'session', value: token, domain: hostname, path: '/', httpOnly: true, sameSite: 'Lax' }]);
  return context;
}

/** Puts a page on the other origin (same site: 127.0.0.1, another port) and returns its URL. */
function attackerPage(html: string): string {
  const path = `/p${Math.random().toString(36).slice(2, 10)}`;
  attackerPages.set(path, html);
  return `http://127.0.0.1:${attacker?.port}${path}`;
}

describeBackends('security: in a browser', (h) => {
  test("a mock page's script does not run with the visitor's session", async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const victim = await accountWithEndpoint(h.url);
    const html = `<!doctype html><title>mock</title><script>
      document.title = 'ran';
      fetch('/api/api-keys', { method: 'POST', credentials: 'include' });
    </script>`;
    await setMock(h.url, account.key, endpoint.slug, { status: 200, body: html, headers: { 'content-type': 'text/html' } });
    const keysBefore = (await call(h.url, 'GET', '/api/api-keys', { token: victim.account.session })).body.length;
    const context = await signedInContext(h.url, victim.account.session);
    try {
      const page = await context.newPage();
      await page.goto(`${h.url}/w/${endpoint.slug}`);
      await Bun.sleep(500);
      expect(await page.title()).toBe('mock');
    } finally {
      await context.close();
    }
    expect((await call(h.url, 'GET', '/api/api-keys', { token: victim.account.session })).body.length).toBe(keysBefore);
  });

  test("the dashboard's way of calling the API works: same-origin fetch with JSON and credentials 'same-origin'", async () => {
    const context = await browser().newContext();
    try {
      const page = await context.newPage();
      await page.goto(`${h.url}/healthz`);
      const email = `browser${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
      const results = await page.evaluate(async (email) => {
        const json = (method: string, path: string, body?: unknown) =>
          fetch(path, {
            method,
            credentials: 'same-origin',
            headers: body === undefined ? {} : { 'content-type': 'application/json' },
            body: body === undefined ? undefined : JSON.stringify(body),
          }).then(async (r) => ({ status: r.status, body: await r.text() }));
        const out: Record<string, number> = {};
        out.signup = (await json('POST', '/api/auth/signup', { email, password: 'correct horse battery' })).status;
        out.login = (await json('POST', '/api/auth/login', { email, password: 'correct horse battery' })).status;
        out.me = (await json('GET', '/api/auth/me')).status;
        const created = await json('POST', '/api/endpoints', { name: 'from the dashboard' });
        out.create = created.status;
        const slug = JSON.parse(created.body).slug;
        out.patch = (await json('PATCH', `/api/endpoints/${slug}`, { name: 'renamed' })).status;
        out.key = (await json('POST', '/api/api-keys')).status;
        out.delete = (await json('DELETE', `/api/endpoints/${slug}`)).status;
        out.logout = (await json('POST', '/api/auth/logout')).status;
        return out;
      }, email);
      expect(results).toEqual({ signup: 201, login: 200, me: 200, create: 201, patch: 200, key: 201, delete: 204, logout: 204 });
    } finally {
      await context.close();
    }
  });

  test('a page on another origin can neither log a visitor in nor act with their session', async () => {
    const victim = await accountWithEndpoint(h.url);
    const attackerAccount = await accountWithEndpoint(h.url);
    const keysBefore = (await call(h.url, 'GET', '/api/api-keys', { token: victim.account.session })).body.length;
    const context = await signedInContext(h.url, victim.account.session);
    try {
      const page = await context.newPage();
      // An auto-submitting form: text/plain crafted to read as JSON, to /api/api-keys with the cookie.
      const formPage = attackerPage(`<!doctype html><form id=f method=post enctype=text/plain action="${h.url}/api/api-keys">
        <input name='{"name":"stolen","x":"' value='"}'></form><script>f.submit()</script>`);
      await page.goto(formPage);
      await page.waitForURL(`${h.url}/api/api-keys`);
      expect(page.url()).toBe(`${h.url}/api/api-keys`);
      expect(await page.textContent('body')).toContain('forbidden');
      // A no-cors fetch (no preflight) with the cookie.
      await page.goto(attackerPage(`<!doctype html><script>
        fetch('${h.url}/api/endpoints', { method: 'POST', mode: 'no-cors', credentials: 'include', headers: { 'content-type': 'text/plain' }, body: '{"name":"csrf"}' });
      </script>`));
      await Bun.sleep(500);
      // Login CSRF: log the victim's browser into the attacker's account.
      await page.goto(attackerPage(`<!doctype html><form id=f method=post enctype=text/plain action="${h.url}/api/auth/login">
        <input name='{"email":"${attackerAccount.account.email}","password":"correct horse battery","x":"' value='"}'></form><script>f.submit()</script>`));
      await page.waitForURL(`${h.url}/api/auth/login`);
      const cookies = await context.cookies(h.url);
      expect(cookies.find((c) => c.name === 'session')?.value).toBe(victim.account.session);
    } finally {
      await context.close();
    }
    expect((await call(h.url, 'GET', '/api/api-keys', { token: victim.account.session })).body.length).toBe(keysBefore);
    expect((await call(h.url, 'GET', '/api/endpoints', { token: victim.account.key })).body.length).toBe(1);
  });
}, {}, CHROMIUM_SKIP);
