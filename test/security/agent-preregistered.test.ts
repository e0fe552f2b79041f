/**
 * Sign-up does not prove addresses, so whoever signs up `victim@…` with a password first owns that
 * account until the mailbox is proven. An agent's verified email (the mailed code) or identity
 * assertion (`email_verified: true`) proves it: the key is still bound to the matched account
 * (SPEC 4.8 flow 3), but an account whose address was never proven and that has a password is
 * recovered first, in the same transaction. Its password is removed, its sessions end, its other
 * API keys are revoked (live streams end) and the address is marked proven, so the pre-registrant
 * reads nothing the agent makes. An account whose address is already proven binds as before.
 * Real HTTP, real mail (the SMTP sink, or the outbox embedded-only), real test IdP, both backends.
 */
import { afterAll, expect, test } from 'bun:test';
import { call, eventually } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends, type Harness } from '../support/suite';
import { AGENT_ENV, mailTo, otpFor, uniqueEmail } from '../behaviour/agent-support';
import { resetLink } from '../behaviour/password-reset-support';
import { makeKey, sign, TestIdp } from '../support/idp';

const idpKey = await makeKey('ES256', 'prereg-1');
const idp = TestIdp.start();
idp.publish(idpKey);
afterAll(() => idp.stop());
const IDP_ENV = { AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: idp.url }]), AGENT_ALLOW_INSECURE_ISSUERS: 'true' };

const PASSWORD = 'someone else knows this';
const RECOVERY_WARNING = 'its address was never proven';
const RECOVERED_SUBJECT = 'Your hookcap account is yours again: set a password';
const NOTICE_SUBJECT = 'An AI agent was given a key to your hookcap account';

/** The mail's text with quoted-printable escapes and soft breaks undone. */
const plain = (text: string) => text.replace(/=\r?\n/g, '').replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));
const subjectOf = (text: string) => /^Subject: (.*)$/m.exec(text)?.[1]?.trim() ?? '';

