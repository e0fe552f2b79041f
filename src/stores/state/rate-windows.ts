/** Queries on rate_limit_counters: one fixed window per bucket, shared by every node. */
import { lt, sql } from 'drizzle-orm';
import type { Db } from './db';
import { rateLimitCounters } from './schema';

export interface WindowCount {
  /** Requests counted in the window so far, this one included. */
  count: number;
  /** Start of the window the request was counted in (ms). */
  windowStart: number;
}

/**
 * Counts one request in the bucket's window, in one round-trip. A request from a newer window
 * starts the count again at 1; one from an older window (a node whose clock lags) is counted in
 * the newer one, so clock skew between nodes never resets a count.
 */
export async function hitWindow(db: Db, bucket: string, windowStart: number, windowMs: number): Promise<WindowCount> {
  const c = rateLimitCounters;
  const rows = await db
    .insert(c)
    .values({ bucket, windowStart, count: 1, expiresAt: windowStart + windowMs })
    .onConflictDoUpdate({
      target: c.bucket,
      set: {
        count: sql`CASE WHEN excluded.window_start > ${c.windowStart} THEN 1 ELSE ${c.count} + 1 END`,
        windowStart: sql`GREATEST(${c.windowStart}, excluded.window_start)`,
        expiresAt: sql`GREATEST(${c.expiresAt}, excluded.expires_at)`,
      },
    })
    .returning({ count: c.count, windowStart: c.windowStart });
  const row = rows[0];
  if (!row) throw new Error('rate_limit_counters upsert returned no row');
  return { count: row.count, windowStart: Number(row.windowStart) };
}

/** Deletes counters whose window ended before `now`; returns how many. */
export async function sweepWindows(db: Db, now: number): Promise<number> {
  const out = await db.delete(rateLimitCounters).where(lt(rateLimitCounters.expiresAt, now)).returning({ bucket: rateLimitCounters.bucket });
  return out.length;
}
