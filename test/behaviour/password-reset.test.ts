/**
 * Password reset (docs/security.md, "Password reset") against a real server on both backends, with
 * the links read from the mail the server really sent: the same answer for any address, a link
 * that works once, expires, and is replaced by a newer one; a reset ends every browser session,
 * revokes the API keys of an account that had a password (not of one an agent made without one),
 * and mails a notice; clear JSON refusals; per-address and per-client limits.
 */
import { afterAll, expect, test } from 'bun:test';
import postgres from 'postgres';
import { call, eventually, type Reply } from '../support/client';
import { describeBackends } from '../support/suite';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, mailTo, otpFor, signUp, uniqueEmail } from './agent-support';
import { resetLink, resetLinks } from './password-reset-support';
import { SseClient } from '../support/sse';
import { clearOfWindowEdge } from '../support/rate-window';

const OLD_PASSWORD = 'correct horse battery';
const NEW_PASSWORD = 'a brand new passphrase';

const ask = (base: string, email: string) => call(base, 'POST', '/api/auth/password-reset', { body: { email } });
const confirm = (base: string, token: string, password = NEW_PASSWORD) => call(base, 'POST', '/api/auth/password-reset/confirm', { body: { token, password } });
const login = (base: string, email: string, password: string) => call(base, 'POST', '/api/auth/login', { body: { email, password } });
const me = (base: string, token: string) => call(base, 'GET', '/api/auth/me', { token });