describeBackends(
  'an agent proving the address of a pre-registered account',
  (h: Harness) => {
    /** Whoever signed the address up with a password: a session, an API key, an endpoint and a live stream on that key. */
    async function preRegister(email: string) {
      const s = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } });
      expect(s.status).toBe(201);
      expect(s.body.user.emailVerified).toBe(false);
      const key = await call(h.url, 'POST', '/api/api-keys', { token: s.body.token, body: { name: 'squatter' } });
      expect(key.status).toBe(201);
      const ep = await call(h.url, 'POST', '/api/endpoints', { token: key.body.key, body: { name: 'planted' } });
      expect(ep.status).toBe(201);
      const stream = await SseClient.live(`${h.url}/api/stream/${ep.body.slug}`, { token: key.body.key });
      return { session: s.body.token, key: key.body.key, slug: ep.body.slug, stream };
    }

    async function registerByOtp(email: string): Promise<{ credential: string; codeMail: string }> {
      const codeMails = () => mailTo(h.server, email).filter((m) => /one-time code: \d{6}/.test(m.text));
      const before = codeMails().length;
      const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'helper bot' } });
      expect(r.status).toBe(201);
      const otp = await otpFor(h.server, email, before + 1);
      const codeMail = plain(codeMails().at(-1)?.text ?? '');
      const v = await call<{ credential: string }>(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: r.body.claim_token, otp } });
      expect(v.status).toBe(200);
      return { credential: v.body.credential, codeMail };
    }

    let jti = 0;
    async function registerByAssertion(email: string): Promise<string> {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: idp.url, sub: `sub-${email}`, aud: `${h.url}/api/`, client_id: 'ci-agent', jti: `jti-${email}-${++jti}`, iat: now, exp: now + 300, email, email_verified: true };
      const r = await call<{ credential: string }>(h.url, 'POST', '/api/agent/auth', { raw: await sign(claims, idpKey), headers: { 'content-type': 'application/jwt' } });
      expect(r.status).toBe(201);
      return r.body.credential;
    }

    async function expectTakenBack(email: string, squatter: Awaited<ReturnType<typeof preRegister>>, agentKey: string) {
      // The pre-registrant's session and key are refused, the stream on the key ended.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: squatter.session })).status).toBe(401);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: squatter.key })).status).toBe(401);
      await squatter.stream.until(() => squatter.stream.ended, 5_000);
      expect(squatter.stream.events.map((e) => e.event)).toEqual(['end']);
      expect(JSON.parse(squatter.stream.events[0]?.data ?? '')).toEqual({ reason: 'credential_revoked' });
      // The password no longer signs in (it was removed, not changed).
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email, password: PASSWORD } })).status).toBe(401);
      // The agent's key works, on the matched account (SPEC 4.8), now proven.
      const me = await call(h.url, 'GET', '/api/auth/me', { token: agentKey });
      expect(me.status).toBe(200);
      expect(me.body.email.toLowerCase()).toBe(email.toLowerCase());
      expect(me.body.emailVerified).toBe(true);
      const eps = await call(h.url, 'GET', '/api/endpoints', { token: agentKey });
      expect(eps.status).toBe(200);
      expect(eps.body.map((e) => e.slug)).toContain(squatter.slug);
      // The address is told what happened and how to set a password; never the key.
      const notice = await eventually(async () => mailTo(h.server, email).map((m) => plain(m.text)).find((t) => subjectOf(t) === RECOVERED_SUBJECT || t.includes('is now yours')), 10_000);
      expect(notice).toContain('its password was removed');
      expect(notice).toContain('API key was revoked');
      expect(notice).toContain(`${h.url}/forgot-password`);
      expect(notice).not.toContain(agentKey);
    }

    test('verified email: the code mail says what the code will do; using it takes the account back from the pre-registrant', async () => {
      const email = uniqueEmail('prereg-otp');
      const squatter = await preRegister(email);
      const { credential, codeMail } = await registerByOtp(email.toUpperCase());
      expect(codeMail).toContain(RECOVERY_WARNING);
      expect(codeMail).toContain('its password is removed');
      expect(codeMail).toContain(`${h.url}/forgot-password`);
      await expectTakenBack(email, squatter, credential);
    });

    test('identity assertion: the key is bound to the matched account, which is taken back from the pre-registrant', async () => {
      const email = uniqueEmail('prereg-idp');
      const squatter = await preRegister(email);
      const credential = await registerByAssertion(email);
      await expectTakenBack(email, squatter, credential);
    });

    test('after the recovery the owner sets a password through Forgot password; a second agent does not recover again', async () => {
      const email = uniqueEmail('prereg-then');
      const squatter = await preRegister(email);
      const first = await registerByAssertion(email);
      await expectTakenBack(email, squatter, first);
      expect((await call(h.url, 'POST', '/api/auth/password-reset', { body: { email } })).status).toBe(202);
      const { token } = await resetLink(h.server, email);
      const set = await call(h.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password: 'the owner chose this' } });
      expect(set.status).toBe(200);
      // A passwordless account keeps its keys through a reset: the agent's key stays.
      expect(set.body.revokedApiKeys).toBe(0);
      const { credential: second, codeMail } = await registerByOtp(email);
      expect(codeMail).not.toContain(RECOVERY_WARNING);
      expect(codeMail).toContain('The key will belong to your hookcap account');
      for (const key of [first, second]) expect((await call(h.url, 'GET', '/api/auth/me', { token: key })).status).toBe(200);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: set.body.token })).status).toBe(200);
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'the owner chose this' } })).status).toBe(200);
    });

    test('an account whose address is proven (a reset) keeps its password, sessions and keys when an agent registers', async () => {
      const email = uniqueEmail('proven');
      expect((await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: PASSWORD } })).status).toBe(201);
      expect((await call(h.url, 'POST', '/api/auth/password-reset', { body: { email } })).status).toBe(202);
      const { token } = await resetLink(h.server, email);
      const reset = await call(h.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password: 'owner password 1' } });
      expect(reset.status).toBe(200);
      expect(reset.body.user.emailVerified).toBe(true);
      const session = reset.body.token;
      const key = (await call(h.url, 'POST', '/api/api-keys', { token: session, body: { name: 'mine' } })).body.key;
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: key, body: { name: 'kept' } })).body;
      const stream = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: key });

      const { credential: byOtp } = await registerByOtp(email);
      const byAssertion = await registerByAssertion(email);
      for (const t of [session, key, byOtp, byAssertion]) {
        const me = await call(h.url, 'GET', '/api/auth/me', { token: t });
        expect(me.status).toBe(200);
        expect(me.body.emailVerified).toBe(true);
      }
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'owner password 1' } })).status).toBe(200);
      // The assertion's owner is told (no recovery: a plain notice), never with the key.
      const notice = await eventually(async () => mailTo(h.server, email).map((m) => plain(m.text)).find((t) => t.includes('was given a hookcap API key for this address, on the word of')), 10_000);
      expect(notice).toContain('"ci-agent"');
      expect(notice).not.toContain(byAssertion);
      expect(mailTo(h.server, email).map((m) => plain(m.text)).some((t) => t.includes('is now yours'))).toBe(false);
      expect(stream.ended).toBe(false);
      stream.close();
    });

    test('an address without an account gets one, proven and without a password; the code mail has no warning', async () => {
      const email = uniqueEmail('fresh');
      const { credential, codeMail } = await registerByOtp(email);
      expect(codeMail).not.toContain(RECOVERY_WARNING);
      const me = await call(h.url, 'GET', '/api/auth/me', { token: credential });
      expect(me.body.emailVerified).toBe(true);
      const fresh = uniqueEmail('fresh-idp');
      const key = await registerByAssertion(fresh);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: key })).body.emailVerified).toBe(true);
      // A provisioned account is not "an existing account": no notice (a later mail to the same inbox shows the sender caught up).
      await registerByOtp(fresh);
      expect(mailTo(h.server, fresh).map((m) => plain(m.text)).some((t) => t.includes(NOTICE_SUBJECT) || t.includes('on the word of'))).toBe(false);
    });
  },
  { ...AGENT_ENV, ...IDP_ENV },
);
