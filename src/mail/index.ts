/**
 * The one way the service sends mail: `createMailer(config).sendMail({to, subject, text})`.
 * SMTP when SMTP_URL is set, otherwise the development outbox (DATA_DIR/outbox.jsonl; the text
 * also in the log when stderr is a terminal, see outbox.ts).
 *
 * @example
 * const mailer = createMailer(config);
 * await mailer.sendMail({ to: 'ada@example.com', subject: 'Your code', text: 'Code: 123456' });
 */
import { join } from 'node:path';
import type { Config } from '../config';
import { log } from '../log';
import { createOutboxMailer } from './outbox';
import { createSmtpMailer } from './smtp';
import type { Mailer } from './types';

export type { Mailer, MailMessage } from './types';

export const OUTBOX_FILE = 'outbox.jsonl';

/** Whether the outbox writes each mail's text to the log: only for a person watching a terminal. */
export function outboxShowsText(): boolean {
  return process.stderr.isTTY === true;
}

export function createMailer(config: Pick<Config, 'smtpUrl' | 'mailFrom' | 'dataDir'>, opts: { showText?: boolean } = {}): Mailer {
  return config.smtpUrl
    ? createSmtpMailer({ url: config.smtpUrl, from: config.mailFrom })
    : createOutboxMailer({ file: join(config.dataDir, OUTBOX_FILE), from: config.mailFrom, showText: opts.showText ?? outboxShowsText() });
}

const LOCAL_HOSTS = new Set(['localhost', '127.0.0.1', '[::1]']);

/**
 * Once at start: an API node (the role that sends mail) without SMTP_URL whose BASE_URL is not a
 * local address is most likely deployed with SMTP_URL forgotten. Its mail reaches nobody.
 */
export function warnIfOutboxDeployed(config: Pick<Config, 'smtpUrl' | 'dataDir' | 'baseUrl' | 'roles'>): void {
  if (config.smtpUrl || !config.roles.has('api')) return;
  const host = new URL(config.baseUrl).hostname;
  if (LOCAL_HOSTS.has(host) || host.endsWith('.localhost')) return;
  log.warn('no SMTP_URL: mail (password-reset links, team invites, agents\' one-time codes) is not sent; it is written to the outbox file. Set SMTP_URL', {
    file: join(config.dataDir, OUTBOX_FILE),
    baseUrl: config.baseUrl,
  });
}
