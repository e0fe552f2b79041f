/**
 * Reading password-reset links from the mail the server really sent (the SMTP sink when the server
 * backend is under test, else the outbox), for the API and browser suites.
 */
import type { TestServer } from '../support/server';
import { call, eventually } from '../support/client';
import { mailTo, signUp, uniqueEmail } from './agent-support';

/** Undoes quoted-printable escapes (`=3D` is `=`); soft line breaks are already joined. */
const unQuote = (text: string) => text.replace(/=([0-9A-F]{2})/g, (_m, hex: string) => String.fromCharCode(Number.parseInt(hex, 16)));

const LINK = /(https?:\/\/\S+\/reset-password#token=(rst_[A-Za-z0-9_-]{43}))/;

/** Every reset link mailed to `to`, in order. */
export function resetLinks(server: Pick<TestServer, 'dataDir'>, to: string): { link: string; token: string }[] {
  return mailTo(server, to)
    .map((m) => LINK.exec(unQuote(m.text)))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ link: m[1] ?? '', token: m[2] ?? '' }));
}

const VERIFY_LINK = /(https?:\/\/\S+\/verify-email#token=(evf_[A-Za-z0-9_-]{43}))/;

/** Every address-verification link mailed to `to`, in order. */
export function verificationLinks(server: Pick<TestServer, 'dataDir'>, to: string): { link: string; token: string }[] {
  return verificationLinksIn(mailTo(server, to));
}

/** The address-verification links in these mails, in order (for suites that read mail their own way). */
export function verificationLinksIn(mails: { text: string }[]): { link: string; token: string }[] {
  return mails
    .map((m) => VERIFY_LINK.exec(unQuote(m.text)))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ link: m[1] ?? '', token: m[2] ?? '' }));
}

/** The link of the `count`-th verification mail to `to` (1 = sign-up's), waiting for it to arrive. */
export async function verificationLink(server: Pick<TestServer, 'dataDir'>, to: string, count = 1): Promise<{ link: string; token: string }> {
  return eventually(async () => verificationLinks(server, to)[count - 1] ?? null, 10_000);
}

/** The link of the `count`-th reset mail to `to` (1 = the first), waiting for it to arrive. */
export async function resetLink(server: Pick<TestServer, 'dataDir'>, to: string, count = 1): Promise<{ link: string; token: string }> {
  return eventually(async () => resetLinks(server, to)[count - 1] ?? null, 10_000);
}

/**
 * A signed-up account whose address is proven (by a password reset, so before the sign-up link
 * existed as well): an agent's proof of its mailbox then binds as it always did, with no recovery.
 * Answers the reset's session (the sign-up's ended with the reset); waits for the reset's notice,
 * so later mail to the address arrives after it.
 */
export async function signUpProven(server: Pick<TestServer, 'dataDir' | 'url'>, email = uniqueEmail('proven')): Promise<{ session: string; email: string; userId: string }> {
  const human = await signUp(server.url, email);
  const asked = await call(server.url, 'POST', '/api/auth/password-reset', { body: { email } });
  if (asked.status !== 202) throw new Error(`reset request failed: ${asked.status} ${asked.text}`);
  const { token } = await resetLink(server, email);
  const done = await call(server.url, 'POST', '/api/auth/password-reset/confirm', { body: { token, password: 'correct horse battery' } });
  if (done.status !== 200) throw new Error(`reset failed: ${done.status} ${done.text}`);
  await eventually(async () => mailTo(server, email).some((m) => unQuote(m.text).includes('changed through a password-reset link')), 10_000);
  return { session: done.body.token, email, userId: human.userId };
}
