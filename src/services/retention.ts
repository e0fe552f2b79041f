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

/** One sweep. `now` is the clock plus RETENTION_CLOCK_OFFSET_MS. */
export async function sweepRetention(ctx: Pick<Ctx, 'db' | 'config' | 'captures' | 'clock'>, now = ctx.clock.now() + ctx.config.retention.clockOffsetMs): Promise<SweepResult> {
  const deadPins = await pinStore.dropDeadPins(ctx.db);
  // Plans in use, grouped by retention: the longest sets the floor for every endpoint, and only
  // the endpoints on shorter ones are listed (with 1,000,000 endpoints on one plan, a sweep read
  // every endpoint's row on the service's thread and held it for up to 0.8 s: docs/retention.md).
  const plansByDays = new Map<number, (string | null)[]>();
  for (const plan of await pinStore.plansInUse(ctx.db)) {
    const days = retentionDays(ctx.config.plans, plan);
    plansByDays.set(days, [...(plansByDays.get(days) ?? []), plan]);
  }
  if (plansByDays.size === 0) return { partitionsDropped: 0, mutations: 0, rowsDeleted: 0, mutationsPending: false, deadPins };
  const longest = Math.max(...plansByDays.keys());
  const rules: ExpiryRule[] = [];
  for (const [days, plans] of plansByDays) {
    if (days === longest) continue;
    const endpointIds = await pinStore.endpointsOnPlans(ctx.db, plans);
    if (endpointIds.length > 0) rules.push({ before: now - days * DAY_MS, endpointIds });
  }
  const result = await ctx.captures.expire({
    floor: now - longest * DAY_MS,
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
