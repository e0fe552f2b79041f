/** Queries of the password-reset flow (src/services/password-reset.ts). */
import { and, eq, gt, isNull, ne } from 'drizzle-orm';
import type { Q, Tx } from './db';
import { apiKeys, passwordResets, sessions, users, type PasswordResetRow, type UserRow } from './schema';

/** The account's one outstanding reset becomes this one: an older token stops working. */
export async function replaceReset(q: Q, row: typeof passwordResets.$inferInsert): Promise<void> {
  await q
    .insert(passwordResets)
    .values(row)
    .onConflictDoUpdate({ target: passwordResets.userId, set: { tokenHash: row.tokenHash, createdAt: row.createdAt, expiresAt: row.expiresAt } });
}

/** The address of the account a live (unexpired) reset belongs to, without using it; null when none. */
export async function findResetEmail(q: Q, tokenHash: string, now: number): Promise<string | null> {
  const out = await q
    .select({ email: users.email })
    .from(passwordResets)
    .innerJoin(users, eq(users.id, passwordResets.userId))
    .where(and(eq(passwordResets.tokenHash, tokenHash), gt(passwordResets.expiresAt, now)))
    .limit(1);
  return out[0]?.email ?? null;
}

/**
 * Deletes the reset with this token hash and returns it (expired or not), or null when there is
 * none. Of two transactions taking the same token, only one gets the row: the other waits on its
 * lock and then finds it gone.
 */
export async function takeReset(tx: Tx, tokenHash: string): Promise<PasswordResetRow | null> {
  const out = await tx.delete(passwordResets).where(eq(passwordResets.tokenHash, tokenHash)).returning();
  return out[0] ?? null;
}

/** The account's row, locked until the transaction ends (a reset reads the password it replaces). */
export async function lockUserRow(tx: Tx, userId: string): Promise<UserRow | null> {
  const out = await tx.select().from(users).where(eq(users.id, userId)).for('update');
  return out[0] ?? null;
}

/** Revokes every live API key of the account (a recovery: docs/security.md); how many. */
export async function revokeUserKeys(tx: Tx, userId: string, now: number): Promise<number> {
  const out = await tx
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return out.length;
}

/** Sets the account's password hash; the row after, or null when the account is gone. */
export async function setPasswordHash(tx: Tx, userId: string, passwordHash: string): Promise<UserRow | null> {
  const out = await tx.update(users).set({ passwordHash }).where(eq(users.id, userId)).returning();
  return out[0] ?? null;
}

/**
 * Ends every browser session of the account but `keepTokenHash` (a password change keeps the
 * session that made it); how many ended, or null when the kept session is gone (ended meanwhile).
 */
export async function deleteOtherSessions(tx: Tx, userId: string, keepTokenHash: string): Promise<number | null> {
  const kept = await tx.select({ tokenHash: sessions.tokenHash }).from(sessions).where(and(eq(sessions.tokenHash, keepTokenHash), eq(sessions.userId, userId)));
  if (kept.length === 0) return null;
  const out = await tx
    .delete(sessions)
    .where(and(eq(sessions.userId, userId), ne(sessions.tokenHash, keepTokenHash)))
    .returning({ tokenHash: sessions.tokenHash });
  return out.length;
}

/** Ends every browser session of the account (API keys are untouched); how many there were. */
export async function deleteUserSessions(tx: Tx, userId: string): Promise<number> {
  const out = await tx.delete(sessions).where(eq(sessions.userId, userId)).returning({ tokenHash: sessions.tokenHash });
  return out.length;
}
