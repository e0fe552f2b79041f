/**
 * Queries of the agent flows (sql/003_agent.sql): registrations, identity-provider credentials,
 * single-use jtis, server secrets and sandbox endpoints. Every value goes through
 * drizzle's parameters. Functions take a `Q` so the verbs can run several in one transaction.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, sql } from 'drizzle-orm';
import { inTransaction, type Q, type Tx } from './db';
import type { EndpointWrite } from './endpoints';
import {
  agentCredentials,
  agentJtis,
  agentRegistrations,
  apiKeys,
  endpoints,
  serverSecrets,
  type AgentRegistrationRow,
  type ApiKeyRow,
  type EndpointRow,
} from './schema';

export { inTransaction, type Q, type Tx };

// --- registrations ------------------------------------------------------------------------------

/** null when the claim token or user code collided with an existing row (the caller retries). */
export async function insertRegistration(q: Q, row: typeof agentRegistrations.$inferInsert): Promise<AgentRegistrationRow | null> {
  const out = await q.insert(agentRegistrations).values(row).onConflictDoNothing().returning();
  return out[0] ?? null;
}

/** By claim-token hash; `lock` takes the row lock so concurrent claims and OTP checks serialise. */
export async function findRegistrationByTokenHash(q: Q, hash: string, lock = false): Promise<AgentRegistrationRow | null> {
  const query = q.select().from(agentRegistrations).where(eq(agentRegistrations.claimTokenHash, hash)).limit(1);
  const out = lock ? await query.for('update') : await query;
  return out[0] ?? null;
}

export async function findRegistrationByUserCodeHash(q: Q, hash: string, lock = false): Promise<AgentRegistrationRow | null> {
  const query = q.select().from(agentRegistrations).where(eq(agentRegistrations.userCodeHash, hash)).limit(1);
  const out = lock ? await query.for('update') : await query;
  return out[0] ?? null;
}

/** Key of the transaction-scoped advisory lock that serialises anonymous registrations. */
const PENDING_ANONYMOUS_LOCK = 727_312;

/**
 * Takes, for the rest of the transaction, the lock every anonymous registration holds while it
 * counts and inserts, so a burst cannot pass AGENT_MAX_PENDING. A row lock would not do: the
 * count is over rows that do not exist yet. (PGlite already runs one transaction at a time.)
 */
export async function lockPendingAnonymous(tx: Tx): Promise<void> {
  await tx.execute(sql`SELECT pg_advisory_xact_lock(${PENDING_ANONYMOUS_LOCK})`);
}

export async function countPendingAnonymous(q: Q, now: number): Promise<number> {
  const out = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(agentRegistrations)
    .where(and(eq(agentRegistrations.status, 'pending'), eq(agentRegistrations.type, 'anonymous'), gt(agentRegistrations.expiresAt, now)));
  return Number(out[0]?.n ?? 0);
}

export async function updateRegistration(
  q: Q,
  id: string,
  patch: Partial<Pick<AgentRegistrationRow, 'status' | 'otpHash' | 'otpAttempts' | 'keyId' | 'claimedBy' | 'claimedAt' | 'deniedAt' | 'deniedBy'>>,
): Promise<void> {
  await q.update(agentRegistrations).set(patch).where(eq(agentRegistrations.id, id));
}

/** Adds one failed OTP attempt and returns the new count. */
export async function countOtpAttempt(q: Q, id: string): Promise<number> {
  const out = await q
    .update(agentRegistrations)
    .set({ otpAttempts: sql`${agentRegistrations.otpAttempts} + 1` })
    .where(eq(agentRegistrations.id, id))
    .returning({ n: agentRegistrations.otpAttempts });
  return out[0]?.n ?? 0;
}

export async function deleteRegistration(q: Q, id: string): Promise<void> {
  await q.delete(agentRegistrations).where(eq(agentRegistrations.id, id));
}

/** Registrations whose window closed before `before`, pending or claimed. */
export async function deleteRegistrationsExpiredBefore(q: Q, before: number): Promise<number> {
  const out = await q
    .delete(agentRegistrations)
    .where(lte(agentRegistrations.expiresAt, before))
    .returning({ id: agentRegistrations.id });
  return out.length;
}

// --- accounts and keys --------------------------------------------------------------------------


export async function lockKey(q: Q, keyId: string): Promise<ApiKeyRow | null> {
  const out = await q.select().from(apiKeys).where(eq(apiKeys.id, keyId)).for('update');
  return out[0] ?? null;
}

