/** Pinned captures: the few kept past retention (sql/006_pins.sql, docs/retention.md). */
import { and, count, eq, gte, inArray, isNull, lt, or, sql } from 'drizzle-orm';
import { inTransaction, type Db } from './db';
import { endpoints, pinnedCaptures, users, type PinRow } from './schema';

export type PinResult = 'pinned' | 'already' | 'limit';

/**
 * Pins one capture unless whoever pins it (`pin.pinnedBy`) already holds `limit` pins, on any
 * endpoint. The pinner's account row is locked for the count and insert, so two pins at once
 * cannot both take the last place.
 */
export async function pinCapture(db: Db, pin: PinRow & { pinnedBy: string }, limit: number): Promise<PinResult> {
  return inTransaction(db, async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, pin.pinnedBy)).for('update');
    const existing = await tx.select({ id: pinnedCaptures.captureId }).from(pinnedCaptures).where(eq(pinnedCaptures.captureId, pin.captureId));
    if (existing.length > 0) return 'already';
    const [held] = await tx.select({ n: count() }).from(pinnedCaptures).where(eq(pinnedCaptures.pinnedBy, pin.pinnedBy));
    if ((held?.n ?? 0) >= limit) return 'limit';
    await tx.insert(pinnedCaptures).values(pin).onConflictDoNothing();
    return 'pinned';
  });
}

/** Unpins a capture `userId` pinned, whether or not they may still read it; whether there was one. */
export async function unpinOwnPin(db: Db, captureId: string, userId: string): Promise<boolean> {
  const gone = await db
    .delete(pinnedCaptures)
    .where(and(eq(pinnedCaptures.captureId, captureId), eq(pinnedCaptures.pinnedBy, userId)))
    .returning({ id: pinnedCaptures.captureId });
  return gone.length > 0;
}

/**
 * Unpins one capture if `userId` owns its endpoint (the pin's account) or pinned it: 'unpinned',
 * 'not_pinned', or 'forbidden' (pinned, by someone else, on another account's endpoint).
 */
export async function unpinCapture(db: Db, captureId: string, userId: string): Promise<'unpinned' | 'not_pinned' | 'forbidden'> {
  const gone = await db
    .delete(pinnedCaptures)
    .where(and(eq(pinnedCaptures.captureId, captureId), or(eq(pinnedCaptures.accountId, userId), eq(pinnedCaptures.pinnedBy, userId))))
    .returning({ id: pinnedCaptures.captureId });
  if (gone.length > 0) return 'unpinned';
  const left = await db.select({ id: pinnedCaptures.captureId }).from(pinnedCaptures).where(eq(pinnedCaptures.captureId, captureId));
  return left.length > 0 ? 'forbidden' : 'not_pinned';
}

/** Which of these captures are pinned. */
export async function pinnedAmong(db: Db, captureIds: readonly string[]): Promise<Set<string>> {
  if (captureIds.length === 0) return new Set();
  const rows = await db.select({ id: pinnedCaptures.captureId }).from(pinnedCaptures).where(inArray(pinnedCaptures.captureId, [...captureIds]));
  return new Set(rows.map((r) => r.id));
}

/** The pins of these endpoints. */
export async function pinsOfEndpoints(db: Db, endpointIds: readonly string[]): Promise<PinRow[]> {
  if (endpointIds.length === 0) return [];
  return db.select().from(pinnedCaptures).where(inArray(pinnedCaptures.endpointId, [...endpointIds]));
}

/** Pins of captures received in [from, to): does a weekly ClickHouse partition hold any? */
export async function pinsBetween(db: Db, from: number, to: number): Promise<PinRow[]> {
  return db
    .select()
    .from(pinnedCaptures)
    .where(and(gte(pinnedCaptures.receivedAt, from), lt(pinnedCaptures.receivedAt, to)));
}

/**
 * Drops pins that keep nothing: their endpoint is gone (its captures are purged) or was cleared
 * after the capture (hidden from every read). They would otherwise hold places under the cap.
 * Also the pins of a deleted account (a team member's on a shared endpoint): a pin is its maker's
 * and counts against nobody else, so it goes with them, and the capture returns to retention.
 */
export async function dropDeadPins(db: Db): Promise<number> {
  const gone = await db
    .delete(pinnedCaptures)
    .where(
      or(
        sql`NOT EXISTS (SELECT 1 FROM ${endpoints} WHERE ${endpoints.id} = ${pinnedCaptures.endpointId} AND ${endpoints.clearedAt} < ${pinnedCaptures.receivedAt})`,
        sql`${pinnedCaptures.pinnedBy} IS NOT NULL AND NOT EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = ${pinnedCaptures.pinnedBy})`,
      ),
    )
    .returning({ id: pinnedCaptures.captureId });
  return gone.length;
}

/**
 * How many endpoints each plan's accounts own; plan null for endpoints no account owns (an agent's
 * sandbox). Postgres does the grouping, so a sweep does not read every endpoint's row.
 */
export async function endpointCountsByPlan(db: Db): Promise<{ plan: string | null; endpoints: number }[]> {
  const rows = await db
    .select({ plan: users.plan, endpoints: count() })
    .from(endpoints)
    .leftJoin(users, eq(users.id, endpoints.userId))
    .groupBy(users.plan);
  return rows.map((r) => ({ plan: r.plan, endpoints: Number(r.endpoints) }));
}

/** Ids of the endpoints whose owning account is on one of `plans` (null: no owning account). */
export async function endpointsOnPlans(db: Db, plans: readonly (string | null)[]): Promise<string[]> {
  const names = plans.filter((p): p is string => p !== null);
  const conditions = [...(names.length > 0 ? [inArray(users.plan, names)] : []), ...(plans.includes(null) ? [isNull(users.plan)] : [])];
  if (conditions.length === 0) return [];
  const rows = await db
    .select({ id: endpoints.id })
    .from(endpoints)
    .leftJoin(users, eq(users.id, endpoints.userId))
    .where(or(...conditions));
  return rows.map((r) => r.id);
}
