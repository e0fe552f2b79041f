/**
 * Agent-specific pieces of key issuing: the scopes a claimed key gets, the account behind a
 * proven email, and the key's display name. The keys themselves are issued by services/api-keys.ts.
 */
import { AppError } from '../../errors';
import { randomId } from '../../ids';
import * as accounts from '../../stores/state/accounts';
import type { Tx } from '../../stores/state/db';
import type { UserRow } from '../../stores/state/schema';
import { DEFAULT_SCOPES } from '../api-keys';

/** What a claimed or account-bound agent key may do (SPEC 2.9; advisory, SPEC 5.5). */
export const POST_CLAIM_SCOPES: readonly string[] = DEFAULT_SCOPES;

/**
 * The account with this (verified) email, created without a password when there is none. Only
 * called after the address is proven: by OTP, or by an issuer's email_verified.
 */
export async function findOrProvisionUser(tx: Tx, email: string, now: number): Promise<UserRow> {
  const found = await accounts.findUserByEmail(tx, email);
  if (found) return found;
  const created = await accounts.insertUser(tx, { id: randomId('usr'), email, passwordHash: null, plan: 'free', createdAt: now });
  // A concurrent provision of the same address won the unique index: use that account.
  const user = created ?? (await accounts.findUserByEmail(tx, email));
  if (!user) throw new AppError('internal', 'could not provision the account');
  return user;
}

/** Display name of an agent key, bounded and single-line. */
export function agentKeyName(label: string): string {
  return `agent: ${label}`.slice(0, 100);
}
