import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, registerAnonymous, signUp, type SandboxCaptures, type SandboxList } from './agent-support';

// An hour, as a real sandbox might live: the expiry tests move the service's clock past it.
const TTL_MS = 60 * 60 * 1000;
const CAP = 2;

describeInProcess(
  'agent sandbox',
  (h) => {
    const create = (key: string) => call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: key });
    const list = (key: string) => call<SandboxList>(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: key });
    const requests = (key: string, slug: string) => call<SandboxCaptures>(h.url, 'GET', `/api/agent/sandbox/endpoints?slug=${slug}`, { token: key });

    test('create returns exactly url, slug and expiresAt; list shows this key’s endpoints', async () => {
      const reg = await registerAnonymous(h.url);
      const before = h.clock.now();
      const r = await create(reg.credential);
      expect(r.status).toBe(201);
      expect(Object.keys(r.body).sort()).toEqual(['expiresAt', 'slug', 'url']);
      expect(r.body.slug).toMatch(/^[a-z0-9]{12}$/);
      expect(r.body.url).toBe(`${h.url}/w/${r.body.slug}`);
      expect(Number.isInteger(r.body.expiresAt)).toBe(true);
      expect(r.body.expiresAt).toBeGreaterThanOrEqual(before + TTL_MS - 50);
      expect(r.body.expiresAt).toBeLessThanOrEqual(h.clock.now() + TTL_MS + 50);
      const l = await list(reg.credential);
      expect(l.status).toBe(200);
      expect(l.body).toEqual([r.body]);
    });

    test('real captures at /w/<slug> are listed by ?slug=, newest first', async () => {
      const reg = await registerAnonymous(h.url);
      const ep = (await create(reg.credential)).body;
      for (const i of [1, 2]) {
        const hit = await fetch(`${ep.url}/hook?n=${i}`, { method: 'POST', body: `{"n":${i}}`, headers: { 'content-type': 'application/json' } });
        expect(hit.status).toBe(200);
      }
      const got = await eventually(async () => {
        const r = await requests(reg.credential, ep.slug);
        return r.status === 200 && r.body.length === 2 ? r.body : null;
      });
      expect(got.map((c: { body: string }) => c.body)).toEqual(['{"n":2}', '{"n":1}']);
      expect(got[0]).toMatchObject({ method: 'POST', path: '/hook', queryParams: { n: '2' } });
    });

    test(`at most ${CAP} live endpoints per key`, async () => {
      const reg = await registerAnonymous(h.url);
      const made = await Promise.all(Array.from({ length: CAP + 2 }, () => create(reg.credential)));
      expect(made.filter((r) => r.status === 201)).toHaveLength(CAP);
      const refused = made.filter((r) => r.status !== 201);
      expect(refused.every((r) => r.status === 409 && typeof r.body.error === 'string')).toBe(true);
      expect((await list(reg.credential)).body).toHaveLength(CAP);
    });

    test('a mock response, notifications or signing asked of the sandbox are refused, not silently dropped', async () => {
      const reg = await registerAnonymous(h.url);
      const asks = [{ mockResponse: { status: 201, body: 'ok' } }, { notificationUrl: 'https://example.com/n' }, { signing: { provider: 'stripe' } }];
      for (const ask of asks) {
        const r = await call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential, body: ask });
        expect(r.status).toBe(400);
        // An agent route: SPEC 7.2's shape, the code in `error` (docs/agents.md).
        expect(Object.keys(r.body).sort()).toEqual(['error', 'error_description']);
        expect(r.body.error).toBe('invalid_request');
        // It names what was refused and what gives it.
        expect(r.body.error_description).toContain(Object.keys(ask)[0] ?? '');
        expect(r.body.error_description).toContain('claimed key');
      }
      expect((await list(reg.credential)).body).toEqual([]);
      // No body, an empty object, or null settings still create one.
      const made = await create(reg.credential);
      expect(made.status).toBe(201);
      const ep = made.body;
      expect((await call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential, body: { mockResponse: null } })).status).toBe(201);
      // A bad limit on the listing is refused in the same shape, in the words every list uses.
      // Plain decimal digits, as on every list: Number() took 1e3, ' 5' and 0x10 here.
      for (const limit of ['0', 'x', '1.5', '1e3', ' 5', '0x10']) {
        const bad = await call(h.url, 'GET', `/api/agent/sandbox/endpoints?slug=${ep.slug}&limit=${encodeURIComponent(limit)}`, { token: reg.credential });
        expect(bad.status).toBe(400);
        expect(bad.body as unknown).toEqual({ error: 'invalid_request', error_description: 'limit: must be an integer of at least 1 (at most 1000 are returned)' });
      }
      expect((await call(h.url, 'GET', `/api/agent/sandbox/endpoints?slug=${ep.slug}&limit=2`, { token: reg.credential })).status).toBe(200);
    });

    test('any other field, or a body that is no JSON object, is refused before a slot is used', async () => {
      const reg = await registerAnonymous(h.url);
      const post = (opts: { body?: unknown; raw?: string; headers?: Record<string, string> }) =>
        call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential, ...opts });
      const refused = (error_description: string) => ({ status: 400, body: { error: 'invalid_request', error_description } });
      const seen = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });
      const notTaken = (field: string) =>
        refused(`${field}: is not a field of this request: a sandbox endpoint takes no settings (its name and expiry are set for it; it ends at its expiresAt); send no body`);
      // More tries than the key has slots: had any made an endpoint, the last good create would be a 409.
      for (let round = 0; round < CAP; round++) {
        expect(seen(await post({ body: { name: 'mine' } }))).toEqual(notTaken('name'));
        // An expiry asked for lived the sandbox's whole lifetime instead.
        expect(seen(await post({ body: { expiresIn: 60 } }))).toEqual(notTaken('expiresIn'));
        expect(seen(await post({ body: [1] }))).toEqual(refused('body must be a JSON object'));
        expect(seen(await post({ raw: '"x"', headers: { 'content-type': 'application/json' } }))).toEqual(refused('body must be a JSON object'));
        expect(seen(await post({ raw: 'name=mine', headers: { 'content-type': 'text/plain' } }))).toEqual(refused('send a JSON body (Content-Type: application/json)'));
      }
      expect((await list(reg.credential)).body).toEqual([]);
      for (const body of [{}, undefined]) expect((await post({ body })).status).toBe(201);
      expect((await list(reg.credential)).body).toHaveLength(CAP);
    });

    test('isolation: another agent, an account, or a stranger never sees a sandbox endpoint', async () => {
      const a = await registerAnonymous(h.url, 'agent a');
      const b = await registerAnonymous(h.url, 'agent b');
      const epA = (await create(a.credential)).body;
      expect((await fetch(epA.url, { method: 'POST', body: 'secret' })).status).toBe(200);
      expect((await list(b.credential)).body).toEqual([]);
      expect((await requests(b.credential, epA.slug)).status).toBe(404);
      const acct = await newAccount(h.url);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: acct.key })).body).toEqual([]);
      expect((await call(h.url, 'GET', `/api/endpoints/${epA.slug}`, { token: acct.key })).status).toBe(404);
      expect((await call(h.url, 'GET', `/api/endpoints/${epA.slug}/requests`, { token: acct.key })).status).toBe(404);
      const captured = await eventually(async () => {
        const r = await requests(a.credential, epA.slug);
        return r.body.length === 1 ? r.body[0] : null;
      });
      expect((await call(h.url, 'GET', `/api/requests/${captured.id}`, { token: acct.key })).status).toBe(404);
      // Accounts and sessions have no sandbox; nobody without a key gets in.
      expect((await list(acct.key)).status).toBe(403);
      expect((await create(acct.session)).status).toBe(403);
      expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints')).status).toBe(401);
      expect((await call(h.url, 'POST', '/api/agent/sandbox/endpoints')).status).toBe(401);
    });

    test('expired sandbox endpoints stop capturing and disappear; the slot frees up', async () => {
      const reg = await registerAnonymous(h.url);
      const ep = (await create(reg.credential)).body;
      await create(reg.credential);
      expect((await create(reg.credential)).status).toBe(409);
      // A second before expiry it still captures; just after, it is gone.
      h.clock.advance(ep.expiresAt - h.clock.now() - 1000);
      expect((await fetch(ep.url, { method: 'POST', body: 'in time' })).status).toBe(200);
      h.clock.advance(1100);
      expect((await fetch(ep.url, { method: 'POST', body: 'late' })).status).toBe(404);
      const gone = await requests(reg.credential, ep.slug);
      expect(gone.status).toBe(404);
      // The agent learns why it no longer sees its endpoint, and what to do.
      expect((gone.body as unknown as { error: string }).error).toContain('expire');
      expect((await list(reg.credential)).body.some((e: { slug: string }) => e.slug === ep.slug)).toBe(false);
      expect((await create(reg.credential)).status).toBe(201);
    });

    test('on claim, live sandbox endpoints become the account’s own and stop expiring', async () => {
      const reg = await registerAnonymous(h.url, 'adopter');
      const ep = (await create(reg.credential)).body;
      expect((await fetch(ep.url, { method: 'POST', body: 'before claim' })).status).toBe(200);
      const human = await signUp(h.url);
      const claimed = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } });
      expect(claimed.status).toBe(200);
      expect(claimed.body.endpoints_adopted).toBe(1);
      const mine = await call(h.url, 'GET', '/api/endpoints', { token: reg.credential });
      expect(mine.body.map((e: { slug: string }) => e.slug)).toEqual([ep.slug]);
      await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: human.session })).body.length === 1);
      h.clock.advance(ep.expiresAt - h.clock.now() + 100);
      expect((await fetch(ep.url, { method: 'POST', body: 'after expiry' })).status).toBe(200);
      // Stamped an hour ahead of the wall clock, it is still shipped within the batch age.
      await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: human.session })).body.length === 2);
      expect((await list(reg.credential)).status).toBe(403);
    });
  },
  { ...AGENT_ENV, SANDBOX_TTL_MS: String(TTL_MS), SANDBOX_MAX_ENDPOINTS: String(CAP) },
);
