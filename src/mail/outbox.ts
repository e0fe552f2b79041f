/**
 * The development outbox, used when SMTP_URL is not set: each message is appended as one JSON line
 * to DATA_DIR/outbox.jsonl. Its text (one-time codes among it) is written to the log only when
 * `showText` is set, which createMailer does when stderr is a terminal: a developer running
 * `npm start` reads the code where they look, while a container, a systemd unit or CI, whose log
 * is collected and kept, gets one line naming the file. Never used when SMTP is configured.
 */
import { appendFile, mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { log } from '../log';
import { assertSafeMessage, type Mailer } from './types';

export function createOutboxMailer(opts: { file: string; from: string; showText?: boolean }): Mailer {
  return {
    kind: 'outbox',
    async sendMail(message) {
      assertSafeMessage(message);
      const line = JSON.stringify({ at: new Date().toISOString(), from: opts.from, ...message });
      await mkdir(dirname(opts.file), { recursive: true });
      // 0600: the outbox holds one-time codes; only the service user should read it.
      await appendFile(opts.file, `${line}\n`, { mode: 0o600 });
      if (opts.showText) log.info('mail written to the outbox (no SMTP_URL)', { file: opts.file, ...message });
      else log.info('mail written to the outbox (no SMTP_URL); its text is in the file', { file: opts.file, to: message.to, subject: message.subject });
    },
    async close() {},
  };
}
