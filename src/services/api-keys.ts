/** API keys: created from a browser session, shown once, stored as SHA-256. */
import { AppError } from '../errors';
import { randomId, secretToken, sha256Hex } from '../ids';
import * as accounts from '../stores/state/accounts';
import type { ApiKeyRow, UserRow } from '../stores/state/schema';
import type { Ctx } from './context';

export const DEFAULT_SCOPES = ['webhooks:read', 'webhooks:write'];
/** Per-account key limit (SPEC 5.10; the number is ours). */
export const MAX_KEYS_PER_ACCOUNT = 25;

export const publicKey = (k: ApiKeyRow) => ({
  id: k.id,
  name: k.name,
  prefix: k.prefix,
  scopes: k.scopes,
  createdAt: k.createdAt,
});

export async function listKeys(ctx: Ctx, user: UserRow) {
  return (await accounts.listUserKeys(ctx.db, user.id)).map(publicKey);
}

/** Issues a key for an account; `too_many_keys` when it is at its limit. */
export async function createKey(ctx: Ctx, user: UserRow, name: string | undefined) {
  if ((await accounts.countUserKeys(ctx.db, user.id)) >= MAX_KEYS_PER_ACCOUNT) {
    throw new AppError('too_many_keys', `an account may hold at most ${MAX_KEYS_PER_ACCOUNT} API keys`);
  }
  const raw = secretToken('svc');
  const row = await accounts.insertApiKey(ctx.db, {
    id: randomId('key'),
    userId: user.id,
    keyHash: sha256Hex(raw),
    prefix: raw.slice(0, 12),
    name: name?.trim() || 'API key',
    scopes: DEFAULT_SCOPES,
    createdAt: Date.now(),
  });
  return { ...publicKey(row), key: raw };
}

export async function deleteKey(ctx: Ctx, user: UserRow, id: string): Promise<void> {
  if (!(await accounts.deleteUserKey(ctx.db, user.id, id))) throw new AppError('not_found', 'API key not found');
}