function expectRefusal(r: Reply, status: number, code: string): void {
  if (r.status !== status || (r.body as { code?: unknown })?.code !== code) throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text}`);
  expect(r.headers.get('content-type') ?? '').toContain('application/json');
  expect(typeof (r.body as { error?: unknown }).error).toBe('string');
}

/** Lets a background send that would have happened arrive, so "no mail" means none was sent. */
const settle = () => Bun.sleep(600);

describeBackends(
  'password reset',
  (h) => {
    test('known and unknown addresses get the same answer; only an account is mailed', async () => {
      const known = await signUp(h.url, uniqueEmail('reset-known'));
      const unknown = uniqueEmail('reset-nobody');
      const a = await ask(h.url, known.email);
      const b = await ask(h.url, unknown);
      expect(a.status).toBe(202);
      expect(b.status).toBe(202);
      expect(a.text).toBe(b.text);
      expect(a.body.message).toContain('If an account exists');
      expect(a.headers.get('content-type')).toBe(b.headers.get('content-type'));

      const { link, token } = await resetLink(h.server, known.email);
      expect(link).toBe(`${h.url}/reset-password#token=${token}`);
      expect(a.text).not.toContain(token);
      await settle();
      expect(mailTo(h.server, unknown)).toHaveLength(0);

      // That the answer does not wait for the lookup and the mail is shown by the hung-SMTP test
      // below, not by timing the two here: on a loaded CI machine the medians of a few requests
      // differed by 52 ms with the mail sent after the answer.
    });

    test('a matching address in another case mails the account at its own address', async () => {
      const human = await signUp(h.url, uniqueEmail('Reset.Case'));
      expect((await ask(h.url, `  ${human.email.toUpperCase()}  `)).status).toBe(202);
      await resetLink(h.server, human.email);
      expect(mailTo(h.server, human.email)[0]?.to).toBe(human.email);
    });

    test('the link sets the password, ends every browser session, revokes every API key, signs in, and mails a notice', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-flow'));
      const second = await login(h.url, human.email, OLD_PASSWORD);
      expect(second.status).toBe(200);
      const keys = [];
      for (const name of ['ci', 'laptop']) {
        const key = await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: { name } });
        expect(key.status).toBe(201);
        keys.push(key.body.key);
      }
      const endpoint = await call(h.url, 'POST', '/api/endpoints', { token: keys[0], body: { name: 'captures' } });
      expect(endpoint.status).toBe(201);

      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      expect(mailTo(h.server, human.email).find((m) => m.text.includes('/reset-password#'))?.text).toContain('revokes all its API keys');
      const done = await confirm(h.url, token);
      expect(done.status).toBe(200);
      expect(done.body.user).toEqual({ id: human.userId, email: human.email, emailVerified: true });
      expect(done.body.token).toMatch(/^ses_/);
      expect(done.body.revokedApiKeys).toBe(2);
      // The operator's record of it says how many (it was logged as "[redacted]").
      await eventually(async () => h.server.output().includes(`"msg":"password reset","userId":"${human.userId}","apiKeysRevoked":2`));
      expect(done.headers.get('set-cookie') ?? '').toContain(`session=${done.body.token}`);

      expect((await me(h.url, human.session)).status).toBe(401);
      expect((await me(h.url, second.body.token)).status).toBe(401);
      expect((await me(h.url, done.body.token)).status).toBe(200);
      // A key made by whoever knew the password (or pre-registered the address) reads nothing more.
      for (const key of keys) expectRefusal(await me(h.url, key ?? ''), 401, 'unauthorized');
      expectRefusal(await call(h.url, 'GET', `/api/endpoints/${endpoint.body.slug}/requests`, { token: keys[0] }), 401, 'unauthorized');
      expect((await call(h.url, 'GET', '/api/api-keys', { token: done.body.token })).body).toEqual([]);
      expectRefusal(await login(h.url, human.email, OLD_PASSWORD), 401, 'unauthorized');
      expect((await login(h.url, human.email, NEW_PASSWORD)).status).toBe(200);

      // "Your password was changed", to the account's address, after the answer; no token in it.
      const notice = await eventually(async () => mailTo(h.server, human.email).find((m) => m.text.includes('was just changed')) ?? null, 10_000);
      expect(notice.text).toContain('Your 2 API keys were revoked');
      expect(notice.text).toContain(`${h.url}/forgot-password`);
      expect(notice.text).not.toContain('rst_');
      expect(notice.text).not.toContain(token.slice(4));
      expect(notice.text).not.toContain(done.body.token.slice(4));
    });

    test('a reset ends the live streams its ended sessions and revoked keys opened', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-streams'));
      const key = (await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: { name: 'listen' } })).body.key as string;
      const endpoint = await call(h.url, 'POST', '/api/endpoints', { token: key, body: { name: 'streamed' } });
      const url = `${h.url}/api/stream/${endpoint.body.slug}`;
      const streams = [await SseClient.live(url, { token: human.session }), await SseClient.live(url, { token: key })];

      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      const at = Date.now();
      expect((await confirm(h.url, token)).status).toBe(200);
      for (const s of streams) {
        // Announced on the bus, not found by the periodic re-check (STREAM_RECHECK_MS, 60 s):
        // a few seconds at most even on a loaded CI machine (1.9 s was seen at load 16).
        await s.until(() => s.ended, 10_000);
        expect(s.endedAt - at).toBeLessThan(8_000);
        expect(s.events.map((e) => e.event)).toEqual(['end']);
        expect(JSON.parse(s.events[0]?.data ?? '')).toEqual({ reason: 'credential_revoked' });
      }
    });

    test('a link works once, also when used twice at the same time', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-once'));
      await ask(h.url, human.email);
      const first = (await resetLink(h.server, human.email)).token;
      expect((await confirm(h.url, first)).status).toBe(200);
      const again = await confirm(h.url, first, 'yet another password');
      expectRefusal(again, 400, 'invalid_reset_token');
      expect((await login(h.url, human.email, 'yet another password')).status).toBe(401);

      await ask(h.url, human.email);
      const second = (await resetLink(h.server, human.email, 2)).token;
      const both = await Promise.all([confirm(h.url, second, 'racing password one'), confirm(h.url, second, 'racing password two')]);
      expect(both.map((r) => r.status).sort()).toEqual([200, 400]);
      const loser = both.find((r) => r.status === 400);
      if (loser) expectRefusal(loser, 400, 'invalid_reset_token');
      const winner = both[0]?.status === 200 ? 'racing password one' : 'racing password two';
      expect((await login(h.url, human.email, winner)).status).toBe(200);
    });

    test('the account a link belongs to is named without using the link; the confirm answer names it too', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-name'));
      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      const named = await call(h.url, 'POST', '/api/auth/password-reset/account', { body: { token } });
      expect([named.status, named.body]).toEqual([200, { email: human.email }]);
      // Not used: the old password and session still work, and the link does.
      expect((await me(h.url, human.session)).status).toBe(200);
      const done = await confirm(h.url, token);
      expect(done.body.user.email).toBe(human.email);
      expectRefusal(await call(h.url, 'POST', '/api/auth/password-reset/account', { body: { token } }), 400, 'invalid_reset_token');
      expectRefusal(await call(h.url, 'POST', '/api/auth/password-reset/account', { body: { token: 'junk' } }), 400, 'invalid_reset_token');
      expectRefusal(await call(h.url, 'POST', '/api/auth/password-reset/account', { body: {} }), 400, 'validation');
    });

    test('a newer request invalidates the older link', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-newer'));
      await ask(h.url, human.email);
      const older = (await resetLink(h.server, human.email, 1)).token;
      await ask(h.url, human.email);
      const newer = (await resetLink(h.server, human.email, 2)).token;
      expect(newer).not.toBe(older);
      const stale = await confirm(h.url, older);
      expectRefusal(stale, 400, 'invalid_reset_token');
      expect((await confirm(h.url, newer)).status).toBe(200);
    });

    test('a weak password is refused with 400 and the link stays usable', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-weak'));
      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      const weak = await confirm(h.url, token, 'short');
      expectRefusal(weak, 400, 'validation');
      expect(weak.body.error).toContain('at least 8 characters');
      // Nothing changed: the old password and session still work, and the link does.
      expect((await me(h.url, human.session)).status).toBe(200);
      expect((await login(h.url, human.email, OLD_PASSWORD)).status).toBe(200);
      expect((await confirm(h.url, token)).status).toBe(200);
    });

    test('unknown, malformed and used tokens get one message; bad bodies are clear 400/415s', async () => {
      const forged = await confirm(h.url, `rst_${'A'.repeat(43)}`);
      expectRefusal(forged, 400, 'invalid_reset_token');
      const junk = await confirm(h.url, 'not a token');
      expectRefusal(junk, 400, 'invalid_reset_token');
      expect(junk.body.error).toBe(forged.body.error ?? '');
      expect(forged.body.error).toContain('invalid or has expired');

      expectRefusal(await ask(h.url, 'not-an-address'), 400, 'validation');
      expectRefusal(await ask(h.url, 'nul\u0000@example.com'), 400, 'validation');
      const cases: unknown[] = [{}, { email: 42 }, { email: { toString: 'x' } }, { email: 'x'.repeat(300) + '@example.com' }];
      for (const body of cases) expectRefusal(await call(h.url, 'POST', '/api/auth/password-reset', { body }), 400, 'validation');
      const confirmCases: unknown[] = [{}, { token: `rst_${'A'.repeat(43)}` }, { password: NEW_PASSWORD }, { token: 1, password: NEW_PASSWORD }, { token: 'x'.repeat(5000), password: NEW_PASSWORD }, { token: `rst_${'A'.repeat(43)}`, password: 'p'.repeat(2000) }];
      for (const body of confirmCases) expectRefusal(await call(h.url, 'POST', '/api/auth/password-reset/confirm', { body }), 400, 'validation');
      const form = await call(h.url, 'POST', '/api/auth/password-reset', { raw: 'email=a%40example.com', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expectRefusal(form, 415, 'unsupported_media_type');
      const crossSite = await call(h.url, 'POST', '/api/auth/password-reset/confirm', { body: { token: `rst_${'A'.repeat(43)}`, password: NEW_PASSWORD }, headers: { 'sec-fetch-site': 'cross-site' } });
      expectRefusal(crossSite, 403, 'forbidden');
    });

    test('an account made by an agent (no password) gets one through the link', async () => {
      const email = uniqueEmail('reset-agent');
      const reg = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'reset-bot' } });
      expect(reg.status).toBe(201);
      const otp = await otpFor(h.server, email);
      const issued = await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.body.claim_token, otp } });
      expect(issued.status).toBe(200);
      expectRefusal(await login(h.url, email, NEW_PASSWORD), 401, 'unauthorized');

      await ask(h.url, email);
      const { token } = await resetLink(h.server, email);
      expect(mailTo(h.server, email).at(-1)?.text).toContain('its API keys keep working');
      const done = await confirm(h.url, token);
      expect(done.status).toBe(200);
      // No password before: the address was proven at creation and the keys are the agent's.
      expect(done.body.revokedApiKeys).toBe(0);
      expect((await login(h.url, email, NEW_PASSWORD)).status).toBe(200);
      expect((await me(h.url, issued.body.credential)).status).toBe(200);
      const notice = await eventually(async () => mailTo(h.server, email).find((m) => m.text.includes('was just changed')) ?? null, 10_000);
      expect(notice.text).toContain('No API key was revoked.');

      // Now it has a password: a second reset is a recovery and revokes the keys.
      await ask(h.url, email);
      const again = await confirm(h.url, (await resetLink(h.server, email, 2)).token, 'a third passphrase');
      expect(again.body.revokedApiKeys).toBe(1);
      expectRefusal(await me(h.url, issued.body.credential), 401, 'unauthorized');
    });

    test('the agent sign-in page links to the reset form, which the server serves', async () => {
      const login = await fetch(`${h.url}/agent/login`);
      expect(login.status).toBe(200);
      expect(await login.text()).toContain('<a href="/forgot-password">Forgot password?</a>');
      for (const path of ['/forgot-password', '/reset-password']) {
        const r = await fetch(`${h.url}${path}`);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type') ?? '').toContain('text/html');
      }
    });

    test('the OpenAPI document describes both routes', async () => {
      const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, { summary?: string; description?: string; responses?: Record<string, unknown> }>> };
      const request = doc.paths['/api/auth/password-reset']?.post;
      const use = doc.paths['/api/auth/password-reset/confirm']?.post;
      expect(Object.keys(request?.responses ?? {})).toEqual(expect.arrayContaining(['202', '400', '429']));
      expect(request?.description).toContain('same body whether or not an account');
      expect(Object.keys(use?.responses ?? {})).toEqual(expect.arrayContaining(['200', '400', '429']));
      expect(use?.description).toContain('invalid_reset_token');
    });

    if (h.backend === 'server') {
      test('only an HMAC of the token is stored, and it is never logged (server backend)', async () => {
        const human = await signUp(h.url, uniqueEmail('reset-hash'));
        await ask(h.url, human.email);
        const { token } = await resetLink(h.server, human.email);
        const url = h.provisioned.env.DATABASE_URL;
        if (!url) throw new Error('no DATABASE_URL');
        const sql = postgres(url, { max: 1, onnotice: () => {} });
        try {
          const rows = await sql`SELECT token_hash, expires_at - created_at AS ttl FROM password_resets WHERE user_id = ${human.userId}`;
          expect(rows).toHaveLength(1);
          expect(rows[0]?.token_hash).toMatch(/^[0-9a-f]{64}$/);
          expect(rows[0]?.token_hash).not.toBe(new Bun.CryptoHasher('sha256').update(token).digest('hex'));
          expect(JSON.stringify(rows)).not.toContain(token.slice(4));
          expect(Number(rows[0]?.ttl)).toBe(30 * 60_000);
        } finally {
          await sql.end();
        }
        expect(h.server.output()).not.toContain(token.slice(4));
      });
    }
  },
  { ...AGENT_ENV, RATE_LIMIT_RESET_EMAIL: '100000/600', LOG_LEVEL: 'info' },
);

