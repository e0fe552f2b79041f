/** SPEC 4.4: an account's usage against its plan's monthly quota. */
import { retentionDays } from '../model/retention';
import { resolvePlan, usagePeriod } from '../model/usage';
import { usedInPeriod } from '../stores/state/usage';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';

export interface Usage {
  used: number;
  limit: number;
  remaining: number;
  plan: string;
  periodEnd: number;
  /** Days a capture is kept (the plan's retention; pinned captures are kept longer). */
  retentionDays: number;
}

/**
 * Reads what receiver nodes have flushed, so `used` trails the captures by at most one flush
 * interval (USAGE_FLUSH_MS). It can pass `limit` by the small overshoot several nodes allow;
 * `remaining` never goes below 0.
 */
export async function getUsage(ctx: Ctx, user: UserRow, now = ctx.clock.now()): Promise<Usage> {
  const period = usagePeriod(now);
  const plan = resolvePlan(ctx.config.plans, user.plan);
  const used = await usedInPeriod(ctx.db, user.id, period.start);
  return {
    used,
    limit: plan.limit,
    remaining: Math.max(0, plan.limit - used),
    plan: plan.name,
    periodEnd: period.end,
    retentionDays: retentionDays(ctx.config.plans, plan.name),
  };
}
