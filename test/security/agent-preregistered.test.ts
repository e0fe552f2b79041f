/**
 * Sign-up does not verify addresses, so an account with a password may have been made by someone
 * who does not own the mailbox. The verified-email agent flow binds its key to that account: the
 * mailed code must warn the mailbox's owner before they use it, and say how to take the account
 * back (password reset). The answer to the agent is the same either way. Real HTTP, real mail
 * outbox (no SMTP_URL), both backends. The binding itself is an open finding (docs/security.md).
 */
import { afterAll, expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from '../behaviour/agent-support';
import { makeKey, sign, TestIdp } from '../support/idp';

const { SMTP_URL: _smtp, ...WITHOUT_SMTP } = AGENT_ENV;

const idpKey = await makeKey('ES256', 'prereg-1');
const idp = TestIdp.start();
idp.publish(idpKey);
afterAll(() => idp.stop());
const IDP_ENV = { AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: idp.url }]), AGENT_ALLOW_INSECURE_ISSUERS: 'true' };

interface Mail {
  to: string;
  subject: string;
  text: string;
}

const WARNING = 'This address already has a hookcap account with a password';
const NOTICE = 'An AI agent was given a key to your hookcap account';

describeBackends(
  'verified-email agent code for an address that already has an account',
  (h) => {
    const mailTo = (email: string) =>
      eventually(async () => {
        const file = join(h.server.dataDir, 'outbox.jsonl');
        if (!existsSync(file)) return undefined;
        return readFileSync(file, 'utf8')
          .split('\n')
          .filter(Boolean)
          .map((l) => JSON.parse(l) as Mail)
          .find((m) => m.to === email);
      });
    const register = (email: string) => call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'helper bot' } });

    test('the code mail warns that the key joins an existing password account, and says to reset its password first', async () => {
      const email = uniqueEmail('prereg');
      expect((await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'someone else knows this' } })).status).toBe(201);
      const r = await register(email.toUpperCase());
      expect(r.status).toBe(201);
      const mail = await mailTo(email.toUpperCase());
      expect(mail.text).toContain('one-time code:');
      expect(mail.text).toContain(WARNING);
      expect(mail.text).toContain(`${h.url}/forgot-password`);
    });

    test('an address without an account gets no warning; the answer has the same fields either way', async () => {
      const fresh = uniqueEmail('fresh');
      const withAccount = uniqueEmail('has-account');
      await call(h.url, 'POST', '/api/auth/signup', { body: { email: withAccount, password: 'correct horse battery' } });
      const a = await register(fresh);
      const b = await register(withAccount);
      expect(a.status).toBe(201);
      expect(Object.keys(a.body as object).sort()).toEqual(Object.keys(b.body as object).sort());
      expect((await mailTo(fresh)).text).not.toContain(WARNING);
    });

    const assertion = (email: string) => {
      const now = Math.floor(Date.now() / 1000);
      const claims = { iss: idp.url, sub: `sub-${email}`, aud: `${h.url}/api/`, client_id: 'ci-agent', jti: `jti-${email}`, iat: now, exp: now + 300, email, email_verified: true };
      return sign(claims, idpKey);
    };
    const postAssertion = async (email: string) =>
      call(h.url, 'POST', '/api/agent/auth', { raw: await assertion(email), headers: { 'content-type': 'application/jwt' } });
    const mailsTo = (email: string) => {
      const file = join(h.server.dataDir, 'outbox.jsonl');
      if (!existsSync(file)) return [];
      return readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as Mail)
        .filter((m) => m.to.toLowerCase() === email.toLowerCase());
    };

    test('an identity assertion binding a key to an existing password account mails the address a notice after the answer', async () => {
      const email = uniqueEmail('prereg-idp');
      expect((await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'someone else knows this' } })).status).toBe(201);
      const r = await postAssertion(email);
      expect(r.status).toBe(201);
      const mail = await eventually(async () => mailsTo(email).find((m) => m.subject === NOTICE));
      expect(mail.text).toContain('"ci-agent"');
      expect(mail.text).toContain(idp.url);
      expect(mail.text).toContain(`${h.url}/forgot-password`);
      expect(mail.text).not.toContain((r.body as { credential: string }).credential);
    });

    test('an assertion that provisions a new account (no password) sends no notice', async () => {
      const email = uniqueEmail('fresh-idp');
      expect((await postAssertion(email)).status).toBe(201);
      // The notice would be sent right after the answer; a later mail to another address shows the outbox has caught up.
      const marker = uniqueEmail('marker');
      await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email: marker, client_name: 'marker' } });
      await mailTo(marker);
      expect(mailsTo(email)).toEqual([]);
    });
  },
  { ...WITHOUT_SMTP, ...IDP_ENV },
);
