import { beforeEach, describe, expect, test } from 'bun:test';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, type ErrorFields, type Reply } from '../support/client';
import { startServer, stopServer, type TestServer, RESTART_TEST_MS } from '../support/server';
import { describeInProcess } from '../support/in-process';
import { describeBackends } from '../support/suite';
import { clearOfWindowEdge } from '../support/rate-window';

// TRUST_PROXY lets each test speak from its own address (X-Forwarded-For), so per-address
// buckets of one test never leak into another.
const ENV = { RATE_LIMIT_API: '5/60', RATE_LIMIT_AUTH: '3/60', TRUST_PROXY: 'true' };

let ipCounter = 0;
const freshIp = () => `198.51.100.${++ipCounter}`;

const limits = (r: Reply | Response) => ({
  limit: r.headers.get('x-ratelimit-limit'),
  remaining: r.headers.get('x-ratelimit-remaining'),
  reset: r.headers.get('x-ratelimit-reset'),
});

/** Signs up from its own address and returns a session token (no API call spent). */
async function signup(base: string, ip = freshIp()): Promise<{ session: string; ip: string }> {
  const email = `rl${Date.now()}${Math.random().toString(36).slice(2, 8)}@example.com`;
  const r = await call(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' }, headers: { 'x-forwarded-for': ip } });
  if (r.status !== 201) throw new Error(`signup: ${r.status} ${r.text}`);
  return { session: r.body.token, ip };
}

function expectRefused(r: Reply<ErrorFields>, limit: string, windowSeconds: number) {
  expect(r.status).toBe(429);
  expect(r.headers.get('content-type')).toContain('application/json');
  expect(typeof r.body.error).toBe('string');
  expect(r.body.code).toBe('rate_limited_api');
  expect(limits(r)).toMatchObject({ limit, remaining: '0' });
  const retryAfter = Number(r.headers.get('retry-after'));
  expect(Number.isInteger(retryAfter)).toBe(true);
  expect(retryAfter).toBeGreaterThanOrEqual(1);
  expect(retryAfter).toBeLessThanOrEqual(windowSeconds);
}

describeBackends(
  'rate limits',
  (h) => {
    beforeEach(() => clearOfWindowEdge(60_000, 10_000));
    test('an API credential gets the headers on every response, errors included, then 429', async () => {
      const { session } = await signup(h.url);
      const before = Math.floor(Date.now() / 1000);
      const replies = [
        await call(h.url, 'GET', '/api/usage', { token: session }),
        await call(h.url, 'GET', '/api/endpoints/nosuchslug', { token: session }),
        await call(h.url, 'GET', '/api/endpoints/nosuchslug/requests?limit=0', { token: session }),
        await call(h.url, 'POST', '/api/endpoints', { token: session, raw: '{"name":', headers: { 'content-type': 'application/json' } }),
        await call(h.url, 'GET', '/api/endpoints', { token: session }),
      ];
      expect(replies.map((r) => r.status)).toEqual([200, 404, 400, 400, 200]);
      expect(replies.map((r) => limits(r).remaining)).toEqual(['4', '3', '2', '1', '0']);
      for (const r of replies) {
        expect(r.headers.get('x-ratelimit-limit')).toBe('5');
        expect(r.headers.get('retry-after')).toBeNull();
        const reset = Number(r.headers.get('x-ratelimit-reset'));
        expect(reset).toBeGreaterThanOrEqual(before);
        expect(reset).toBeLessThanOrEqual(before + 61);
      }
      expectRefused(await call(h.url, 'GET', '/api/endpoints', { token: session }), '5', 60);
      // Refused before the route runs: a create that would succeed is not performed.
      expectRefused(await call(h.url, 'POST', '/api/endpoints', { token: session, body: { name: 'x' } }), '5', 60);
    });

    test("agent routes answer the API limit's 429 in the agent API's shape", async () => {
      const { session } = await signup(h.url);
      for (let i = 0; i < 5; i++) expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: session })).status).toBe(403);
      const r = await call<Record<string, string>>(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: session });
      expect(r.status).toBe(429);
      expect(Object.keys(r.body).sort()).toEqual(['error', 'error_description']);
      expect(r.body.error).toBe('rate_limited');
      expect(limits(r)).toMatchObject({ limit: '5', remaining: '0' });
      expect(Number(r.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
      expect(r.headers.get('cache-control')).toContain('no-store');
      // The same credential's bucket, spent: the capture API answers in its own shape.
      expectRefused(await call(h.url, 'GET', '/api/endpoints', { token: session }), '5', 60);
    });

    test('each credential has its own bucket', async () => {
      const a = await signup(h.url);
      const b = await signup(h.url);
      for (let i = 0; i < 5; i++) expect((await call(h.url, 'GET', '/api/endpoints', { token: a.session })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: a.session })).status).toBe(429);
      const other = await call(h.url, 'GET', '/api/endpoints', { token: b.session });
      expect(other.status).toBe(200);
      expect(limits(other).remaining).toBe('4');
    });

    test('requests without a credential are counted per client address', async () => {
      const ip = freshIp();
      for (let i = 0; i < 5; i++) {
        const r = await call(h.url, 'GET', '/api/endpoints', { headers: { 'x-forwarded-for': ip } });
        expect(r.status).toBe(401);
        expect(limits(r).remaining).toBe(String(4 - i));
      }
      expectRefused(await call(h.url, 'GET', '/api/endpoints', { headers: { 'x-forwarded-for': ip } }), '5', 60);
      expect((await call(h.url, 'GET', '/api/endpoints', { headers: { 'x-forwarded-for': freshIp() } })).status).toBe(401);
    });

    test('sign-up and log-in are limited per client address by their own, stricter limit', async () => {
      const ip = freshIp();
      const email = `auth${Date.now()}@example.com`;
      const from = { 'x-forwarded-for': ip };
      const up = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' }, headers: from });
      expect(up.status).toBe(201);
      expect(limits(up)).toMatchObject({ limit: '3', remaining: '2' });
      const wrong = await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'wrong password' }, headers: from });
      expect(wrong.status).toBe(401);
      expect(limits(wrong)).toMatchObject({ limit: '3', remaining: '1' });
      const malformed = await call(h.url, 'POST', '/api/auth/login', { body: { email }, headers: from });
      expect(malformed.status).toBe(400);
      expect(limits(malformed)).toMatchObject({ limit: '3', remaining: '0' });
      // Even the right password is refused now, from this address …
      expectRefused(
        await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'correct horse battery' }, headers: from }),
        '3',
        60,
      );
      // … but not from another.
      const elsewhere = await call(h.url, 'POST', '/api/auth/login', {
        body: { email, password: 'correct horse battery' },
        headers: { 'x-forwarded-for': freshIp() },
      });
      expect(elsewhere.status).toBe(200);
      // Other /api/auth routes carry the API limit of the session, not the sign-in limit.
      const me = await call(h.url, 'GET', '/api/auth/me', { token: up.body.token, headers: from });
      expect(me.status).toBe(200);
      expect(limits(me)).toMatchObject({ limit: '5', remaining: '4' });
    });

    test('the receiver and /healthz are not rate limited', async () => {
      const { session } = await signup(h.url);
      const ep = await call(h.url, 'POST', '/api/endpoints', { token: session, body: { name: 'unlimited' } });
      expect(ep.status).toBe(201);
      for (let i = 0; i < 12; i++) {
        const r = await fetch(`${h.url}/w/${ep.body.slug}`, { method: 'POST', body: `n${i}`, headers: { authorization: `Bearer ${session}` } });
        expect(r.status).toBe(200);
        expect(r.headers.get('x-ratelimit-limit')).toBeNull();
      }
      const health = await fetch(`${h.url}/healthz`);
      expect(health.status).toBe(200);
      expect(health.headers.get('x-ratelimit-limit')).toBeNull();
    });
  },
  ENV,
);

