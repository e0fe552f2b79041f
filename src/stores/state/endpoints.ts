/** Queries on capture endpoints. Reads are always scoped to an owner by the caller's verb. */
import { and, asc, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from './db';
import { capturePurges, endpoints, type EndpointRow } from './schema';

export async function insertEndpoint(db: Db, row: typeof endpoints.$inferInsert): Promise<EndpointRow | null> {
  const out = await db.insert(endpoints).values(row).onConflictDoNothing().returning();
  return out[0] ?? null;
}

export async function findEndpointBySlug(db: Db, slug: string): Promise<EndpointRow | null> {
  const out = await db.select().from(endpoints).where(eq(endpoints.slug, slug)).limit(1);
  return out[0] ?? null;
}

export async function listUserEndpoints(db: Db, userId: string): Promise<EndpointRow[]> {
  return db.select().from(endpoints).where(eq(endpoints.userId, userId)).orderBy(asc(endpoints.createdAt));
}

export async function updateEndpoint(
  db: Db,
  id: string,
  patch: Partial<Pick<EndpointRow, 'name' | 'mockResponse' | 'notificationUrl' | 'signing' | 'clearedAt'>>,
): Promise<EndpointRow | null> {
  const out = await db.update(endpoints).set(patch).where(eq(endpoints.id, id)).returning();
  return out[0] ?? null;
}

/** Hides every capture received up to `at`; never moves the watermark backwards. */
export async function clearEndpoint(db: Db, id: string, at: number): Promise<void> {
  await db
    .update(endpoints)
    .set({ clearedAt: sql`greatest(${endpoints.clearedAt}, ${at})` })
    .where(eq(endpoints.id, id));
}

/** Deletes endpoints and queues their captures for purging, in one transaction. */
export async function deleteEndpoints(db: Db, ids: string[], now: number): Promise<void> {
  if (ids.length === 0) return;
  await db.transaction(async (tx) => {
    await tx
      .insert(capturePurges)
      .values(ids.map((endpointId) => ({ endpointId, queuedAt: now })))
      .onConflictDoNothing();
    await tx.delete(endpoints).where(inArray(endpoints.id, ids));
  });
}

export async function listPendingPurges(db: Db, limit: number): Promise<string[]> {
  const out = await db.select({ id: capturePurges.endpointId }).from(capturePurges).limit(limit);
  return out.map((r) => r.id);
}

export async function donePurges(db: Db, ids: string[]): Promise<void> {
  if (ids.length === 0) return;
  await db.delete(capturePurges).where(inArray(capturePurges.endpointId, ids));
}
