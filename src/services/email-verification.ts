/**
 * The sign-up verification link (docs/security.md, "Proving the address"). Sign-up mails the new
 * account's address a single-use link, `${BASE_URL}/verify-email#token=evf_…`; using it marks the
 * address proven (`users.email_verified_at`), if the account still has the address the link was
 * made for. A signed-in account may ask for it again (`resendVerification`), which replaces the
 * older link.
 *
 * The token (`evf_` + 256 random bits) travels only in the link's fragment, like a reset token:
 * not in a page request, a log or a Referer. Only its HMAC, keyed by the server secret, is stored.
 */
import { createHmac } from 'node:crypto';
import { paths } from '../../web/src/paths';
import { AppError } from '../errors';
import { secretToken, sha256Hex } from '../ids';
import { log } from '../log';
import { secondsUntil } from '../model/usage';
import { markAddressProven } from '../stores/state/address-proof';
import { inTransaction } from '../stores/state/db';
import { replaceVerification, takeVerification } from '../stores/state/email-verifications';
import { lockUserRow } from '../stores/state/password-resets';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { consume, rateLimitHeaders } from './rate-limiter';
import { errorMessage } from '../unknown';
import { durationWords } from '../mail/duration-words';

const TOKEN_FORMAT = /^evf_[A-Za-z0-9_-]{43}$/;

/** One message for an unknown, used, replaced, expired or outdated link: none of them tells more. */
const INVALID_TOKEN = 'this verification link is invalid or has expired; sign in and ask for a new one on the Account page';

/** HMAC-SHA256 (hex) of a verification token, keyed by the server secret, in its own domain. */
export function hashVerificationToken(token: string, secret: string): string {
  return createHmac('sha256', secret).update(`hookcap-email-verify-v1\n${token}`).digest('hex');
}

/** After a sign-up's answer: the link goes out in the background; a failure is logged (never the token) and the sign-up stands. */
export function mailLinkAfterSignup(ctx: Ctx, user: UserRow): void {
  ctx.background.run(`could not send the address-verification link (${ctx.mailer.kind})`, () => sendLink(ctx, user, 'signup'));
}

/** A new link for the account's current address, replacing any older one, and its mail. */
async function sendLink(ctx: Ctx, user: UserRow, why: 'signup' | 'resend'): Promise<void> {
  const token = secretToken('evf');
  const now = ctx.clock.now();
  const ttl = ctx.config.emailVerifyTtlMs;
  await replaceVerification(ctx.db, {
    userId: user.id,
    tokenHash: hashVerificationToken(token, await ctx.secrets.codeHmac()),
    email: user.email,
    createdAt: now,
    expiresAt: now + ttl,
  });
  await ctx.mailer.sendMail({
    to: user.email,
    subject: 'Confirm the address of your hookcap account',
    text: [
      why === 'signup'
        ? 'Someone (hopefully you) created a hookcap account with this address.'
        : 'You asked for a new link to confirm the address of your hookcap account.',
      '',
      'If it was you, confirm that this address is yours here:',
      `${ctx.config.baseUrl}${paths.verifyEmail}#token=${token}`,
      '',
      `The link works once and expires in ${durationWords(ttl)}; a newer link replaces it.`,
      'If you did not create a hookcap account, do not open the link: ignore this message. Whoever did cannot confirm',
      'the address without it, and an AI agent you later let register with this address takes that account back.',
    ].join('\n'),
  });
}

/**
 * `POST /api/auth/verify-email {token}` (no session needed: the link may be opened anywhere). Takes
 * the link (deleted in the transaction that marks the address, so it works once) and marks the
 * address proven when the account still has the address it was made for.
 */
export async function verifyEmail(ctx: Ctx, input: { token: string }): Promise<{ email: string; emailVerified: true }> {
  if (!TOKEN_FORMAT.test(input.token)) throw new AppError('invalid_verification_token', INVALID_TOKEN);
  const tokenHash = hashVerificationToken(input.token, await ctx.secrets.codeHmac());
  const email = await inTransaction(ctx.db, async (tx) => {
    const link = await takeVerification(tx, tokenHash);
    // An expired link is deleted all the same (the transaction commits), and refused.
    if (!link || link.expiresAt <= ctx.clock.now()) return null;
    const user = await lockUserRow(tx, link.userId);
    if (!user || user.email.toLowerCase() !== link.email.toLowerCase()) return null;
    const proven = await markAddressProven(tx, user.id, ctx.clock.now());
    return proven?.email ?? null;
  });
  if (email === null) throw new AppError('invalid_verification_token', INVALID_TOKEN);
  return { email, emailVerified: true };
}

/**
 * `POST /api/account/verify-email`: a new link for the signed-in account. Counted per account
 * against RATE_LIMIT_RESET_EMAIL (the reset mail's rule: it bounds what one inbox can be sent);
 * a proven address is 409; a mail that cannot be sent is 503 (ask again), never a half-success.
 */
export async function resendVerification(ctx: Ctx, user: UserRow): Promise<{ message: string; email: string }> {
  if (user.emailVerifiedAt !== null) throw new AppError('conflict', 'this address is already confirmed');
  const rule = ctx.config.rateLimits.resetEmail;
  if (rule) {
    const outcome = await consume(ctx, `verify-email:${sha256Hex(user.id)}`, rule);
    if (!outcome.allowed) {
      const wait = secondsUntil(outcome.resetAt, ctx.clock.now());
      throw new AppError('rate_limited_api', `too many verification mails for this account; retry in ${wait} s`, {
        ...rateLimitHeaders(outcome),
        'retry-after': String(wait),
      });
    }
  }
  try {
    await sendLink(ctx, user, 'resend');
  } catch (e) {
    log.warn('could not send the address-verification link', { error: errorMessage(e), mailer: ctx.mailer.kind });
    throw new AppError('unavailable', 'the verification mail could not be sent; try again in a minute');
  }
  return { message: `A new confirmation link is on its way to ${user.email}.`, email: user.email };
}