// In-process, on a TestClock: a minute-long window passes by moving the clock.
describeInProcess(
  'rate-limit window',
  (h) => {
    test('the window resets when X-RateLimit-Reset and Retry-After say, not before', async () => {
      const { session } = await signup(h.url);
      // Start at the beginning of a window, so all three land in one.
      h.clock.advance(60_000 - (h.clock.now() % 60_000) + 20);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: session })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: session })).status).toBe(200);
      const refused = await call(h.url, 'GET', '/api/endpoints', { token: session });
      expectRefused(refused, '2', 60);
      const reset = Number(refused.headers.get('x-ratelimit-reset')) * 1000;
      expect(Number(refused.headers.get('retry-after')) * 1000).toBeGreaterThanOrEqual(reset - h.clock.now() - 1_000);
      // Five seconds before the reset the window is still spent …
      h.clock.advance(reset - h.clock.now() - 5_000);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: session })).status).toBe(429);
      // … and at the reset it is a new one.
      h.clock.advance(reset - h.clock.now() + 20);
      const again = await call(h.url, 'GET', '/api/endpoints', { token: session });
      expect(again.status).toBe(200);
      expect(limits(again).remaining).toBe('1');
    });
  },
  { RATE_LIMIT_API: '2/60', TRUST_PROXY: 'true' },
);

