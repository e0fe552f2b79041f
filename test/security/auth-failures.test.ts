/**
 * Invented bearer tokens are limited per client address (docs/security.md): the API's own limit
 * counts per presented token, so a new random token each time never met it. Unknown and revoked
 * tokens count per address (RATE_LIMIT_AUTH_FAILURES); past the limit that address's tokens get a
 * 429 with Retry-After before any lookup, except tokens the node has already seen valid. Other
 * addresses and the receiver are not affected. TRUST_PROXY gives each caller its own address.
 */
import { expect, test } from 'bun:test';
import { randomBytes } from 'node:crypto';
import { call, newAccount, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';
import { clearOfWindowEdge } from '../support/rate-window';

const LIMIT = 5;
const invented = () => `svc_${randomBytes(24).toString('base64url')}`;

describeBackends(
  'security: failed API authentication per client address',
  (h) => {
    test('past the limit an address gets 429 for unknown tokens; known keys, other addresses and /w/ go on', async () => {
      const A = '203.0.113.7';
      const B = '203.0.113.8';
      const from = (ip: string) => ({ 'x-forwarded-for': ip });
      // Windows are fixed (multiples of 600 s): start clear of an edge so no reset lands mid-count.
      await clearOfWindowEdge(600_000, 20_000);
      const account = await newAccount(h.url);
      // The account's key works from A before anything fails there: this node has seen it valid.
      expect((await call(h.url, 'GET', '/api/endpoints', { token: account.key, headers: from(A) })).status).toBe(200);
      const revoked = await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name: 'revoked' } });
      expect((await call(h.url, 'DELETE', `/api/api-keys?id=${revoked.body.id}`, { token: account.session })).status).toBe(204);

      // LIMIT failures (a revoked key among them) are 401s...
      for (let i = 0; i < LIMIT; i++) {
        const token = i === 0 ? revoked.body.key : invented();
        const r = await call<ErrorFields>(h.url, 'GET', '/api/endpoints', { token, headers: from(A) });
        expect({ i, status: r.status }).toEqual({ i, status: 401 });
      }
      // ...the next ones are 429, with Retry-After and the usual JSON error.
      for (let i = 0; i < 3; i++) {
        const r = await call<ErrorFields>(h.url, 'POST', '/api/endpoints', { token: invented(), headers: from(A), body: { name: 'x' } });
        expect(r.status).toBe(429);
        expect(r.body.code).toBe('rate_limited_api');
        expect(r.body.error).toContain('unknown or revoked API key');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(Number(r.headers.get('retry-after'))).toBeLessThanOrEqual(600);
      }
      // A session cookie from a browser behind A counts the same.
      const cookie = await call<ErrorFields>(h.url, 'GET', '/api/auth/me', { headers: { ...from(A), cookie: `session=ses_${randomBytes(24).toString('base64url')}` } });
      expect(cookie.status).toBe(429);

      // The key already seen valid still works from A; so does the session.
      expect((await call(h.url, 'GET', '/api/endpoints', { token: account.key, headers: from(A) })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session, headers: from(A) })).status).toBe(200);
      // A valid key never seen before waits like the invented ones from A (the price of refusing
      // before the lookup), and works from another address, after which A lets it through too.
      const fresh = await call(h.url, 'POST', '/api/api-keys', { token: account.session, headers: from(B), body: { name: 'fresh' } });
      expect((await call(h.url, 'GET', '/api/endpoints', { token: fresh.body.key, headers: from(A) })).status).toBe(429);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: fresh.body.key, headers: from(B) })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: fresh.body.key, headers: from(A) })).status).toBe(200);

      // Another address is not limited by A's failures; no token at all is still the plain 401.
      expect((await call(h.url, 'GET', '/api/endpoints', { token: invented(), headers: from(B) })).status).toBe(401);
      expect((await call(h.url, 'GET', '/api/endpoints', { headers: from(A) })).status).toBe(401);

      // The receiver never authenticates: A still captures.
      const ep = await call(h.url, 'POST', '/api/endpoints', { token: account.key, body: { name: 'receiver' } });
      const captured = await fetch(`${h.url}/w/${ep.body.slug}`, { method: 'POST', headers: { ...from(A), authorization: `Bearer ${invented()}` }, body: 'hi' });
      expect(captured.status).toBe(200);
    });

    test("agent routes answer that 429 in the agent API's shape; the capture API keeps its own", async () => {
      const C = '203.0.113.9';
      const from = { 'x-forwarded-for': C };
      await clearOfWindowEdge(600_000, 20_000);
      for (let i = 0; i < LIMIT; i++) {
        expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: invented(), headers: from })).status).toBe(401);
      }
      // The failure that passes the limit (counted) and those after it (refused before the lookup),
      // on a sandbox route (the auth macro) and on the confirm route (authenticated by the route).
      const answers = [
        await call<Record<string, string>>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: invented(), headers: from }),
        await call<Record<string, string>>(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: invented(), headers: from }),
        await call<Record<string, string>>(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: invented(), headers: from, body: { user_code: 'ABCD-EFGH' } }),
      ];
      for (const r of answers) {
        expect(r.status).toBe(429);
        expect(Object.keys(r.body).sort()).toEqual(['error', 'error_description']);
        expect(r.body.error).toBe('rate_limited');
        expect(r.body.error_description).toContain('unknown or revoked API key');
        expect(Number(r.headers.get('retry-after'))).toBeGreaterThan(0);
        expect(r.headers.get('cache-control')).toContain('no-store');
      }
      const api = await call<ErrorFields>(h.url, 'GET', '/api/endpoints', { token: invented(), headers: from });
      expect(api.status).toBe(429);
      expect(api.body.code).toBe('rate_limited_api');
    });
  },
  { RATE_LIMIT_AUTH_FAILURES: `${LIMIT}/600`, TRUST_PROXY: 'true' },
);
