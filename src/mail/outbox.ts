/**
 * The development outbox, used when SMTP_URL is not set: each message is appended as one JSON line
 * to DATA_DIR/outbox.jsonl and written to the log, so a developer can read one-time codes without
 * a mail server. Never used when SMTP is configured.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { log } from '../log';
import { assertSafeMessage, type Mailer } from './types';

export function createOutboxMailer(opts: { file: string; from: string }): Mailer {
  return {
    kind: 'outbox',
    async sendMail(message) {
      assertSafeMessage(message);
      const line = JSON.stringify({ at: new Date().toISOString(), from: opts.from, ...message });
      await mkdir(dirname(opts.file), { recursive: true });
      // 0600: the outbox holds one-time codes; only the service user should read it.
      await appendFile(opts.file, `${line}\n`, { mode: 0o600 });
      log.info('mail written to the outbox (no SMTP_URL)', { file: opts.file, ...message });
    },
    async close() {},
  };
}
