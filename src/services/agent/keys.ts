/**
 * Issuing keys inside a transaction: to an account (checked against its key limit under the
 * account's row lock, so concurrent issues cannot overshoot it) or unowned (anonymous flow).
 */
import { AppError } from '../../errors';
import { randomId, secretToken, sha256Hex } from '../../ids';
import * as accounts from '../../stores/state/accounts';
import { lockUser, type Tx } from '../../stores/state/agent';
import type { ApiKeyRow, UserRow } from '../../stores/state/schema';
import { DEFAULT_SCOPES, MAX_KEYS_PER_ACCOUNT } from '../api-keys';

/** What a claimed or account-bound agent key may do (SPEC 2.9; advisory, SPEC 5.5). */
export const POST_CLAIM_SCOPES: readonly string[] = DEFAULT_SCOPES;

export interface IssuedKey {
  row: ApiKeyRow;
  /** The raw `svc_` key: returned once, never stored. */
  raw: string;
}

async function insertKey(tx: Tx, userId: string | null, name: string, scopes: readonly string[]): Promise<IssuedKey> {
  const raw = secretToken('svc');
  const row = await accounts.insertApiKey(tx, {
    id: randomId('key'),
    userId,
    keyHash: sha256Hex(raw),
    prefix: raw.slice(0, 12),
    name,
    scopes: [...scopes],
    createdAt: Date.now(),
  });
  return { row, raw };
}

/** Throws too_many_keys when the account already holds its limit. Call with the user row locked. */
export async function assertRoomForKey(tx: Tx, userId: string): Promise<void> {
  if (!(await lockUser(tx, userId))) throw new AppError('invalid_request', 'the account no longer exists');
  if ((await accounts.countUserKeys(tx, userId)) >= MAX_KEYS_PER_ACCOUNT) {
    throw new AppError('too_many_keys', `the account already holds ${MAX_KEYS_PER_ACCOUNT} API keys; delete one first`);
  }
}

export async function issueAccountKey(tx: Tx, userId: string, name: string): Promise<IssuedKey> {
  await assertRoomForKey(tx, userId);
  return insertKey(tx, userId, name, POST_CLAIM_SCOPES);
}

/** An anonymous agent's key: no account, no scopes; sandbox only until claimed. */
export function issueUnownedKey(tx: Tx, name: string): Promise<IssuedKey> {
  return insertKey(tx, null, name, []);
}

/**
 * The account with this (verified) email, created without a password when there is none. Only
 * called after the address is proven: by OTP, or by an issuer's email_verified.
 */
export async function findOrProvisionUser(tx: Tx, email: string): Promise<UserRow> {
  const found = await accounts.findUserByEmail(tx, email);
  if (found) return found;
  const created = await accounts.insertUser(tx, { id: randomId('usr'), email, passwordHash: null, plan: 'free', createdAt: Date.now() });
  // A concurrent provision of the same address won the unique index: use that account.
  const user = created ?? (await accounts.findUserByEmail(tx, email));
  if (!user) throw new AppError('internal', 'could not provision the account');
  return user;
}

/** Display name of an agent key, bounded and single-line. */
export function agentKeyName(label: string): string {
  return `agent: ${label}`.slice(0, 100);
}
