/**
 * A verified_email registration whose one-time code cannot be mailed: the agent is told to retry
 * (503 temporarily_unavailable, Retry-After), and the server logs the failure once, on the 503's
 * warning line, with what an operator needs (the mailer, its error, the recipient's domain) and
 * nothing of the code or the address (docs/security.md, "Log redaction"). It used to log two lines
 * for one failure: "could not send the one-time code" where the mail failed, then the 503's own.
 */
import { afterAll, expect, test } from 'bun:test';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, uniqueEmail } from './agent-support';

// An SMTP server that refuses every session at its greeting, as one out of service does.
const refusingSmtp = Bun.listen({
  hostname: '127.0.0.1',
  port: 0,
  socket: {
    open(socket) {
      socket.write('554 5.3.2 hookcap test: not accepting mail\r\n');
      socket.end();
    },
    data() {},
  },
});
afterAll(() => refusingSmtp.stop(true));

type LogLine = Record<string, unknown> & { level: string; msg: string };

describeBackends(
  'agent email: a mail server that refuses',
  (h) => {
    test('503 temporarily_unavailable with Retry-After, and one warning line naming the mailer, its error and the domain', async () => {
      const email = uniqueEmail('mail-refused');
      const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'mail-refused-bot' } });
      expectAgentError(r, 503, 'temporarily_unavailable');
      expect(r.headers.get('retry-after')).toBe('30');
      expect(r.body.error_description).toBe('the one-time code could not be sent; retry later');

      const lines = () =>
        h.server
          .output()
          .split('\n')
          .filter((l) => l.startsWith('{'))
          .map((l) => JSON.parse(l) as LogLine);
      const about = await eventually(async () => {
        const found = lines().filter((l) => JSON.stringify(l).includes('one-time code'));
        return found.length > 0 && found;
      });
      // Give a second line, if one were coming, time to arrive.
      await Bun.sleep(300);
      const all = lines().filter((l) => JSON.stringify(l).includes('one-time code') || JSON.stringify(l).includes('not accepting mail'));
      expect(all).toHaveLength(1);
      expect(about[0]).toMatchObject({
        level: 'warn',
        msg: 'request refused for now; the caller may retry',
        code: 'temporarily_unavailable',
        error: 'the one-time code could not be sent; retry later',
        mailer: 'smtp',
        recipientDomain: 'example.com',
      });
      expect(String(about[0]?.mailError)).toContain('554 5.3.2 hookcap test: not accepting mail');
      // Neither the address nor a code: the registration is removed and no code was ever shown.
      expect(h.server.output()).not.toContain(email);
      expect(h.server.output()).not.toMatch(/one-time code: \d{6}/);
      // No half-done registration is left waiting: a retry is a fresh start that fails alike.
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'mail-refused-bot' } }), 503, 'temporarily_unavailable');
    });
  },
  { ...AGENT_ENV, SMTP_URL: `smtp://127.0.0.1:${refusingSmtp.port}`, LOG_LEVEL: 'info' },
);
