/**
 * What a proof of an account's mailbox does (docs/security.md, "Proving the address"). Sign-up does
 * not prove the address, so whoever signed up `someone@corp.example` with a password may not own
 * that mailbox. The first proof of the mailbox (an agent's verified email or identity assertion
 * here; a password reset and the sign-up link mark it through `markAddressProven` directly) makes
 * the account the mailbox owner's:
 *
 * - an address already proven: nothing changes (the account is the mailbox owner's already);
 * - never proven, no password: the address is marked proven;
 * - never proven, with a password: a recovery, as a password reset is for a proven mailbox. The
 *   password is removed (the owner sets one through Forgot password), every browser session ends
 *   and every API key is revoked, in the caller's transaction, which then binds the agent's key.
 *   The caller announces the revocation (`announceRecovery`) once that transaction has committed.
 *
 * An address without an account gets one, proven from the start and without a password.
 */
import { AppError } from '../errors';
import { randomId } from '../ids';
import { log } from '../log';
import * as accounts from '../stores/state/accounts';
import { removePasswordOfUnproven, markAddressProven } from '../stores/state/address-proof';
import type { Tx } from '../stores/state/db';
import { deleteUserSessions, lockUserRow, revokeUserKeys } from '../stores/state/password-resets';
import type { UserRow } from '../stores/state/schema';
import { paths } from '../../web/src/paths';
import type { Ctx } from './context';
import { assertRoomForKey } from './api-keys';
import { announceRevoked } from './credential-revocation';
import { keysPhrase } from './password-reset';

/** What a recovery ended; the account's agent key is issued after it, so it is not among them. */
export interface Recovery {
  endedSessions: number;
  revokedApiKeys: number;
}

export interface ProvenAccount {
  /** The account, as it is after the proof (locked until the transaction ends). */
  user: UserRow;
  /** Set when the proof took the account from whoever set its password. */
  recovery: Recovery | null;
}

/**
 * The account of an address whose mailbox was just proven, found or provisioned, after the proof
 * took effect (see the module comment). Holds the account's row lock for the rest of `tx`, so a
 * log-in racing it (which inserts its session only while the password hash is unchanged) gets no
 * session, and a reset or another proof waits.
 */
export async function accountOfProvenAddress(tx: Tx, email: string, now: number): Promise<ProvenAccount> {
  const found = await accounts.findUserByEmail(tx, email);
  if (!found) {
    const created = await accounts.insertUser(tx, { id: randomId('usr'), email, passwordHash: null, plan: 'free', createdAt: now, emailVerifiedAt: now });
    if (created) return { user: created, recovery: null };
  }
  // Found, or a concurrent provision of the same address won the unique index: use that account.
  const id = found?.id ?? (await accounts.findUserByEmail(tx, email))?.id;
  const user = id === undefined ? null : await lockUserRow(tx, id);
  if (!user) throw new AppError('internal', 'could not provision the account');
  if (user.emailVerifiedAt !== null) return { user, recovery: null };
  if (user.passwordHash === null) {
    const proven = await markAddressProven(tx, user.id, now);
    if (!proven) throw new AppError('internal', 'the account disappeared while it was proven');
    return { user: proven, recovery: null };
  }
  // SPEC's too_many_keys holds as for any account: one at its limit is refused before the
  // recovery, which would otherwise make room by revoking its keys. Nothing changes then; a
  // password reset (itself a proof) is the way to take such an account back.
  await assertRoomForKey(tx, user.id);
  const recovered = await removePasswordOfUnproven(tx, user.id, now);
  if (!recovered) throw new AppError('internal', 'the account disappeared while it was recovered');
  const endedSessions = await deleteUserSessions(tx, user.id);
  const revokedApiKeys = await revokeUserKeys(tx, user.id, now);
  return { user: recovered, recovery: { endedSessions, revokedApiKeys } };
}

/**
 * After the recovery's transaction committed: streams of the ended sessions and revoked keys end
 * on every node, and the address is told what happened and how to set a password. `how` names the
 * proof ("the one-time code mailed to this address", "the identity provider https://…").
 */
export function announceRecovery(ctx: Ctx, user: UserRow, recovery: Recovery, how: string): void {
  announceRevoked(ctx.bus, [user.id]);
  // Not `revokedApiKeys`: a field name ending in apiKeys is masked by the log's redaction (src/log.ts).
  log.info('account recovered by a proof of its address', { userId: user.id, sessionsEnded: recovery.endedSessions, apiKeysRevoked: recovery.revokedApiKeys });
  ctx.background.run(`could not send an account-recovered notice (${ctx.mailer.kind})`, () =>
    ctx.mailer.sendMail({ to: user.email, subject: RECOVERED_SUBJECT, text: recoveredText(ctx, user, recovery, how) }),
  );
}

export const RECOVERED_SUBJECT = 'Your hookcap account is yours again: set a password';

function recoveredText(ctx: Ctx, user: UserRow, recovery: Recovery, how: string): string {
  return [
    `This address was proven by ${how}, and an AI agent was given a hookcap API key for it.`,
    '',
    `The hookcap account for this address (created ${new Date(user.createdAt).toISOString().slice(0, 10)}) had a password, but its address had never been proven:`,
    'whoever signed it up may not own this mailbox. The account is now yours, and so is the agent\'s key:',
    '- its password was removed, so nobody can sign in with it;',
    `- ${recovery.endedSessions === 1 ? 'its browser session was' : `its ${recovery.endedSessions} browser sessions were`} signed out;`,
    `- ${recovery.revokedApiKeys > 0 ? `${keysPhrase(recovery.revokedApiKeys).replace(/^Your/, 'its')} revoked` : 'it had no other API key'}.`,
    '',
    'To sign in to the dashboard, set a password of your own here (a link is mailed to this address):',
    `${ctx.config.baseUrl}${paths.forgotPassword}`,
    'Check its endpoints and teams: whoever signed it up may have made some.',
  ].join('\n');
}
