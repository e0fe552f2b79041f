/**
 * The usage period and plan facts shared by the capture path (admission) and the API (reporting),
 * so both agree on which month a capture counts in and which quota applies.
 */

/** A usage period: the calendar month in UTC, [start, end) in ms since epoch. */
export interface UsagePeriod {
  start: number;
  end: number;
}

/** The calendar month (UTC) that contains `now`. */
export function usagePeriod(now: number): UsagePeriod {
  const d = new Date(now);
  const start = Date.UTC(d.getUTCFullYear(), d.getUTCMonth(), 1);
  const end = Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
  return { start, end };
}

export interface Plan {
  name: string;
  limit: number;
}

/**
 * The plan an account's `plan` column names. A name missing from the configuration (a plan
 * retired from PLANS) falls back to `free`, so an account is never left without a quota.
 */
export function resolvePlan(plans: Readonly<Record<string, { limit: number }>>, name: string): Plan {
  const plan = plans[name];
  if (plan) return { name, limit: plan.limit };
  return { name: 'free', limit: plans.free?.limit ?? 0 };
}

/** Whole seconds from `now` until `until`, at least 1 (the value of a Retry-After header). */
export function secondsUntil(until: number, now: number): number {
  return Math.max(1, Math.ceil((until - now) / 1000));
}