// The service in-process with a TestClock: the link's age is the clock moved past the TTL, not a
// sleep. (A 6 s TTL and a real sleep failed on CI at a load average of 20: the fresh link's ask,
// mail and confirm took longer than the TTL.) A TTL far from the default, so the test still shows
// the setting is the one read.
const RESET_TTL_MS = 10 * 60_000;

describeInProcess(
  'password reset: expiry',
  (h) => {
    test('a link used after PASSWORD_RESET_TTL_MS is refused like an unknown one', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-expiry'));
      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      h.clock.advance(RESET_TTL_MS);
      const late = await confirm(h.url, token);
      expectRefusal(late, 400, 'invalid_reset_token');
      expect(late.body.error).toContain('invalid or has expired');
      expect((await me(h.url, human.session)).status).toBe(200);
      expect((await login(h.url, human.email, OLD_PASSWORD)).status).toBe(200);
      // A fresh link, used in time, works.
      await ask(h.url, human.email);
      const fresh = (await resetLink(h.server, human.email, 2)).token;
      expect((await confirm(h.url, fresh)).status).toBe(200);
    });

    test('a link used just before PASSWORD_RESET_TTL_MS works', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-in-time'));
      await ask(h.url, human.email);
      const { token } = await resetLink(h.server, human.email);
      // Nine minutes old on a ten-minute TTL (a minute of room for the confirm on a loaded machine).
      h.clock.advance(RESET_TTL_MS - 60_000);
      expect((await confirm(h.url, token)).status).toBe(200);
    });
  },
  { ...AGENT_ENV, PASSWORD_RESET_TTL_MS: String(RESET_TTL_MS) },
);