/** Rebinds an unowned key to an account with new scopes; false if it was owned or is gone. */
export async function bindUnownedKey(q: Q, keyId: string, userId: string, scopes: string[]): Promise<boolean> {
  const out = await q
    .update(apiKeys)
    .set({ userId, scopes })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return out.length > 0;
}

/** Revokes a key that no account owns (a refused registration's); false if it was owned or is gone. */
export async function revokeUnownedKey(q: Q, keyId: string, now: number): Promise<boolean> {
  const out = await q
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(eq(apiKeys.id, keyId), isNull(apiKeys.userId), isNull(apiKeys.revokedAt)))
    .returning({ id: apiKeys.id });
  return out.length > 0;
}

export async function insertCredential(q: Q, row: typeof agentCredentials.$inferInsert): Promise<void> {
  await q.insert(agentCredentials).values(row);
}

/** Revokes every live key issued on (iss, sub)'s word; returns their owners (null: unclaimed), one per key. */
export async function revokeKeysOfSubject(q: Q, iss: string, sub: string, now: number): Promise<(string | null)[]> {
  const issued = q
    .select({ id: agentCredentials.keyId })
    .from(agentCredentials)
    .where(and(eq(agentCredentials.iss, iss), eq(agentCredentials.sub, sub)));
  const out = await q
    .update(apiKeys)
    .set({ revokedAt: now })
    .where(and(inArray(apiKeys.id, issued), isNull(apiKeys.revokedAt)))
    .returning({ userId: apiKeys.userId });
  return out.map((k) => k.userId);
}

// --- single-use token ids -------------------------------------------------------------------------

/** True when this (purpose, iss, jti) was unseen; atomic through the primary key. */
export async function recordJti(q: Q, row: typeof agentJtis.$inferInsert): Promise<boolean> {
  const out = await q.insert(agentJtis).values(row).onConflictDoNothing().returning({ jti: agentJtis.jti });
  return out.length > 0;
}

// --- server secrets -----------------------------------------------------------------------------

/** The stored secret `name`, storing `candidate` first if there is none (first node wins). */
export async function getOrCreateSecret(q: Q, name: string, candidate: string, now: number): Promise<string> {
  await q.insert(serverSecrets).values({ name, value: candidate, createdAt: now }).onConflictDoNothing();
  const out = await q.select({ value: serverSecrets.value }).from(serverSecrets).where(eq(serverSecrets.name, name));
  const value = out[0]?.value;
  if (!value) throw new Error(`server secret ${name} could not be stored`);
  return value;
}

// --- sandbox endpoints --------------------------------------------------------------------------

const liveSandboxOf = (keyId: string, now: number) =>
  and(eq(endpoints.ownerKeyId, keyId), isNull(endpoints.userId), isNotNull(endpoints.expiresAt), gt(endpoints.expiresAt, now));

export async function countLiveSandbox(q: Q, keyId: string, now: number): Promise<number> {
  const out = await q.select({ n: sql<number>`count(*)::int` }).from(endpoints).where(liveSandboxOf(keyId, now));
  return Number(out[0]?.n ?? 0);
}

export async function listLiveSandbox(q: Q, keyId: string, now: number): Promise<EndpointRow[]> {
  return q.select().from(endpoints).where(liveSandboxOf(keyId, now)).orderBy(asc(endpoints.createdAt));
}

export async function findLiveSandbox(q: Q, keyId: string, slug: string, now: number): Promise<EndpointRow | null> {
  const out = await q.select().from(endpoints).where(and(eq(endpoints.slug, slug), liveSandboxOf(keyId, now))).limit(1);
  return out[0] ?? null;
}

/**
 * On claim, the key's live sandbox endpoints become ordinary endpoints of the account (no expiry),
 * so what the agent set up keeps capturing. Returns their slugs.
 */
export async function adoptSandbox(w: EndpointWrite, keyId: string, userId: string, now: number): Promise<string[]> {
  const out = await w.tx
    .update(endpoints)
    .set({ userId, ownerKeyId: null, expiresAt: null })
    .where(liveSandboxOf(keyId, now))
    .returning({ slug: endpoints.slug });
  for (const r of out) w.changed.add(r.slug);
  return out.map((r) => r.slug);
}

/**
 * On a refused claim, the key's live sandbox endpoints expire now: senders get 404 at once and the
 * sweeper deletes them and queues their captures for purging. Returns their slugs.
 */
export async function expireSandbox(w: EndpointWrite, keyId: string, now: number): Promise<string[]> {
  const out = await w.tx.update(endpoints).set({ expiresAt: now }).where(liveSandboxOf(keyId, now)).returning({ slug: endpoints.slug });
  for (const r of out) w.changed.add(r.slug);
  return out.map((r) => r.slug);
}

