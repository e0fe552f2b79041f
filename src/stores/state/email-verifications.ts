/** Queries of the sign-up verification link (src/services/email-verification.ts). */
import { eq } from 'drizzle-orm';
import type { Q, Tx } from './db';
import { emailVerifications, type EmailVerificationRow } from './schema';

/** The account's one outstanding link becomes this one: an older link stops working. */
export async function replaceVerification(q: Q, row: typeof emailVerifications.$inferInsert): Promise<void> {
  await q
    .insert(emailVerifications)
    .values(row)
    .onConflictDoUpdate({
      target: emailVerifications.userId,
      set: { tokenHash: row.tokenHash, email: row.email, createdAt: row.createdAt, expiresAt: row.expiresAt },
    });
}

/**
 * Deletes the link with this token hash and returns it (expired or not), or null when there is
 * none: of two uses at once, only one gets the row.
 */
export async function takeVerification(tx: Tx, tokenHash: string): Promise<EmailVerificationRow | null> {
  const out = await tx.delete(emailVerifications).where(eq(emailVerifications.tokenHash, tokenHash)).returning();
  return out[0] ?? null;
}
