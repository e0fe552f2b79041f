import { describe, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createMailer, OUTBOX_FILE } from '../../src/mail';
import { BACKENDS } from '../support/backends';
import { eventually } from '../support/client';
import { freePort } from '../support/server';

const SINK_URL = process.env.TEST_SMTP_URL ?? 'smtp://127.0.0.1:2525';
const SINK_FILE = process.env.SMTP_SINK_FILE ?? '/tmp/hookcap-smtp-sink.jsonl';

describe('mail: outbox (no SMTP_URL)', () => {
  test('appends one JSON line per message, readable only by the owner', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-mail-'));
    try {
      const mailer = createMailer({ smtpUrl: null, mailFrom: 'hookcap <no-reply@localhost>', dataDir: dir });
      expect(mailer.kind).toBe('outbox');
      await mailer.sendMail({ to: 'a@example.com', subject: 'One', text: 'first\nsecond line' });
      await mailer.sendMail({ to: 'b@example.com', subject: 'Two', text: 'x' });
      const file = join(dir, OUTBOX_FILE);
      const lines = readFileSync(file, 'utf8').trim().split('\n').map((l) => JSON.parse(l));
      expect(lines).toHaveLength(2);
      expect(lines[0]).toMatchObject({ to: 'a@example.com', subject: 'One', text: 'first\nsecond line', from: 'hookcap <no-reply@localhost>' });
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('refuses several recipients and header injection', async () => {
    const mailer = createMailer({ smtpUrl: null, mailFrom: 'x <x@localhost>', dataDir: tmpdir() });
    for (const to of ['a@example.com, b@example.com', 'a@example.com;b@example.com', 'Ada <a@example.com>', 'a@example.com\r\nBcc: b@example.com', '']) {
      await expect(mailer.sendMail({ to, subject: 's', text: 't' })).rejects.toThrow();
    }
    await expect(mailer.sendMail({ to: 'a@example.com', subject: 'x\r\nBcc: b@example.com', text: 't' })).rejects.toThrow();
  });
});

describe('mail: SMTP', () => {
  test('a refused connection is an error, not a hang', async () => {
    const port = await freePort();
    const mailer = createMailer({ smtpUrl: `smtp://127.0.0.1:${port}`, mailFrom: 'x <x@localhost>', dataDir: tmpdir() });
    expect(mailer.kind).toBe('smtp');
    await expect(mailer.sendMail({ to: 'a@example.com', subject: 's', text: 't' })).rejects.toThrow();
  });

  // The sink is one of the services scripts/services.sh brings up with the server backend.
  test.skipIf(!BACKENDS.includes('server'))('delivers to a real SMTP server: headers, UTF-8 and dot-stuffing intact', async () => {
    const to = `smtp-unit-${Date.now()}@example.com`;
    const mailer = createMailer({ smtpUrl: SINK_URL, mailFrom: 'hookcap <no-reply@localhost>', dataDir: tmpdir() });
    await mailer.sendMail({ to, subject: 'Grüße', text: 'line one\n.\nline three: 123456' });
    const message = await eventually(async () =>
      readFileSync(SINK_FILE, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { mail_from: string; rcpt_tos: string[]; data: string })
        .find((m) => m.rcpt_tos.includes(to)),
    );
    expect(message.mail_from).toBe('no-reply@localhost');
    expect(message.data).toContain('Subject: =?UTF-8?');
    expect(message.data).toContain('line one\r\n.\r\nline three: 123456');
    await mailer.close();
  });
});
