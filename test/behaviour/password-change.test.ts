/**
 * `POST /api/account/password`: a signed-in person changes the password by typing the current one
 * (docs/security.md, "Changing the password"). Browser session only; a wrong current password is a
 * clear 400 that keeps the session, and counts against the log-in limits; success signs out every
 * other session (their live streams end) and keeps this one and the API keys.
 */
import { expect, test } from 'bun:test';
import { call, eventually, newAccount, type ErrorFields } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, mailTo } from './agent-support';
import { clearOfWindowEdge } from '../support/rate-window';

const OLD = 'correct horse battery';
const NEW = 'new battery staple horse';

const login = (base: string, email: string, password: string) => call<ErrorFields>(base, 'POST', '/api/auth/login', { body: { email, password } });
const change = (base: string, token: string, body: unknown, headers: Record<string, string> = {}) =>
  call<{ signedOutSessions?: number } & ErrorFields>(base, 'POST', '/api/account/password', { token, body, headers });

describeBackends(
  'changing the password',
  (h) => {
    test('wrong current password, short new one, an API key, a cross-site cookie: refused, nothing changes', async () => {
      const a = await newAccount(h.url);
      const wrong = await change(h.url, a.session, { currentPassword: 'not the password', newPassword: NEW });
      expect(wrong.status).toBe(400);
      expect(wrong.body.code).toBe('wrong_password');
      expect(wrong.body.error).toContain('currentPassword');
      const short = await change(h.url, a.session, { currentPassword: OLD, newPassword: 'short' });
      expect(short.status).toBe(400);
      expect(short.body.code).toBe('validation');
      expect(short.body.error).toContain('newPassword must be at least 8 characters');
      const missing = await change(h.url, a.session, { currentPassword: OLD });
      expect(missing.status).toBe(400);
      const byKey = await change(h.url, a.key, { currentPassword: OLD, newPassword: NEW });
      expect(byKey.status).toBe(403);
      expect(byKey.body.code).toBe('forbidden');
      const crossSite = await call<ErrorFields>(h.url, 'POST', '/api/account/password', {
        headers: { cookie: `session=${a.session}`, origin: 'https://evil.example', 'content-type': 'application/json' },
        raw: JSON.stringify({ currentPassword: OLD, newPassword: NEW }),
      });
      expect(crossSite.status).toBe(403);
      const form = await call<ErrorFields>(h.url, 'POST', '/api/account/password', {
        headers: { cookie: `session=${a.session}`, 'content-type': 'text/plain' },
        raw: JSON.stringify({ currentPassword: OLD, newPassword: NEW }),
      });
      expect(form.status).toBe(415);
      expect((await call(h.url, 'POST', '/api/account/password', { body: { currentPassword: OLD, newPassword: NEW } })).status).toBe(401);
      // The session still works and the password is still the old one.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: a.session })).status).toBe(200);
      expect((await login(h.url, a.email, OLD)).status).toBe(200);
      expect((await login(h.url, a.email, NEW)).status).toBe(401);
    });

    test('success: other sessions end (their streams too), this one and the API keys stay, a notice is mailed', async () => {
      const a = await newAccount(h.url);
      const other = await call(h.url, 'POST', '/api/auth/login', { body: { email: a.email, password: OLD } });
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'pw' } })).body;
      const url = `${h.url}/api/stream/${ep.slug}`;
      const otherStream = await SseClient.live(url, { token: other.body.token });
      const ownStream = await SseClient.live(url, { token: a.session });

      const done = await change(h.url, a.session, { currentPassword: OLD, newPassword: NEW });
      expect(done.status).toBe(200);
      expect(done.body).toEqual({ signedOutSessions: 1 });
      await otherStream.until(() => otherStream.ended, 3_000);
      expect(JSON.parse(otherStream.events.at(-1)?.data ?? '')).toEqual({ reason: 'credential_revoked' });
      expect((await call(h.url, 'GET', '/api/auth/me', { token: other.body.token })).status).toBe(401);

      expect((await call(h.url, 'GET', '/api/auth/me', { token: a.session })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(200);
      await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'after' });
      await ownStream.until(() => ownStream.events.length === 1);
      expect(ownStream.ended).toBe(false);
      ownStream.close();

      expect((await login(h.url, a.email, OLD)).status).toBe(401);
      expect((await login(h.url, a.email, NEW)).status).toBe(200);
      const notice = await eventually(async () => mailTo(h.server, a.email).find((m) => m.text.includes('from a signed-in browser')) ?? null, 10_000);
      expect(notice.text).toContain('Every other browser session of the account was signed out');
      expect(notice.text).not.toContain(NEW);
    });
  },
  AGENT_ENV,
);

describeBackends(
  'changing the password: attempts count against the log-in limits',
  (h) => {
    test('wrong current passwords use up RATE_LIMIT_LOGIN_ACCOUNT, shared with log-in', async () => {
      await clearOfWindowEdge(600_000, 20_000);
      const a = await newAccount(h.url);
      for (let i = 0; i < 3; i++) expect((await change(h.url, a.session, { currentPassword: `guess ${i}`, newPassword: NEW })).body.code).toBe('wrong_password');
      const refused = await change(h.url, a.session, { currentPassword: OLD, newPassword: NEW });
      expect(refused.status).toBe(429);
      expect(refused.body.code).toBe('rate_limited_api');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // The same bucket as log-in: the guesses also lock log-in for the window.
      expect((await login(h.url, a.email, OLD)).status).toBe(429);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: a.session })).status).toBe(200);
      // Counted per client address too (RATE_LIMIT_AUTH), and only on this route of the account ones.
      expect(refused.headers.get('x-ratelimit-limit')).toBe('50');
      expect((await call(h.url, 'GET', '/api/api-keys', { token: a.session })).headers.get('x-ratelimit-limit')).toBe('100000');
    });
  },
  { RATE_LIMIT_LOGIN_ACCOUNT: '3/600', RATE_LIMIT_AUTH: '50/600' },
);
