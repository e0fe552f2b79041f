import { expect, test } from 'bun:test';
import { call, itemAt, newAccount, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('accounts, sessions and API keys', (h) => {
  test('signup returns a ses_ token and sets an HttpOnly SameSite=Lax cookie', async () => {
    const email = `a${Date.now()}@example.com`;
    const r = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'long enough pw' } });
    expect(r.status).toBe(201);
    expect(r.body.token).toStartWith('ses_');
    expect(r.body.user.email).toBe(email);
    expect(r.body.user.id).toStartWith('usr_');
    const cookie = r.headers.get('set-cookie') ?? '';
    expect(cookie).toContain(`session=${r.body.token}`);
    expect(cookie).toContain('HttpOnly');
    expect(cookie).toContain('SameSite=Lax');
    // The cookie alone authenticates.
    const me = await call(h.url, 'GET', '/api/auth/me', { headers: { cookie: `session=${r.body.token}` } });
    expect(me.status).toBe(200);
    expect(me.body).toEqual(r.body.user);
  });

  test('signup refuses a duplicate email (any case), a bad email and a short password', async () => {
    const email = `dup${Date.now()}@example.com`;
    expect((await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'long enough pw' } })).status).toBe(201);
    const dup = await call(h.url, 'POST', '/api/auth/signup', { body: { email: email.toUpperCase(), password: 'long enough pw' } });
    expect(dup.status).toBe(409);
    expect(typeof dup.body.error).toBe('string');
    const bad = await call(h.url, 'POST', '/api/auth/signup', { body: { email: 'not-an-email', password: 'long enough pw' } });
    expect(bad.status).toBe(400);
    const short = await call(h.url, 'POST', '/api/auth/signup', { body: { email: `s${email}`, password: 'short' } });
    expect(short.status).toBe(400);
    expect(short.body.error).toContain('password');
    const missing = await call(h.url, 'POST', '/api/auth/signup', { body: { email: `m${email}` } });
    expect(missing.status).toBe(400);
  });

  test('sign-up and the agent flow agree on what an email address is', async () => {
    // Each of these passed sign-up's own pattern once, while the agent flow refused it.
    for (const email of [`tld${Date.now()}@example.c`, `"quoted${Date.now()}"@example.com`, `list${Date.now()}@example.com,x@example.com`]) {
      const signup = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'long enough pw' } });
      expect(signup.status).toBe(400);
      const agent = await call<ErrorFields>(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'agree' } });
      expect([agent.status, agent.body.error]).toEqual([400, 'invalid_email']);
    }
  });

  test('login works with the right password only; logout ends the session', async () => {
    const email = `l${Date.now()}@example.com`;
    await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'long enough pw' } });
    const wrong = await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'wrong password' } });
    expect(wrong.status).toBe(401);
    const unknown = await call(h.url, 'POST', '/api/auth/login', { body: { email: `nobody${email}`, password: 'x' } });
    expect(unknown.status).toBe(401);
    const ok = await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'long enough pw' } });
    expect(ok.status).toBe(200);
    expect(ok.body.token).toStartWith('ses_');
    expect((await call(h.url, 'GET', '/api/auth/me', { token: ok.body.token })).status).toBe(200);
    expect((await call(h.url, 'POST', '/api/auth/logout', { token: ok.body.token })).status).toBe(204);
    expect((await call(h.url, 'GET', '/api/auth/me', { token: ok.body.token })).status).toBe(401);
  });

  test('API keys: created once with the raw svc_ key, listed without it, deleted', async () => {
    const a = await newAccount(h.url);
    const created = await call(h.url, 'POST', '/api/api-keys', { token: a.session, body: { name: 'ci' } });
    expect(created.status).toBe(201);
    expect(created.body.key).toStartWith('svc_');
    expect(created.body.key.length).toBeGreaterThan(40);
    expect(created.body).toMatchObject({ name: 'ci', scopes: ['webhooks:read', 'webhooks:write'] });
    expect(created.body.key.startsWith(created.body.prefix)).toBe(true);
    const list = await call(h.url, 'GET', '/api/api-keys', { token: a.session });
    expect(list.status).toBe(200);
    expect(list.body.map((k: { id: string }) => k.id)).toContain(created.body.id);
    expect(list.text).not.toContain(created.body.key);
    expect(list.text).not.toContain(a.key);
    // The new key works on the API …
    expect((await call(h.url, 'GET', '/api/endpoints', { token: created.body.key })).status).toBe(200);
    const del = await call(h.url, 'DELETE', `/api/api-keys?id=${created.body.id}`, { token: a.session });
    expect(del.status).toBe(204);
    // … and stops working once deleted.
    const after = await call(h.url, 'GET', '/api/endpoints', { token: created.body.key });
    expect(after.status).toBe(401);
    expect(typeof after.body.error).toBe('string');
  });

  test('session-only routes refuse an API key with 403', async () => {
    const a = await newAccount(h.url);
    for (const [method, path] of [
      ['GET', '/api/api-keys'],
      ['POST', '/api/api-keys'],
      ['DELETE', '/api/api-keys?id=key_x'],
      ['DELETE', '/api/account'],
    ] as const) {
      const r = await call(h.url, method, path, { token: a.key });
      expect(r.status).toBe(403);
      expect(typeof r.body.error).toBe('string');
    }
  });

  test('missing, malformed and unknown credentials get 401 JSON', async () => {
    for (const token of [undefined, 'svc_doesnotexist', 'ses_nope', 'garbage']) {
      const r = await call(h.url, 'GET', '/api/endpoints', { token });
      expect(r.status).toBe(401);
      expect(typeof r.body.error).toBe('string');
    }
  });

  test('40 concurrent key creations leave at most 25 keys; the rest are too_many_keys', async () => {
    const a = await newAccount(h.url); // holds one key already
    const replies = await Promise.all(
      Array.from({ length: 40 }, (_, i) => call(h.url, 'POST', '/api/api-keys', { token: a.session, body: { name: `burst ${i}` } })),
    );
    const statuses = replies.map((r) => r.status);
    expect(statuses.filter((s) => s !== 201 && s !== 409)).toEqual([]);
    expect(statuses.filter((s) => s === 201).length).toBe(24);
    for (const r of replies.filter((r) => r.status === 409)) expect(r.body.error).toBe('too_many_keys');
    expect((await call(h.url, 'GET', '/api/api-keys', { token: a.session })).body.length).toBe(25);
  });

  test("one account cannot delete another's API key", async () => {
    const a = await newAccount(h.url);
    const b = await newAccount(h.url);
    const keys = await call(h.url, 'GET', '/api/api-keys', { token: a.session });
    const id = itemAt(keys.body).id;
    expect((await call(h.url, 'DELETE', `/api/api-keys?id=${id}`, { token: b.session })).status).toBe(404);
    expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(200);
  });

  test('deleting the account removes its endpoints, keys and captures', async () => {
    const a = await newAccount(h.url);
    const b = await newAccount(h.url);
    const ep = await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'gone' } });
    expect((await fetch(`${h.url}/w/${ep.body.slug}`, { method: 'POST', body: 'x' })).status).toBe(200);
    expect((await call(h.url, 'DELETE', '/api/account', { token: a.session })).status).toBe(204);
    expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(401);
    expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: a.email, password: 'correct horse battery' } })).status).toBe(401);
    expect((await fetch(`${h.url}/w/${ep.body.slug}`, { method: 'POST', body: 'x' })).status).toBe(404);
    // Another account is untouched.
    expect((await call(h.url, 'GET', '/api/endpoints', { token: b.key })).status).toBe(200);
  });
});
