/**
 * API keys: issued to an account (from a browser session, or by an agent flow) or unowned (an
 * anonymous agent), shown once, stored as SHA-256. Every key an account gets is issued here, under
 * the account's row lock, so concurrent issues cannot pass the per-account limit.
 */
import { AppError } from '../errors';
import { randomId, secretToken, sha256Hex } from '../ids';
import * as accounts from '../stores/state/accounts';
import { inTransaction, type Tx } from '../stores/state/db';
import type { ApiKeyRow, UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { announceRevoked } from './credential-revocation';

export const DEFAULT_SCOPES: readonly string[] = ['webhooks:read', 'webhooks:write'];
/** Per-account key limit (SPEC 5.10; the number is ours). */
export const MAX_KEYS_PER_ACCOUNT = 25;

export const publicKey = (k: ApiKeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
});

export interface IssuedKey {
  row: ApiKeyRow;
  /** The raw `svc_` key: returned once, never stored. */
  raw: string;
}

async function insertKey(tx: Tx, userId: string | null, name: string, scopes: readonly string[], now: number): Promise<IssuedKey> {
  const raw = secretToken('svc');
  const row = await accounts.insertApiKey(tx, {
    id: randomId('key'),
    userId,
    keyHash: sha256Hex(raw),
    prefix: raw.slice(0, 12),
    name,
    scopes: [...scopes],
    createdAt: now,
  });
  return { row, raw };
}

/**
 * Takes the account's row lock for the rest of the transaction and refuses (too_many_keys) when
 * it already holds its limit. Whatever gives the account a key next (an insert, or binding an
 * unowned key on claim) must run in the same transaction.
 */
export async function assertRoomForKey(tx: Tx, userId: string): Promise<void> {
  if (!(await accounts.lockUser(tx, userId))) throw new AppError('invalid_request', 'the account no longer exists');
  if ((await accounts.countUserKeys(tx, userId)) >= MAX_KEYS_PER_ACCOUNT) {
    throw new AppError('too_many_keys', `the account already holds ${MAX_KEYS_PER_ACCOUNT} API keys; delete one first`);
  }
}

/** The one way an account gets a new key: counted and inserted under the account's lock. */
export async function issueAccountKey(tx: Tx, userId: string, name: string, now: number, scopes: readonly string[] = DEFAULT_SCOPES): Promise<IssuedKey> {
  await assertRoomForKey(tx, userId);
  return insertKey(tx, userId, name, scopes, now);
}

/** An anonymous agent's key: no account, no scopes; sandbox only until claimed. */
export function issueUnownedKey(tx: Tx, name: string, now: number): Promise<IssuedKey> {
  return insertKey(tx, null, name, [], now);
}

export async function listKeys(ctx: Ctx, user: UserRow) {
  return (await accounts.listUserKeys(ctx.db, user.id)).map(publicKey);
}

/** `POST /api/api-keys`: a key for the session's account; `too_many_keys` at its limit. */
export async function createKey(ctx: Ctx, user: UserRow, name: string | undefined) {
  const issued = await inTransaction(ctx.db, (tx) => issueAccountKey(tx, user.id, name?.trim() || 'API key', ctx.clock.now()));
  return { ...publicKey(issued.row), key: issued.raw };
}

/** `DELETE /api/api-keys/{id}`; live streams opened with the key end, on every node. */
export async function deleteKey(ctx: Ctx, user: UserRow, id: string): Promise<void> {
  if (!(await accounts.deleteUserKey(ctx.db, user.id, id))) throw new AppError('not_found', 'API key not found');
  announceRevoked(ctx.bus, [user.id]);
}
