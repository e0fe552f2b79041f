/**
 * Removes captures older than their account's plan retention (docs/retention.md), in the
 * background on API nodes: ClickHouse drops whole weekly partitions where it can and uses
 * mutations where it cannot; SQLite deletes in small batches. Pinned captures stay.
 */
import { log } from '../log';
import { DAY_MS, retentionDays } from '../model/retention';
import type { ExpiryResult, ExpiryRule, KeptCapture } from '../stores/captures/types';
import * as pinStore from '../stores/state/pins';
import type { PinRow } from '../stores/state/schema';
import { errorMessage } from '../unknown';
import type { Ctx } from './context';
import { runEvery, type Periodic } from './periodic';

const kept = (rows: PinRow[]): KeptCapture[] => rows.map((p) => ({ id: p.captureId, endpointId: p.endpointId, receivedAt: p.receivedAt }));

export type SweepResult = ExpiryResult & { deadPins: number };

/**
 * The most endpoints on retention periods longer than the rest's that a sweep lists by name (the
 * store's mutation for the rest excludes them; ~35 bytes each in ClickHouse's statement).
 */
const MAX_LONGER_LISTED = 100_000;

/**
 * The retention period (days) whose cutoff a sweep gives every endpoint it does not list: the one
 * with the most endpoints (on a tie, the longer), among those with at most `maxLonger` endpoints on
 * longer periods (those are listed by name to be kept out of its removal). The longest period
 * always qualifies. `endpointsByDays` must not be empty.
 */
export function unlistedPeriod(endpointsByDays: ReadonlyMap<number, number>, maxLonger = MAX_LONGER_LISTED): number {
  const periods = [...endpointsByDays];
  const longerThan = (days: number) => periods.filter(([d]) => d > days).reduce((n, [, count]) => n + count, 0);
  const best = periods.filter(([days]) => longerThan(days) <= maxLonger).sort((a, b) => b[1] - a[1] || b[0] - a[0])[0];
  if (!best) throw new Error('unlistedPeriod: no retention period');
  return best[0];
}

/** One sweep. `now` is the clock plus RETENTION_CLOCK_OFFSET_MS. */
export async function sweepRetention(ctx: Pick<Ctx, 'db' | 'config' | 'captures' | 'clock'>, now = ctx.clock.now() + ctx.config.retention.clockOffsetMs): Promise<SweepResult> {
  const deadPins = await pinStore.dropDeadPins(ctx.db);
  // Endpoints per retention period in use, counted by Postgres. The period with the most endpoints
  // is every unlisted endpoint's; only the endpoints on other periods are listed (with 1,000,000
  // endpoints, a sweep that read every endpoint's row held the service's thread for up to 0.8 s:
  // docs/retention.md). Endpoints on a longer period are kept out of the store's one mutation for
  // the rest by name, so at most MAX_LONGER_LISTED of them may be; past that, the longest period
  // is the rest's instead (then nothing needs excluding).
  const byDays = new Map<number, { plans: (string | null)[]; endpoints: number }>();
  for (const { plan, endpoints } of await pinStore.endpointCountsByPlan(ctx.db)) {
    const days = retentionDays(ctx.config.plans, plan);
    const group = byDays.get(days) ?? { plans: [], endpoints: 0 };
    group.plans.push(plan);
    group.endpoints += endpoints;
    byDays.set(days, group);
  }
  if (byDays.size === 0) return { partitionsDropped: 0, mutations: 0, rowsDeleted: 0, mutationsPending: false, deadPins };
  const restDays = unlistedPeriod(new Map([...byDays].map(([days, g]) => [days, g.endpoints])));
  const rules: ExpiryRule[] = [];
  for (const [days, group] of byDays) {
    if (days === restDays) continue;
    const endpointIds = await pinStore.endpointsOnPlans(ctx.db, group.plans);
    if (endpointIds.length > 0) rules.push({ before: now - days * DAY_MS, endpointIds });
  }
  const result = await ctx.captures.expire({
    othersBefore: now - restDays * DAY_MS,
    rules,
    keptOf: async (ids) => kept(await pinStore.pinsOfEndpoints(ctx.db, ids)),
    keptBetween: async (from, to) => kept(await pinStore.pinsBetween(ctx.db, from, to)),
    batchRows: ctx.config.retention.batchRows,
  });
  return { ...result, deadPins };
}

export interface Retention extends Periodic {
  /** A sweep now (the operator's `admin retention`), after the one in flight if any. */
  sweepNow(): Promise<SweepResult>;
}

/** Sweeps soon after start, then every RETENTION_INTERVAL_MS; returns the stop function. */
export function startRetention(ctx: Ctx): Retention {
  let running: Promise<SweepResult> | null = null;
  const runOne = () => {
    const run = (async () => {
      const r = await sweepRetention(ctx);
      if (r.partitionsDropped + r.mutations + r.rowsDeleted + r.deadPins > 0) log.info('retention sweep', { ...r });
      return r;
    })().finally(() => {
      if (running === run) running = null;
    });
    running = run;
    return run;
  };
  // One sweep at a time, whether the first one, a periodic one or the operator started it.
  const sweep = async () => {
    if (running) return;
    await runOne();
  };
  const onError = (err: unknown) => log.warn('retention sweep failed; will retry', { error: errorMessage(err) });
  const first = setTimeout(() => void sweep().catch(onError), 1_000);
  const periodic = runEvery(ctx.config.retention.everyMs, sweep, onError);
  return {
    async sweepNow() {
      while (running) await running.catch(() => {});
      return runOne();
    },
    async stop() {
      clearTimeout(first);
      await periodic.stop();
      await running?.catch(() => {});
    },
  };
}
