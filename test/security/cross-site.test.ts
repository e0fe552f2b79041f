/**
 * Finding 5: requests a browser authenticates by itself (the session cookie), and the log-in and
 * sign-up that set it, are refused from other sites and accept JSON only; the dashboard's own
 * same-origin requests and every bearer-key call pass. (test/security/browser.test.ts does the
 * same with a real browser's headers.)
 */
import { expect, test } from 'bun:test';
import { call, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { registerAnonymous } from '../behaviour/agent-support';

/** What a browser adds to a request made from a page of BASE_URL itself (the dashboard). */
const sameOrigin = (base: string) => ({ origin: base, 'sec-fetch-site': 'same-origin', 'sec-fetch-mode': 'cors' });

describeBackends('security: cross-site requests cannot act', (h) => {
  const password = 'correct horse battery';

  test('log-in and sign-up accept JSON only, and not from another site', async () => {
    const a = await newAccount(h.url);
    const form = new URLSearchParams({ email: a.email, password }).toString();
    const formLogin = await call(h.url, 'POST', '/api/auth/login', { raw: form, headers: { 'content-type': 'application/x-www-form-urlencoded' } });
    expect(formLogin.status).toBe(415);
    expect(formLogin.headers.get('set-cookie')).toBeNull();
    // A text/plain form can produce a body that parses as JSON.
    const plain = await call(h.url, 'POST', '/api/auth/login', { raw: JSON.stringify({ email: a.email, password }), headers: { 'content-type': 'text/plain' } });
    expect(plain.status).toBe(415);
    const signupForm = await call(h.url, 'POST', '/api/auth/signup', {
      raw: new URLSearchParams({ email: `x${Date.now()}@example.com`, password }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    });
    expect(signupForm.status).toBe(415);
    const foreign: Record<string, string>[] = [{ origin: 'https://evil.example' }, { 'sec-fetch-site': 'cross-site' }, { 'sec-fetch-site': 'same-site' }, { origin: 'null' }];
    for (const headers of foreign) {
      const r = await call(h.url, 'POST', '/api/auth/login', { body: { email: a.email, password }, headers });
      expect({ headers, status: r.status, code: r.body.code }).toEqual({ headers, status: 403, code: 'forbidden' });
      expect(r.headers.get('set-cookie')).toBeNull();
    }
  });

  test("the dashboard's same-origin JSON requests pass: sign-up, log-in, create, delete, keys, log-out", async () => {
    const email = `dash${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
    const headers = sameOrigin(h.url);
    const signup = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password }, headers });
    expect(signup.status).toBe(201);
    const login = await call(h.url, 'POST', '/api/auth/login', { body: { email, password }, headers });
    expect(login.status).toBe(200);
    const cookie = `session=${login.body.token}`;
    const withCookie = { ...headers, cookie };
    const ep = await call(h.url, 'POST', '/api/endpoints', { body: { name: 'dash' }, headers: withCookie });
    expect(ep.status).toBe(201);
    expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.body.slug}`, { body: { name: 'renamed' }, headers: withCookie })).status).toBe(200);
    expect((await call(h.url, 'POST', '/api/api-keys', { headers: withCookie })).status).toBe(201);
    expect((await call(h.url, 'POST', '/api/api-keys', { body: { name: 'k' }, headers: withCookie })).status).toBe(201);
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.body.slug}`, { headers: withCookie })).status).toBe(204);
    // A browser without Sec-Fetch-Site: Origin alone decides.
    expect((await call(h.url, 'POST', '/api/endpoints', { body: { name: 'old browser' }, headers: { origin: h.url, cookie } })).status).toBe(201);
    expect((await call(h.url, 'POST', '/api/auth/logout', { headers: withCookie })).status).toBe(204);
  });

  test('a cookie-authenticated state change from another site is refused and changes nothing', async () => {
    const a = await newAccount(h.url);
    const cookie = `session=${a.session}`;
    const keysBefore = (await call(h.url, 'GET', '/api/api-keys', { token: a.session })).body.length;
    const foreign: Record<string, string>[] = [
      { cookie, origin: 'https://evil.example' },
      { cookie, 'sec-fetch-site': 'cross-site' },
      { cookie, 'sec-fetch-site': 'same-site', origin: 'http://127.0.0.1:1' },
      { cookie, origin: 'null' },
    ];
    for (const headers of foreign) {
      const key = await call(h.url, 'POST', '/api/api-keys', { headers });
      expect({ headers, status: key.status }).toEqual({ headers, status: 403 });
      const ep = await call(h.url, 'POST', '/api/endpoints', { body: { name: 'csrf' }, headers });
      expect(ep.status).toBe(403);
      expect((await call(h.url, 'DELETE', '/api/account', { headers })).status).toBe(403);
    }
    expect((await call(h.url, 'GET', '/api/api-keys', { token: a.session })).body.length).toBe(keysBefore);
    expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).body.length).toBe(0);
    // Reads are not state changes, and another site cannot read the answer anyway.
    expect((await call(h.url, 'GET', '/api/auth/me', { headers: { cookie, 'sec-fetch-site': 'cross-site' } })).status).toBe(200);
  });

  test('cookie-authenticated bodies must be JSON, even from this site', async () => {
    const a = await newAccount(h.url);
    const headers = { ...sameOrigin(h.url), cookie: `session=${a.session}` };
    const r = await call(h.url, 'POST', '/api/endpoints', { raw: 'name=x', headers: { ...headers, 'content-type': 'application/x-www-form-urlencoded' } });
    expect(r.status).toBe(415);
    expect(r.body.code).toBe('unsupported_media_type');
  });

  test('claim confirm: a cookie request with no content type from a foreign origin is refused and claims nothing', async () => {
    const a = await newAccount(h.url);
    const reg = await registerAnonymous(h.url, 'csrf bot');
    const r = await fetch(`${h.url}/api/agent/auth/claim/confirm`, {
      method: 'POST',
      headers: { cookie: `session=${a.session}`, origin: 'https://evil.example' },
      body: new Blob([JSON.stringify({ claim_token: reg.claim_token })]),
    });
    expect(r.status).toBe(403);
    const poll = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
    expect(poll.body.status).toBe('pending');
    const ok = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', {
      body: { claim_token: reg.claim_token },
      headers: { ...sameOrigin(h.url), cookie: `session=${a.session}` },
    });
    expect(ok.status).toBe(200);
  });

  test('bearer-key calls are not affected by Origin or Sec-Fetch-Site', async () => {
    const a = await newAccount(h.url);
    const headers = { origin: 'https://evil.example', 'sec-fetch-site': 'cross-site' };
    const ep = await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'script' }, headers });
    expect(ep.status).toBe(201);
    expect((await call(h.url, 'POST', '/api/api-keys', { token: a.session, headers })).status).toBe(201);
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.body.slug}`, { token: a.key, headers })).status).toBe(204);
  });
});
