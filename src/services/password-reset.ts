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
import { deleteUserSessions, replaceReset, setPasswordHash, takeReset } from '../stores/state/password-resets';
import { hashNewPassword, startSession, type SessionResult } from './auth';
import type { Ctx } from './context';
import { consume, rateLimitHeaders } from './rate-limiter';


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
      `The link works once and expires in ${duration(ttl)}; asking again replaces it.`,
      'Setting a new password signs out every browser session of the account; API keys keep working.',
      'If you did not ask for this, ignore this message: your password stays as it is.',
    ].join('\n'),
  });
}

/** "30 minutes", "1 minute", "45 seconds". */
function duration(ms: number): string {
  const minutes = Math.round(ms / 60_000);
  if (minutes >= 1) return `${minutes} minute${minutes === 1 ? '' : 's'}`;
  const seconds = Math.max(1, Math.round(ms / 1000));
  return `${seconds} second${seconds === 1 ? '' : 's'}`;
}

/**
 * `POST /api/auth/password-reset/confirm`: sets the password (sign-up's rules and hashing), ends
 * every browser session of the account and starts a new one. The token is deleted in the same
 * transaction, so of two uses at once exactly one succeeds.
 */
export async function confirmReset(ctx: Ctx, input: { token: string; password: string }): Promise<SessionResult> {
  if (!TOKEN_FORMAT.test(input.token)) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  // Before the token is taken: a refused password leaves the link usable for another try.
  const passwordHash = await hashNewPassword(input.password);
  const tokenHash = hashResetToken(input.token, await ctx.secrets.codeHmac());
  const user = await inTransaction(ctx.db, async (tx) => {
    const reset = await takeReset(tx, tokenHash);
    // An expired token is deleted all the same (the transaction commits), and refused.
    if (!reset || reset.expiresAt <= ctx.clock.now()) return null;
    const updated = await setPasswordHash(tx, reset.userId, passwordHash);
    if (updated) await deleteUserSessions(tx, updated.id);
    return updated;
  });
  if (!user) throw new AppError('invalid_reset_token', INVALID_TOKEN);
  log.info('password reset', { userId: user.id });
  return startSession(ctx, user);
}
