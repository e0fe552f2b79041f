/**
 * Password reset (docs/security.md, "Password reset"): `requestReset` mails a single-use link to
 * the account of an address, `confirmReset` takes the link's token and a new password.
 *
 * Whether an account exists is never told: the request answers the same, after the same work
 * (address check and per-address limit), and the lookup, the token and the mail happen after the
 * answer. The token (`rst_` + 256 random bits) travels only in the link's fragment, so it is not
 * sent to the server by the page load, nor in a Referer; only its HMAC (keyed by the server
 * secret) is stored, one per account, so a newer request replaces the older token.
 */
import { createHmac } from 'node:crypto';
import { paths } from '../../web/src/paths';
import { AppError } from '../errors';
import { secretToken, sha256Hex } from '../ids';
import { log } from '../log';
import { isWellFormedEmail } from '../model/email';
import { secondsUntil } from '../model/usage';
import * as accounts from '../stores/state/accounts';
import { inTransaction } from '../stores/state/db';
import { announceRevoked } from './credential-revocation';
import { markAddressProven } from '../stores/state/address-proof';
import { deleteUserSessions, findResetEmail, lockUserRow, replaceReset, revokeUserKeys, setPasswordHash, takeReset } from '../stores/state/password-resets';
import { hashNewPassword, startSession, type SessionResult } from './auth';
import type { Ctx } from './context';
import { consume, rateLimitHeaders } from './rate-limiter';
import { durationWords } from '../mail/duration-words';

const TOKEN_FORMAT = /^rst_[A-Za-z0-9_-]{43}$/;

/** One message for an unknown, used, replaced or expired token: none of them tells more. */
const INVALID_TOKEN = 'this password-reset link is invalid or has expired; ask for a new one';

/** The same answer for every well-formed address, account or not. */
export const REQUEST_ACCEPTED = 'If an account exists for this address, a link to reset its password is on its way.';

/** HMAC-SHA256 (hex) of a reset token, keyed by the server secret, in its own domain. */
export function hashResetToken(token: string, secret: string): string {
  return createHmac('sha256', secret).update(`hookcap-password-reset-v1\n${token}`).digest('hex');
}

/** `POST /api/auth/password-reset`: 202 whatever the address; the mail goes out after the answer. */
export async function requestReset(ctx: Ctx, input: { email: string }): Promise<{ message: string }> {
  const email = input.email.trim();
  if (!isWellFormedEmail(email)) throw new AppError('validation', 'email is not a valid address');
  await limitRequestsFor(ctx, email);
  // Not awaited: the answer must not wait for (and so time) the lookup, the insert and the mail.
  ctx.background.run(`could not send a password-reset link (${ctx.mailer.kind})`, () => sendResetLink(ctx, email));
  return { message: REQUEST_ACCEPTED };
}

/**
 * Requests per address (RATE_LIMIT_RESET_EMAIL), counted by the address's hash whether an account
 * exists or not, so a 429 tells nothing either; it bounds the mail one inbox can be sent.
 */
async function limitRequestsFor(ctx: Ctx, email: string): Promise<void> {
  const rule = ctx.config.rateLimits.resetEmail;
  if (!rule) return;
  const outcome = await consume(ctx, `password-reset-email:${sha256Hex(email.toLowerCase())}`, rule);
  if (outcome.allowed) return;
  const wait = secondsUntil(outcome.resetAt, ctx.clock.now());
  throw new AppError('rate_limited_api', `too many password-reset requests for this address; retry in ${wait} s`, {
    ...rateLimitHeaders(outcome),
    'retry-after': String(wait),
  });
}

async function sendResetLink(ctx: Ctx, email: string): Promise<void> {
  const user = await accounts.findUserByEmail(ctx.db, email);
  if (!user) return;
  const token = secretToken('rst');
  const now = ctx.clock.now();
  const ttl = ctx.config.passwordResetTtlMs;
  await replaceReset(ctx.db, { userId: user.id, tokenHash: hashResetToken(token, await ctx.secrets.codeHmac()), createdAt: now, expiresAt: now + ttl });
  await ctx.mailer.sendMail({
    // The account's own address, not the spelling that was typed.
    to: user.email,
    subject: 'Reset your hookcap password',
    text: [
      'Someone (hopefully you) asked to reset the password of the hookcap account for this address.',
      '',
      'Choose a new password here:',
      `${ctx.config.baseUrl}${paths.resetPassword}#token=${token}`,
      '',
      `The link works once and expires in ${durationWords(ttl)}; asking again replaces it.`,
      user.passwordHash === null
        ? 'Setting a password signs out every browser session of the account; its API keys keep working.'
        : 'Setting a new password signs out every browser session of the account and revokes all its API keys.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n'),
  });
}

