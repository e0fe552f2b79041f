/** What the rest of the service needs from mail: one plain-text message to one address. */
export interface MailMessage {
  /** One address; lists and display names are refused (see assertSingleAddress). */
  to: string;
  subject: string;
  text: string;
}

export interface Mailer {
  /** 'smtp' when SMTP_URL is set, else 'outbox' (a file under DATA_DIR, and the log). */
  readonly kind: 'smtp' | 'outbox';
  /** Resolves once the message is handed over (SMTP server accepted it, or outbox line written). */
  sendMail(message: MailMessage): Promise<void>;
  close(): Promise<void>;
}

/**
 * Refuses anything that could turn one message into several or rewrite headers: a comma or
 * semicolon would add recipients, and CR/LF would inject header lines.
 */
export function assertSafeMessage(message: MailMessage): void {
  if (!/^[^\s@,;<>"]+@[^\s@,;<>"]+$/.test(message.to)) throw new Error('mail: "to" must be exactly one plain address');
  if (/[\r\n]/.test(message.subject)) throw new Error('mail: subject must be one line');
}