describeBackends(
  'password reset: rate limits',
  (h) => {
    test('per address (RATE_LIMIT_RESET_EMAIL), account or not, in any case', async () => {
      // The next test counts on this one's calls too: room for both in one window.
      await clearOfWindowEdge(600_000, 60_000);
      const human = await signUp(h.url, uniqueEmail('reset-limit'));
      const nobody = uniqueEmail('reset-limit-nobody');
      for (const email of [human.email, nobody]) {
        expect((await ask(h.url, email)).status).toBe(202);
        expect((await ask(h.url, email.toUpperCase())).status).toBe(202);
        const third = await ask(h.url, email);
        expectRefusal(third, 429, 'rate_limited_api');
        expect(Number(third.headers.get('retry-after'))).toBeGreaterThan(0);
      }
      await settle();
      expect(resetLinks(h.server, human.email)).toHaveLength(2);
    });

    test('per client address (RATE_LIMIT_AUTH), for both routes', async () => {
      // The previous test and the sign-up used 7 of the 10; fresh addresses use up the rest.
      const statuses: number[] = [];
      for (let i = 0; i < 4; i++) statuses.push((await ask(h.url, uniqueEmail('reset-ip'))).status);
      expect(statuses).toContain(429);
      const refused = await confirm(h.url, `rst_${'A'.repeat(43)}`);
      expectRefusal(refused, 429, 'rate_limited_api');
      expect(refused.headers.get('x-ratelimit-limit')).toBe('10');
    });
  },
  { ...AGENT_ENV, RATE_LIMIT_RESET_EMAIL: '2/600', RATE_LIMIT_AUTH: '10/600' },
);

