/**
 * Outgoing mail over SMTP (SMTP_URL), through nodemailer: it speaks STARTTLS, AUTH, dot-stuffing
 * and header encoding correctly, which a hand-rolled client would have to re-prove.
 */
import nodemailer from 'nodemailer';
import { assertSafeMessage, type Mailer } from './types';

export interface SmtpOptions {
  /** smtp://user:pw@host:port (STARTTLS when offered) or smtps://… (TLS from the start). */
  url: string;
  from: string;
  /** Bounds each phase, so a dead server fails a request instead of hanging it. */
  timeoutMs?: number;
}

export function createSmtpMailer(opts: SmtpOptions): Mailer {
  const timeout = opts.timeoutMs ?? 10_000;
  const transport = nodemailer.createTransport({
    url: opts.url,
    connectionTimeout: timeout,
    greetingTimeout: timeout,
    socketTimeout: timeout * 2,
  });
  return {
    kind: 'smtp',
    async sendMail(message) {
      assertSafeMessage(message);
      await transport.sendMail({ from: opts.from, to: message.to, subject: message.subject, text: message.text });
    },
    async close() {
      transport.close();
    },
  };
}