/**
 * `POST /api/auth/password-reset/account`: the address of the account a link belongs to, without
 * using the link, so the page can name it (and ask before switching a signed-in browser to it).
 * Whoever holds the token has the mail sent to that address: this tells them nothing new.
 */
export async function resetAccount(ctx: Ctx, input: { token: string }): Promise<{ email: string }> {
  if (!TOKEN_FORMAT.test(input.token)) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  const email = await findResetEmail(ctx.db, hashResetToken(input.token, await ctx.secrets.codeHmac()), ctx.clock.now());
  if (email === null) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  return { email };
}

/** What a reset answers: the new session (naming the account) and how many API keys it revoked. */
export interface ResetResult extends SessionResult {
  revokedApiKeys: number;
}

/**
 * `POST /api/auth/password-reset/confirm`: sets the password (sign-up's rules and hashing), ends
 * every browser session of the account and starts a new one, in one transaction that also deletes
 * the token (so of two uses at once exactly one succeeds).
 *
 * When the account had a password before (a recovery: whoever knew it, or pre-registered the
 * address, since sign-up does not verify it, may hold keys), every API key is revoked in the same
 * transaction. An account that had none was made by an agent through a proven address or an
 * identity assertion: its keys are that agent's, and stay. Either way the address is marked
 * proven (the link came by mail to it). A "your password was changed" mail
 * goes to the account's address after the answer.
 */
export async function confirmReset(ctx: Ctx, input: { token: string; password: string }): Promise<ResetResult> {
  if (!TOKEN_FORMAT.test(input.token)) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  // Before the token is taken: a refused password leaves the link usable for another try.
  const passwordHash = await hashNewPassword(input.password);
  const tokenHash = hashResetToken(input.token, await ctx.secrets.codeHmac());
  const out = await inTransaction(ctx.db, async (tx) => {
    const reset = await takeReset(tx, tokenHash);
    // An expired token is deleted all the same (the transaction commits), and refused.
    if (!reset || reset.expiresAt <= ctx.clock.now()) return null;
    const before = await lockUserRow(tx, reset.userId);
    if (!before) return null;
    // The link was mailed to the account's address: using it proves the mailbox.
    if (!(await setPasswordHash(tx, before.id, passwordHash))) return null;
    const updated = await markAddressProven(tx, before.id, ctx.clock.now());
    if (!updated) return null;
    await deleteUserSessions(tx, updated.id);
    const revokedApiKeys = before.passwordHash === null ? 0 : await revokeUserKeys(tx, updated.id, ctx.clock.now());
    // In the same transaction: a reset committing later ends this session too.
    const session = await startSession(ctx, updated, tx);
    return { ...session, revokedApiKeys };
  });
  if (!out) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  // After the commit: streams opened with the ended sessions or revoked keys end on every node.
  announceRevoked(ctx.bus, [out.user.id]);
  // Not `revokedApiKeys`: a field name ending in apiKeys is masked by the log's redaction (src/log.ts).
  log.info('password reset', { userId: out.user.id, apiKeysRevoked: out.revokedApiKeys });
  const to = out.user.email;
  ctx.background.run(`could not send a password-changed notice (${ctx.mailer.kind})`, () => sendChangedNotice(ctx, to, out.revokedApiKeys));
  return out;
}

/** The notice after a reset: no token, no link that signs in; says what ended and what to do if it was not you. */
async function sendChangedNotice(ctx: Ctx, to: string, revokedApiKeys: number): Promise<void> {
  await ctx.mailer.sendMail({
    to,
    subject: 'Your hookcap password was changed',
    text: [
      'The password of the hookcap account for this address was just changed through a password-reset link.',
      'Every browser session of the account was signed out.',
      revokedApiKeys > 0
        ? `${keysPhrase(revokedApiKeys)} revoked; create new ones in Settings.`
        : 'No API key was revoked.',
      '',
      'If you did not do this, ask for a new reset link right away and set a password only you know:',
      `${ctx.config.baseUrl}${paths.forgotPassword}`,
    ].join('\n'),
  });
}

/** "Your API key was" / "Your 2 API keys were". */
export const keysPhrase = (n: number) => (n === 1 ? 'Your API key was' : `Your ${n} API keys were`);
