/**
 * The sign-up verification link (docs/security.md, "Proving the address"): sign-up mails a
 * single-use link; `POST /api/auth/verify-email {token}` marks the address proven; the Account
 * page's resend replaces it. Real HTTP, real mail (SMTP sink or outbox), both backends; the
 * service runs in-process so expiry is a clock step.
 */
import { expect, test } from 'bun:test';
import { call, type ErrorFields } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, mailTo, signUp, uniqueEmail } from './agent-support';
import { verificationLink, verificationLinks } from './password-reset-support';

const TTL_MS = 48 * 3_600_000;

describeInProcess(
  'address verification after sign-up',
  (h) => {
    const verify = (token: string) => call(h.url, 'POST', '/api/auth/verify-email', { body: { token } });
    const resend = (session: string) => call(h.url, 'POST', '/api/account/verify-email', { token: session });
    const verified = async (session: string) => (await call(h.url, 'GET', '/api/auth/me', { token: session })).body.emailVerified;
    const expectBadLink = (r: Awaited<ReturnType<typeof verify>>) => {
      expect(r.status).toBe(400);
      expect(r.headers.get('content-type') ?? '').toContain('application/json');
      expect(r.body.code).toBe('invalid_verification_token');
      expect(r.body.error).toContain('invalid or has expired');
    };

    test('sign-up mails a link; using it (no session) marks the address proven, once', async () => {
      const email = uniqueEmail('Verify.Me');
      const up = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
      expect(up.status).toBe(201);
      expect(up.body.user.emailVerified).toBe(false);
      expect(await verified(up.body.token)).toBe(false);
      const { link, token } = await verificationLink(h.server, email);
      expect(link).toBe(`${h.url}/verify-email#token=${token}`);
      const mail = mailTo(h.server, email).find((m) => m.text.includes('verify-email#'))?.text ?? '';
      expect(mail).toContain('expires in 48 hours');
      expect(mail).toContain('If you did not create a hookcap account');

      const ok = await verify(token);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual({ email, emailVerified: true });
      expect(ok.headers.get('set-cookie')).toBeNull();
      expect(await verified(up.body.token)).toBe(true);
      expectBadLink(await verify(token));
      // A proven address needs no new link.
      const again = await resend(up.body.token);
      expect(again.status).toBe(409);
      expect(again.body.code).toBe('conflict');
    });

    test('unknown, malformed and missing tokens are a clear 400, never a 500', async () => {
      expectBadLink(await verify(`evf_${'A'.repeat(43)}`));
      expectBadLink(await verify('evf_short'));
      expectBadLink(await verify(`rst_${'A'.repeat(43)}`));
      const missing = await call<ErrorFields>(h.url, 'POST', '/api/auth/verify-email', { body: {} });
      expect(missing.status).toBe(400);
      expect(missing.body.code).toBe('validation');
      const form = await call<ErrorFields>(h.url, 'POST', '/api/auth/verify-email', { raw: 'token=x', headers: { 'content-type': 'application/x-www-form-urlencoded' } });
      expect(form.status).toBe(415);
    });

    test('a resend replaces the older link; the new one works', async () => {
      const human = await signUp(h.url, uniqueEmail('resend'));
      const first = await verificationLink(h.server, human.email);
      const r = await resend(human.session);
      expect(r.status).toBe(202);
      expect(r.body).toEqual({ message: expect.stringContaining(human.email), email: human.email });
      const second = await verificationLink(h.server, human.email, 2);
      expect(second.token).not.toBe(first.token);
      expect(mailTo(h.server, human.email).filter((m) => m.text.includes('verify-email#')).at(-1)?.text).toContain('You asked for a new link');
      expectBadLink(await verify(first.token));
      expect((await verify(second.token)).status).toBe(200);
      expect(await verified(human.session)).toBe(true);
    });

    test('a link past EMAIL_VERIFY_TTL_MS is refused and spent', async () => {
      const human = await signUp(h.url, uniqueEmail('late'));
      const { token } = await verificationLink(h.server, human.email);
      h.clock.advance(TTL_MS + 1);
      expectBadLink(await verify(token));
      expect(await verified(human.session)).toBe(false);
    });

    test('the resend is for a browser session only (an API key gets 403) and is limited per account', async () => {
      const human = await signUp(h.url, uniqueEmail('limits'));
      const key = (await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: {} })).body.key;
      expect((await resend(key)).status).toBe(403);
      expect((await call(h.url, 'POST', '/api/account/verify-email')).status).toBe(401);
      // RATE_LIMIT_RESET_EMAIL is 2/3600 in this suite.
      expect((await resend(human.session)).status).toBe(202);
      expect((await resend(human.session)).status).toBe(202);
      const limited = await resend(human.session);
      expect(limited.status).toBe(429);
      expect(Number(limited.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(verificationLinks(h.server, human.email).length).toBeLessThanOrEqual(3);
    });
  },
  { ...AGENT_ENV, RATE_LIMIT_RESET_EMAIL: '2/3600' },
);