describe('rate limits configured off', () => {
  describeBackends(
    'RATE_LIMIT_API=off',
    (h) => {
      test('no headers and no 429', async () => {
        const { session } = await signup(h.url);
        for (let i = 0; i < 4; i++) {
          const r = await call(h.url, 'GET', '/api/endpoints', { token: session });
          expect(r.status).toBe(200);
          expect(r.headers.get('x-ratelimit-limit')).toBeNull();
        }
      });
    },
    { RATE_LIMIT_API: 'off', RATE_LIMIT_AUTH: 'off', TRUST_PROXY: 'true' },
  );
});

/** Two processes on one Postgres: the count is the cluster's, not a node's. */
for (const backend of BACKENDS.filter((b) => b === 'server')) {
  describe(`rate limits across nodes [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    test('requests to two nodes draw on one count', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const nodes: TestServer[] = [];
      for (let i = 0; i < 2; i++) {
        const s = await startServer({ env: { ...p.env, RATE_LIMIT_API: '6/60', RATE_LIMIT_AUTH: '3/60', TRUST_PROXY: 'true' } });
        cleanups.push(() => stopServer(s));
        nodes.push(s);
      }
      const [n1, n2] = nodes.map((n) => n.url) as [string, string];
      const { session } = await signup(n1);
      await clearOfWindowEdge(60_000, 15_000);
      const remaining: string[] = [];
      for (let i = 0; i < 6; i++) {
        const r = await call(i % 2 ? n2 : n1, 'GET', '/api/endpoints', { token: session });
        expect(r.status).toBe(200);
        remaining.push(limits(r).remaining ?? '');
      }
      expect(remaining).toEqual(['5', '4', '3', '2', '1', '0']);
      expectRefused(await call(n1, 'GET', '/api/endpoints', { token: session }), '6', 60);
      expectRefused(await call(n2, 'GET', '/api/endpoints', { token: session }), '6', 60);

      // Sign-in attempts from one address too: two on one node, the third on the other, then 429.
      const ip = freshIp();
      await clearOfWindowEdge(60_000, 10_000);
      const login = (base: string) =>
        call(base, 'POST', '/api/auth/login', { body: { email: 'nobody@example.com', password: 'x' }, headers: { 'x-forwarded-for': ip } });
      expect((await login(n1)).status).toBe(401);
      expect((await login(n1)).status).toBe(401);
      expect((await login(n2)).status).toBe(401);
      expectRefused(await login(n2), '3', 60);
    }, RESTART_TEST_MS);
  });
}
