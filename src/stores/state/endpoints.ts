/**
 * Queries on capture endpoints. Reads are always scoped to an owner by the caller's verb.
 *
 * Every write that changes what an endpoint cache holds (create, update, delete, a sandbox
 * adopted into an account) takes an `EndpointWrite`: a transaction that records the slugs it
 * changed, which services/endpoint-writes.ts announces once the transaction has committed. A
 * write cannot be made without one, so none can forget to tell the other nodes.
 */
import { and, asc, eq, gt, inArray, isNotNull, isNull, lte, or, sql } from 'drizzle-orm';
import type { Db, Tx } from './db';
import { capturePurges, endpoints, type EndpointRow } from './schema';

/** An open transaction that changes endpoints, and the slugs it changed so far. */
export interface EndpointWrite {
  readonly tx: Tx;
  readonly changed: Set<string>;
}

export async function insertEndpoint(w: EndpointWrite, row: typeof endpoints.$inferInsert): Promise<EndpointRow | null> {
  const out = await w.tx.insert(endpoints).values(row).onConflictDoNothing().returning();
  const inserted = out[0] ?? null;
  // A receiver may have remembered the fresh slug as unknown a moment ago.
  if (inserted) w.changed.add(inserted.slug);
  return inserted;
}

export async function findEndpointBySlug(db: Db, slug: string): Promise<EndpointRow | null> {
  const out = await db.select().from(endpoints).where(eq(endpoints.slug, slug)).limit(1);
  return out[0] ?? null;
}

/**
 * The endpoints among `slugs`, in one query: the receiver's endpoint cache loads every cold slug
 * of a moment together. One array parameter, so every batch size is the same prepared statement.
 */
export async function findEndpointsBySlugs(db: Db, slugs: readonly string[]): Promise<EndpointRow[]> {
  if (slugs.length === 0) return [];
  return db
    .select()
    .from(endpoints)
    .where(sql`${endpoints.slug} = ANY(${sql.param([...slugs])}::text[])`);
}

/** By id: the notifier's restart replay knows a capture's endpoint only by id. */
export async function findEndpointById(db: Db, id: string): Promise<EndpointRow | null> {
  const out = await db.select().from(endpoints).where(eq(endpoints.id, id)).limit(1);
  return out[0] ?? null;
}

/** The account's endpoints that have not expired at `now` (an expired one is gone before the sweeper deletes it). */
export async function listUserEndpoints(db: Db, userId: string, now: number): Promise<EndpointRow[]> {
  return db
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.userId, userId), or(isNull(endpoints.expiresAt), gt(endpoints.expiresAt, now))))
    .orderBy(asc(endpoints.createdAt));
}

export async function updateEndpoint(
  w: EndpointWrite,
  id: string,
  patch: Partial<Pick<EndpointRow, 'name' | 'mockResponse' | 'notificationUrl' | 'signing' | 'notificationSigning' | 'expiresAt'>>,
  now: number,
): Promise<EndpointRow | null> {
  // Not one that expired meanwhile: a PATCH racing its expiry must not revive it (null: 404).
  const live = or(isNull(endpoints.expiresAt), gt(endpoints.expiresAt, now));
  const out = await w.tx.update(endpoints).set(patch).where(and(eq(endpoints.id, id), live)).returning();
  const row = out[0] ?? null;
  if (row) w.changed.add(row.slug);
  return row;
}

/**
 * Hides every capture received up to `at`; never moves the watermark backwards. Not an
 * `EndpointWrite`: the watermark is in no cache (every query reads it from Postgres).
 */
export async function clearEndpoint(db: Db, id: string, at: number): Promise<void> {
  await db
    .update(endpoints)
    .set({ clearedAt: sql`greatest(${endpoints.clearedAt}, ${at})` })
    .where(eq(endpoints.id, id));
}

/** Queues the captures of deleted endpoints for purging (same transaction as the delete). */
async function queuePurges(tx: Tx, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await tx
    .insert(capturePurges)
    .values(ids.map((endpointId) => ({ endpointId, queuedAt: now })))
    .onConflictDoNothing();
}

/** Deletes endpoints and queues their captures for purging. */
export async function deleteEndpoints(w: EndpointWrite, ids: readonly string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  const gone = await w.tx.delete(endpoints).where(inArray(endpoints.id, [...ids])).returning({ id: endpoints.id, slug: endpoints.slug });
  await queuePurges(
    w.tx,
    gone.map((e) => e.id),
    now,
  );
  for (const e of gone) w.changed.add(e.slug);
}

/** Deletes every endpoint of an account (before the account itself) and queues their captures for purging. */
export async function deleteUserEndpoints(w: EndpointWrite, userId: string, now: number): Promise<void> {
  const gone = await w.tx.delete(endpoints).where(eq(endpoints.userId, userId)).returning({ id: endpoints.id, slug: endpoints.slug });
  await queuePurges(
    w.tx,
    gone.map((e) => e.id),
    now,
  );
  for (const e of gone) w.changed.add(e.slug);
}

/**
 * Endpoints past their expiry, oldest first: sandbox endpoints of unclaimed agent keys and
 * accounts' endpoints created with `expiresIn`. The sweeper deletes them as DELETE does.
 */
export async function listExpiredEndpoints(db: Db, now: number, limit: number): Promise<{ id: string; slug: string }[]> {
  return db
    .select({ id: endpoints.id, slug: endpoints.slug })
    .from(endpoints)
    .where(and(isNotNull(endpoints.expiresAt), lte(endpoints.expiresAt, now)))
    .orderBy(asc(endpoints.expiresAt))
    .limit(limit);
}

export async function listPendingPurges(db: Db, limit: number): Promise<string[]> {
  const out = await db.select({ id: capturePurges.endpointId }).from(capturePurges).limit(limit);
  return out.map((r) => r.id);
}

export async function donePurges(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(capturePurges).where(inArray(capturePurges.endpointId, ids));
}
