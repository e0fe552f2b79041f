/** Queries that record a proven address (sql/013_email_verified.sql, src/services/address-proof.ts). */
import { and, eq, isNull, sql } from 'drizzle-orm';
import type { Q, Tx } from './db';
import { users, type UserRow } from './schema';

/** Records the first proof of the account's address (a later proof keeps the first time); the row after, or null when gone. */
export async function markAddressProven(q: Q, userId: string, now: number): Promise<UserRow | null> {
  const out = await q
    .update(users)
    .set({ emailVerifiedAt: sql`coalesce(${users.emailVerifiedAt}, ${now}::bigint)` })
    .where(eq(users.id, userId))
    .returning();
  return out[0] ?? null;
}

/**
 * The recovery of an account whose address was never proven, by the first proof of its mailbox:
 * the password (set by whoever signed up, who may not own the address) is removed and the address
 * marked proven, only while it is still unproven (the caller holds the row lock). Null when the
 * account is gone or was proven meanwhile.
 */
export async function removePasswordOfUnproven(tx: Tx, userId: string, now: number): Promise<UserRow | null> {
  const out = await tx
    .update(users)
    .set({ passwordHash: null, emailVerifiedAt: now })
    .where(and(eq(users.id, userId), isNull(users.emailVerifiedAt)))
    .returning();
  return out[0] ?? null;
}
