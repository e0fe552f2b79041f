import { expect, test } from 'bun:test';
import postgres from 'postgres';
import { call } from '../support/client';
import { startServer, stopServer } from '../support/server';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, mailTo, otpFor, signUp, uniqueEmail, USE_SMTP, wrongOtp, type AnonymousReply, type PollReply } from './agent-support';
import { signUpProven } from './password-reset-support';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describeBackends(
  'agent registration: verified email with a one-time code',
  (h) => {
    const register = (email: string, clientName = 'mail-bot') =>
      call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: clientName } });
    const verify = (claim_token: string, otp: string) =>
      call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token, otp } });

    test('registration returns the SPEC 4.8 fields and no credential; the code arrives by mail', async () => {
      const email = uniqueEmail();
      const before = Date.now();
      const r = await register(email);
      expect(r.status).toBe(201);
      expect(Object.keys(r.body).sort()).toEqual(
        ['registration_id', 'registration_type', 'claim_url', 'claim_token', 'claim_token_expires', 'post_claim_scopes'].sort(),
      );
      expect(r.body.registration_id).toMatch(UUID);
      expect(r.body.registration_type).toBe('email-verification');
      expect(r.body.claim_token).toMatch(/^clm_[A-Za-z0-9_-]{43}$/);
      expect(r.body.claim_url).toBe(`${h.url}/api/agent/auth/claim/verify-otp`);
      expect(r.body.post_claim_scopes).toEqual(['webhooks:read', 'webhooks:write']);
      const expires = Date.parse(r.body.claim_token_expires);
      // SPEC 5.7: ten minutes.
      expect(expires).toBeGreaterThanOrEqual(before + 600_000 - 1000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 600_000 + 1000);
      expect(r.text).not.toContain('svc_');

      const otp = await otpFor(h.server, email);
      expect(otp).toMatch(/^[0-9]{6}$/);
      expect(r.text).not.toContain(otp);
      const mail = mailTo(h.server, email);
      expect(mail).toHaveLength(1);
      expect(mail[0]?.text).toContain('mail-bot');

      const poll = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: r.body.claim_token } });
      expect(poll.body).toMatchObject({ status: 'pending', registration_type: 'email-verification' });
      expect(poll.body.user_code).toBeUndefined();
    });

    test('a wrong code is otp_invalid; the right one returns the key once, bound to a new account for that email', async () => {
      const email = uniqueEmail();
      const reg = (await register(email)).body;
      const otp = await otpFor(h.server, email);
      const wrong = await verify(reg.claim_token, wrongOtp(otp));
      expectAgentError(wrong, 401, 'otp_invalid');
      expect(wrong.headers.get('cache-control')).toBe('no-store');

      const ok = await verify(reg.claim_token, otp);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ credential_type: 'api_key', credential: expect.stringMatching(/^svc_/), scopes: ['webhooks:read', 'webhooks:write'] });
      const me = await call(h.url, 'GET', '/api/auth/me', { token: ok.body.credential });
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(email);
      expect((await call(h.url, 'POST', '/api/endpoints', { token: ok.body.credential, body: { name: 'x' } })).status).toBe(201);

      // Completed: the code cannot be used again, and the poll says claimed.
      expectAgentError(await verify(reg.claim_token, otp), 409, 'previously_claimed');
      expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('claimed');
    });

    test('an existing account is matched by email, whatever its case', async () => {
      const human = await signUp(h.url, uniqueEmail('Mixed.Case'));
      const reg = (await register(human.email.toUpperCase())).body;
      const otp = await otpFor(h.server, human.email.toUpperCase());
      const ok = await verify(reg.claim_token, otp);
      expect(ok.status).toBe(200);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: ok.body.credential })).body.id).toBe(human.userId);
      // Its address was never proven (a sign-up), so the proof recovered it: the sign-up's session
      // ended (test/security/agent-preregistered.test.ts has the whole story).
      expect((await call(h.url, 'GET', '/api/auth/me', { token: human.session })).status).toBe(401);
    });

    test('after five wrong codes even the right one is otp_expired', async () => {
      const email = uniqueEmail();
      const reg = (await register(email)).body;
      const otp = await otpFor(h.server, email);
      for (let i = 0; i < 5; i++) {
        const r = await verify(reg.claim_token, wrongOtp(otp));
        expectAgentError(r, 401, 'otp_invalid');
        expect(r.body.error_description).toContain(`${4 - i} attempt`);
        // Only the last one says the code is gone and what to do.
        expect(String(r.body.error_description).includes('register again')).toBe(i === 4);
      }
      expectAgentError(await verify(reg.claim_token, otp), 410, 'otp_expired');
      expectAgentError(await verify(reg.claim_token, wrongOtp(otp)), 410, 'otp_expired');
      // Nothing can complete it now, so the poll does not call it pending: it says what verify-otp says.
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } }), 410, 'otp_expired');
    });

    test('concurrent wrong guesses never buy more than five attempts', async () => {
      const email = uniqueEmail();
      const reg = (await register(email)).body;
      const otp = await otpFor(h.server, email);
      const guesses = await Promise.all(Array.from({ length: 12 }, () => verify(reg.claim_token, wrongOtp(otp))));
      expect(guesses.filter((r) => r.body.error === 'otp_invalid')).toHaveLength(5);
      expect(guesses.filter((r) => r.body.error === 'otp_expired')).toHaveLength(7);
      expectAgentError(await verify(reg.claim_token, otp), 410, 'otp_expired');
    });

    test('bad input: invalid_email, invalid_request, invalid_claim_token', async () => {
      for (const email of [undefined, '', 'nope', 'a@localhost', 'a,b@example.com', 42]) {
        expectAgentError(
          await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'x' } }),
          400,
          'invalid_email',
        );
      }
      const email = uniqueEmail();
      const reg = (await register(email)).body;
      for (const otp of ['12345', '1234567', 'abcdef', 123456, null]) {
        expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.claim_token, otp } }), 400, 'invalid_request');
      }
      expectAgentError(await verify(`clm_${'C'.repeat(43)}`, '123456'), 400, 'invalid_claim_token');
      expectAgentError(await verify('garbage', '123456'), 400, 'invalid_claim_token');
      // The claim token of an anonymous registration is not an email registration.
      const anon = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'a' } });
      expectAgentError(await verify(anon.body.claim_token, '123456'), 400, 'invalid_claim_token');
      // None of that spent an attempt.
      expect((await verify(reg.claim_token, await otpFor(h.server, email))).status).toBe(200);
    });

    test('an account at its key limit gets too_many_keys; nothing is spent, and the code works once there is room', async () => {
      // Proven (a reset): an unproven account would be recovered, its keys revoked, instead.
      const human = await signUpProven(h.server);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: {} })).body.id);
      const reg = (await register(human.email)).body;
      const otp = await otpFor(h.server, human.email);
      expectAgentError(await verify(reg.claim_token, otp), 409, 'too_many_keys');
      expect((await call(h.url, 'DELETE', `/api/api-keys?id=${ids[0]}`, { token: human.session })).status).toBe(204);
      const ok = await verify(reg.claim_token, otp);
      expect(ok.status).toBe(200);
    });

    test('an unproven account at its key limit gets too_many_keys too, before any recovery: its session and keys stay', async () => {
      const human = await signUp(h.url);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: {} })).body.id);
      const reg = (await register(human.email)).body;
      expectAgentError(await verify(reg.claim_token, await otpFor(h.server, human.email)), 409, 'too_many_keys');
      // Refused before the recovery: the sign-up's session and all 25 keys still work.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: human.session })).status).toBe(200);
      const keys = await call<{ id: string }[]>(h.url, 'GET', '/api/api-keys', { token: human.session });
      expect(keys.body.map((k) => k.id).sort()).toEqual([...ids].sort());
    });

    test('a code from one registration does not work on another', async () => {
      const email = uniqueEmail();
      const first = (await register(email)).body;
      const otp1 = await otpFor(h.server, email, 1);
      const second = (await register(email)).body;
      const otp2 = await otpFor(h.server, email, 2);
      if (otp1 !== otp2) expectAgentError(await verify(second.claim_token, otp1), 401, 'otp_invalid');
      expect((await verify(first.claim_token, otp1)).status).toBe(200);
      expect((await verify(second.claim_token, otp2)).status).toBe(200);
    });

    if (h.backend === 'server') {
      test('a registration started on one node completes on another (the code secret is shared)', async () => {
        const node2 = await startServer({ env: { ...h.provisioned.env, ...AGENT_ENV } });
        try {
          const email = uniqueEmail('two-nodes');
          const reg = (await register(email)).body;
          const otp = await otpFor(h.server, email);
          const ok = await call(node2.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.claim_token, otp } });
          expect(ok.status).toBe(200);
          // The same holds for user codes, which are HMACs under the same secret.
          const anon = (await call<AnonymousReply>(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'n' } })).body;
          const polled = await call<PollReply>(node2.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: anon.claim_token } });
          expect(polled.body).toMatchObject({ status: 'pending', user_code: anon.user_code });
          const human = await signUp(node2.url);
          expect((await call(node2.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: anon.user_code } })).status).toBe(200);
        } finally {
          await stopServer(node2);
        }
      });

      test('secrets at rest: claim token as SHA-256, the code as an HMAC, never in the clear', async () => {
        const email = uniqueEmail();
        const reg = (await register(email)).body;
        const otp = await otpFor(h.server, email);
        const sql = postgres(h.provisioned.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
        try {
          const rows = await sql`SELECT row_to_json(r)::text AS j FROM agent_registrations r WHERE id = ${reg.registration_id}`;
          const stored = String(rows[0]?.j);
          expect(stored).not.toContain(reg.claim_token);
          expect(stored).not.toContain(`"${otp}"`);
          const row = (await sql`SELECT claim_token_hash, otp_hash FROM agent_registrations WHERE id = ${reg.registration_id}`)[0];
          expect(row?.claim_token_hash).toBe(new Bun.CryptoHasher('sha256').update(reg.claim_token).digest('hex'));
          expect(row?.otp_hash).toMatch(/^[0-9a-f]{64}$/);
          expect(row?.otp_hash).not.toBe(new Bun.CryptoHasher('sha256').update(otp).digest('hex'));
        } finally {
          await sql.end();
        }
      });
    }

    test(`mail goes out through ${USE_SMTP ? 'SMTP to the sink' : 'the outbox'}`, async () => {
      const email = uniqueEmail('route');
      await register(email);
      await otpFor(h.server, email);
      expect(mailTo(h.server, email)).toHaveLength(1);
    });
  },
  AGENT_ENV,
);
