/**
 * `POST /api/account/password` (docs/security.md, "Changing the password"): a signed-in person sets
 * a new password by typing the current one. A stolen session cookie alone cannot change it.
 *
 * Every attempt counts against the log-in limits (RATE_LIMIT_AUTH per client address on the
 * route, RATE_LIMIT_LOGIN_ACCOUNT per account here), so the route is no way around them to guess
 * the password. On success every other browser session of the account ends and is announced, so
 * the live streams they opened end on every node; the session that asked stays. API keys stay: the
 * person proved the password, nothing is being recovered (a reset by mail revokes them).
 */
import { paths } from '../../web/src/paths';
import { AppError } from '../errors';
import { log } from '../log';
import { inTransaction } from '../stores/state/db';
import { deleteOtherSessions, lockUserRow, setPasswordHash } from '../stores/state/password-resets';
import { hashNewPassword, limitAttemptsOn } from './auth';
import type { Ctx, Principal } from './context';
import { announceRevoked } from './credential-revocation';

export interface PasswordChanged {
  /** Other browser sessions of the account that were signed out. */
  signedOutSessions: number;
}

const WRONG_CURRENT = "currentPassword is not this account's password";
const SESSION_ENDED = 'this session has ended (the password was reset or changed meanwhile); sign in again';

export async function changePassword(
  ctx: Ctx,
  principal: Extract<Principal, { kind: 'session' }>,
  input: { currentPassword: string; newPassword: string },
): Promise<PasswordChanged> {
  const user = principal.user;
  await limitAttemptsOn(ctx, user.email);
  const verifiedHash = user.passwordHash;
  // An account without a password (made by an agent) gets a session only through a reset, which sets one.
  if (verifiedHash === null || !(await Bun.password.verify(input.currentPassword, verifiedHash))) {
    throw new AppError('wrong_password', WRONG_CURRENT);
  }
  const passwordHash = await hashNewPassword(input.newPassword).catch((err: unknown) => {
    // Sign-up's message names `password`; here the field is `newPassword`.
    if (err instanceof AppError && err.code === 'validation') throw new AppError('validation', err.message.replace(/^password\b/, 'newPassword'));
    throw err;
  });
  const signedOut = await inTransaction(ctx.db, async (tx) => {
    const row = await lockUserRow(tx, user.id);
    // A reset or another change committed since this request read the account: its sessions ended.
    if (!row || row.passwordHash !== verifiedHash) return null;
    const ended = await deleteOtherSessions(tx, user.id, principal.tokenHash);
    if (ended === null) return null;
    await setPasswordHash(tx, user.id, passwordHash);
    return ended;
  });
  if (signedOut === null) throw new AppError('unauthorized', SESSION_ENDED);
  // After the commit: streams of the ended sessions end on every node (this session's re-check passes).
  announceRevoked(ctx.bus, [user.id]);
  log.info('password changed', { userId: user.id, sessionsSignedOut: signedOut });
  const to = user.email;
  ctx.background.run(`could not send a password-changed notice (${ctx.mailer.kind})`, () => sendChangedNotice(ctx, to));
  return { signedOutSessions: signedOut };
}

async function sendChangedNotice(ctx: Ctx, to: string): Promise<void> {
  await ctx.mailer.sendMail({
    to,
    subject: 'Your hookcap password was changed',
    text: [
      'The password of the hookcap account for this address was just changed from a signed-in browser (Account settings).',
      'Every other browser session of the account was signed out. API keys keep working.',
      '',
      'If you did not do this, ask for a reset link right away and set a password only you know:',
      `${ctx.config.baseUrl}${paths.forgotPassword}`,
    ].join('\n'),
  });
}
