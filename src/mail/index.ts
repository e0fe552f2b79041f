/**
 * The one way the service sends mail: `createMailer(config).sendMail({to, subject, text})`.
 * SMTP when SMTP_URL is set, otherwise the development outbox (DATA_DIR/outbox.jsonl and the log).
 *
 * @example
 * const mailer = createMailer(config);
 * await mailer.sendMail({ to: 'ada@example.com', subject: 'Your code', text: 'Code: 123456' });
 */
import { join } from 'node:path';
import type { Config } from '../config';
import { createOutboxMailer } from './outbox';
import { createSmtpMailer } from './smtp';
import type { Mailer } from './types';

export type { Mailer, MailMessage } from './types';

export const OUTBOX_FILE = 'outbox.jsonl';

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>): Mailer {
  return config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
    : createOutboxMailer({ file: join(config.dataDir, OUTBOX_FILE), from: config.mailFrom });
}
