/** Queries on usage_counters. Every value goes through drizzle's parameters. */
import { and, eq, inArray, sql } from 'drizzle-orm';
import type { Db } from './db';
import { usageCounters, users } from './schema';

/**
 * Adds each account's delta to its row of the period in one statement and returns the new
 * totals. Accounts deleted meanwhile are skipped (not an error), so one deleted account never
 * blocks the batch of everyone else.
 */
export async function addUsage(
  db: Db,
  periodStart: number,
  deltas: ReadonlyMap<string, number>,
  now: number,
): Promise<Map<string, number>> {
  const totals = new Map<string, number>();
  if (deltas.size === 0) return totals;
  const values = sql.join(
    [...deltas].map(([userId, delta]) => sql`(${userId}::text, ${delta}::bigint)`),
    sql`, `,
  );
  const rows = await db
    .insert(usageCounters)
    .select(
      sql`SELECT v.user_id, ${periodStart}::bigint, v.delta, ${now}::bigint
          FROM (VALUES ${values}) AS v (user_id, delta)
          WHERE EXISTS (SELECT 1 FROM ${users} WHERE ${users.id} = v.user_id)`,
    )
    .onConflictDoUpdate({
      target: [usageCounters.userId, usageCounters.periodStart],
      set: { used: sql`${usageCounters.used} + excluded.used`, updatedAt: sql`excluded.updated_at` },
    })
    .returning({ userId: usageCounters.userId, used: usageCounters.used });
  for (const r of rows) totals.set(r.userId, Number(r.used));
  return totals;
}

export interface AccountUsage {
  plan: string;
  used: number;
}

/** Plan and usage in the period of each account that still exists (missing ones are absent). */
export async function readUsage(db: Db, periodStart: number, userIds: readonly string[]): Promise<Map<string, AccountUsage>> {
  const out = new Map<string, AccountUsage>();
  if (userIds.length === 0) return out;
  const rows = await db
    .select({ userId: users.id, plan: users.plan, used: sql<number>`coalesce(${usageCounters.used}, 0)`.mapWith(Number) })
    .from(users)
    .leftJoin(usageCounters, and(eq(usageCounters.userId, users.id), eq(usageCounters.periodStart, periodStart)))
    .where(inArray(users.id, [...userIds]));
  for (const r of rows) out.set(r.userId, { plan: r.plan, used: r.used });
  return out;
}

/** One account's usage in the period (0 when it has no row yet). */
export async function usedInPeriod(db: Db, userId: string, periodStart: number): Promise<number> {
  const rows = await db
    .select({ used: usageCounters.used })
    .from(usageCounters)
    .where(and(eq(usageCounters.userId, userId), eq(usageCounters.periodStart, periodStart)))
    .limit(1);
  return Number(rows[0]?.used ?? 0);
}

/** The usage store the capture path's meter flushes to (engine/usage.ts `UsageStore`). */
export const usageStoreOn = (db: Db) => ({
  add: (periodStart: number, deltas: ReadonlyMap<string, number>, now: number) => addUsage(db, periodStart, deltas, now),
  read: (periodStart: number, userIds: readonly string[]) => readUsage(db, periodStart, userIds),
});
