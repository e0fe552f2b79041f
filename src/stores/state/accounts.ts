/** Queries on users, sessions and API keys. Every value goes through drizzle's parameters. */
import { and, asc, eq, inArray, isNull, sql } from 'drizzle-orm';
import type { Db, Q, Tx } from './db';
import { apiKeys, sessions, users, type ApiKeyRow, type UserRow } from './schema';

export async function insertUser(db: Db, row: typeof users.$inferInsert): Promise<UserRow | null> {
  const out = await db.insert(users).values(row).onConflictDoNothing().returning();
  return out[0] ?? null;
}

export async function findUserByEmail(db: Db, email: string): Promise<UserRow | null> {
  const out = await db.select().from(users).where(sql`lower(${users.email}) = lower(${email})`).limit(1);
  return out[0] ?? null;
}

/** Takes the user's row lock: key-count checks and key inserts for one account serialise on it. */
export async function lockUser(tx: Tx, userId: string): Promise<boolean> {
  const out = await tx.select({ id: users.id }).from(users).where(eq(users.id, userId)).for('update');
  return out.length > 0;
}

export async function findUserById(db: Db, id: string): Promise<UserRow | null> {
  const out = await db.select().from(users).where(eq(users.id, id)).limit(1);
  return out[0] ?? null;
}

export async function deleteUser(db: Db, id: string): Promise<void> {
  await db.delete(users).where(eq(users.id, id));
}

/**
 * Inserts a session only while the account's password hash is still `passwordHash`, the one the
 * caller verified (or just set): a password reset committing between a log-in's check and this
 * insert leaves no session behind. The account row is read FOR SHARE, so an open reset (which
 * updates that row) makes this wait for its commit and then see the new hash. False when no row
 * was inserted (the hash changed, or the account is gone).
 */
export async function insertSessionIfPassword(q: Q, row: typeof sessions.$inferInsert, passwordHash: string | null): Promise<boolean> {
  // Columns in the table's order (token_hash, user_id, created_at, expires_at): drizzle names them all.
  const out = await q
    .insert(sessions)
    .select(
      sql`SELECT ${row.tokenHash}::text, ${users.id}, ${row.createdAt}::bigint, ${row.expiresAt}::bigint FROM ${users}
          WHERE ${users.id} = ${row.userId} AND ${users.passwordHash} IS NOT DISTINCT FROM ${passwordHash}::text FOR SHARE`,
    )
    .returning({ tokenHash: sessions.tokenHash });
  return out.length > 0;
}

/** A session not yet expired at `now`, with its account and its expiry. */
export async function findSession(db: Db, tokenHash: string, now: number): Promise<{ user: UserRow; expiresAt: number } | null> {
  const out = await db
    .select({ user: users, expiresAt: sessions.expiresAt })
    .from(sessions)
    .innerJoin(users, eq(users.id, sessions.userId))
    .where(and(eq(sessions.tokenHash, tokenHash), sql`${sessions.expiresAt} > ${now}`))
    .limit(1);
  return out[0] ?? null;
}

/** A credential as a stream node re-checks it: its account, and for a session its expiry. */
export interface CredentialState {
  userId: string;
  /** A session's expiresAt; null for an API key (keys do not expire). */
  expiresAt: number | null;
}

/**
 * The state of many credentials in one query (a stream node's periodic re-check): the live keys
 * among `keyIds` (not revoked, owned by an account) and the sessions among `tokenHashes` that
 * still exist, expired or not. A credential missing from the answer was deleted.
 */
export async function credentialStates(
  db: Db,
  keyIds: readonly string[],
  tokenHashes: readonly string[],
): Promise<{ keys: Map<string, CredentialState>; sessions: Map<string, CredentialState> }> {
  const keys = new Map<string, CredentialState>();
  const found = new Map<string, CredentialState>();
  if (keyIds.length === 0 && tokenHashes.length === 0) return { keys, sessions: found };
  // One statement for both tables; an empty list matches nothing (drizzle renders it as false).
  const rows = await db
    .select({ kind: sql<string>`'key'`, ref: apiKeys.id, userId: apiKeys.userId, expiresAt: sql<string | null>`NULL::bigint` })
    .from(apiKeys)
    .where(and(inArray(apiKeys.id, [...keyIds]), isNull(apiKeys.revokedAt)))
    .unionAll(
      db
        .select({ kind: sql<string>`'session'`, ref: sessions.tokenHash, userId: sessions.userId, expiresAt: sql<string | null>`${sessions.expiresAt}` })
        .from(sessions)
        .where(inArray(sessions.tokenHash, [...tokenHashes])),
    );
  for (const r of rows) {
    if (r.userId === null) continue;
    // A bigint comes back as a string through a raw sql column; the driver may also give a number.
    const expiresAt = r.expiresAt === null ? null : Number(r.expiresAt);
    (r.kind === 'key' ? keys : found).set(r.ref, { userId: r.userId, expiresAt });
  }
  return { keys, sessions: found };
}

export async function deleteSession(db: Db, tokenHash: string): Promise<void> {
  await db.delete(sessions).where(eq(sessions.tokenHash, tokenHash));
}

export async function insertApiKey(db: Db, row: typeof apiKeys.$inferInsert): Promise<ApiKeyRow> {
  const out = await db.insert(apiKeys).values(row).returning();
  const key = out[0];
  if (!key) throw new Error('insert api_keys returned no row');
  return key;
}

/** A live (not revoked) key by hash, with its owner when it has one. */
export async function findLiveKey(db: Db, keyHash: string): Promise<{ key: ApiKeyRow; user: UserRow | null } | null> {
  const out = await db
    .select({ key: apiKeys, user: users })
    .from(apiKeys)
    .leftJoin(users, eq(users.id, apiKeys.userId))
    .where(and(eq(apiKeys.keyHash, keyHash), isNull(apiKeys.revokedAt)))
    .limit(1);
  const row = out[0];
  return row ? { key: row.key, user: row.user } : null;
}

/** True while the key is live (not deleted, not revoked) and still the account's. */
export async function isLiveUserKey(db: Db, keyId: string, userId: string): Promise<boolean> {
  const out = await db
    .select({ id: apiKeys.id })
    .from(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .limit(1);
  return out.length > 0;
}

export async function listUserKeys(db: Db, userId: string): Promise<ApiKeyRow[]> {
  return db
    .select()
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)))
    .orderBy(asc(apiKeys.createdAt));
}

export async function countUserKeys(db: Db, userId: string): Promise<number> {
  const out = await db
    .select({ n: sql<number>`count(*)::int` })
    .from(apiKeys)
    .where(and(eq(apiKeys.userId, userId), isNull(apiKeys.revokedAt)));
  return Number(out[0]?.n ?? 0);
}

/** Deletes one of the user's keys; false when no such key of theirs. */
export async function deleteUserKey(db: Db, userId: string, keyId: string): Promise<boolean> {
  const out = await db
    .delete(apiKeys)
    .where(and(eq(apiKeys.id, keyId), eq(apiKeys.userId, userId)))
    .returning({ id: apiKeys.id });
  return out.length > 0;
}

/** Sets an account's plan name; the row after, or null when there is no such account. */
export async function updateUserPlan(db: Db, userId: string, plan: string): Promise<UserRow | null> {
  const out = await db.update(users).set({ plan }).where(eq(users.id, userId)).returning();
  return out[0] ?? null;
}
