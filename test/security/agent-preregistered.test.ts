/**
 * Sign-up does not verify addresses, so an account with a password may have been made by someone
 * who does not own the mailbox. The verified-email agent flow binds its key to that account: the
 * mailed code must warn the mailbox's owner before they use it, and say how to take the account
 * back (password reset). The answer to the agent is the same either way. Real HTTP, real mail
 * outbox (no SMTP_URL), both backends. The binding itself is an open finding (docs/security.md).
 */
import { expect, test } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from '../behaviour/agent-support';

const { SMTP_URL: _smtp, ...WITHOUT_SMTP } = AGENT_ENV;

interface Mail {
  to: string;
  subject: string;
  text: string;
}

const WARNING = 'This address already has a hookcap account with a password';

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
  },
  WITHOUT_SMTP,
);