/**
 * A mail server that accepts connections and never greets: with it, a request that waited for
 * the mail would hang for nodemailer's timeouts. The answer must not wait (nor so tell, by its
 * time, that an account exists).
 */
const silentSmtp = Bun.listen({ hostname: '127.0.0.1', port: 0, socket: { data() {} } });
afterAll(() => silentSmtp.stop(true));

describeBackends(
  'password reset: a mail server that hangs',
  (h) => {
    test('known and unknown addresses are answered at once, alike', async () => {
      const human = await signUp(h.url, uniqueEmail('reset-slow'));
      for (const email of [human.email, uniqueEmail('reset-slow-nobody'), human.email]) {
        const t0 = performance.now();
        const r = await ask(h.url, email);
        expect(r.status).toBe(202);
        expect(r.body.message).toContain('If an account exists');
        // Far under the hung mail's wait (the mailer's greeting timeout, 10 s); 1 s was missed
        // at 1.7 s by a loaded CI machine answering a request that did not wait.
        expect(performance.now() - t0).toBeLessThan(3_000);
      }
    });
  },
  // The mails still hang at shutdown, which waits for them: a short deadline keeps teardown quick.
  { SMTP_URL: `smtp://127.0.0.1:${silentSmtp.port}`, RATE_LIMIT_RESET_EMAIL: '100000/600', SHUTDOWN_TIMEOUT_MS: '1000' },
);
