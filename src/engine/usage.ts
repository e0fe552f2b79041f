/**
 * Usage counting and quota admission on the capture path (SPEC 4.4).
 *
 * Per node, each active account has an in-memory counter. `captured` adds one; a timer flushes the
 * deltas to Postgres every USAGE_FLUSH_MS in one upsert per batch (`used = used + delta`) and reads
 * back every active account's total and plan, so each node sees what the others counted up to
 * their last flush. `admit` refuses when that total plus this node's unflushed count reaches the
 * plan's quota. Both hooks are a map lookup and an addition: nothing on the capture path waits on
 * Postgres.
 *
 * The price is a bounded overshoot: another node's captures become visible here only after its
 * flush and our next read, so N nodes can together admit up to about N × USAGE_FLUSH_MS × (rate
 * per node) captures past the quota, plus captures in flight between `admit` and `captured`.
 * A node that has not seen an account yet judges it by the free plan and its own count until its
 * next read (at most one interval). Exact cross-node admission would put a Postgres round-trip
 * in front of every capture; a quota is a billing boundary, not a security one.
 *
 * Sandbox endpoints (no owning account: an unclaimed agent key's) are counted apart, per key,
 * against the sandbox quota (SANDBOX_MAX_CAPTURES a month). That count is this node's alone and
 * kept in memory: N receiver nodes admit up to N times the quota, and a restart starts it again —
 * a bound on free anonymous storage, not a billing figure (docs/security.md).
 */
import { systemClock, type Clock } from '../clock';
import { log } from '../log';
import type { Capture } from '../model/capture';
import { resolvePlan, secondsUntil, usagePeriod, type UsagePeriod } from '../model/usage';
import type { EndpointSnapshot } from './endpoint-cache';
import type { CaptureHooks } from './capture';
import { ReceiverRefusal } from './refusals';
import { errorMessage } from '../unknown';

/** Where counts are kept (Postgres): see stores/state/usage.ts. */
export interface UsageStore {
  /** Adds each account's delta to the period, as of `now`; returns the new totals (deleted accounts absent). */
  add(periodStart: number, deltas: ReadonlyMap<string, number>, now: number): Promise<Map<string, number>>;
  /** Plan and total of each account in the period (deleted accounts absent). */
  read(periodStart: number, userIds: readonly string[]): Promise<Map<string, { plan: string; used: number }>>;
}

export interface UsageMeterOptions {
  store: UsageStore;
  plans: Readonly<Record<string, { limit: number }>>;
  flushMs: number;
  /** An account not seen for this long, with nothing left to flush, is forgotten. */
  idleMs?: number;
  /** Accounts per statement, so one statement never carries an unbounded parameter list. */
  batchSize?: number;
  /** Captures a month one agent key's sandbox endpoints may make, per node; undefined = no cap. */
  sandboxLimit?: number;
  /** Where the time is read (the service's clock; the system clock if none). */
  clock?: Clock;
}

/** Whose sandbox an endpoint without an account belongs to. */
const sandboxOwner = (endpoint: EndpointSnapshot): string => endpoint.ownerKeyId ?? endpoint.id;

interface Account {
  /** Start of the period the counts below belong to. */
  period: number;
  plan: string;
  limit: number;
  /** Total in Postgres as of this node's last flush or read. */
  stored: number;
  /** Counted here since the last flush. */
  unsent: number;
  /** Part of the flush under way; added to `stored` when it lands. */
  inFlight: number;
  seenAt: number;
}

interface Leftover {
  userId: string;
  periodStart: number;
  delta: number;
}

export class UsageMeter implements CaptureHooks {
  private readonly accounts = new Map<string, Account>();
  /** Sandbox captures per agent key in the current period (this node only). */
  private readonly sandbox = new Map<string, { period: number; count: number }>();
  /** Counts of an earlier period still to be written (a month rolled over before they were). */
  private leftovers: Leftover[] = [];
  private period: UsagePeriod;
  private readonly clock: Clock;
  private readonly idleMs: number;
  private readonly batchSize: number;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private ticking: Promise<void> | null = null;
  private stopped = false;

  constructor(private readonly opts: UsageMeterOptions) {
    this.clock = opts.clock ?? systemClock;
    this.period = usagePeriod(this.clock.now());
    this.idleMs = opts.idleMs ?? 10 * 60_000;
    this.batchSize = opts.batchSize ?? 1_000;
  }

  admit(endpoint: EndpointSnapshot): ReceiverRefusal | null {
    if (endpoint.userId === null) return this.admitSandbox(endpoint);
    const now = this.clock.now();
    const a = this.account(endpoint.userId, now);
    if (a.stored + a.inFlight + a.unsent < a.limit) return null;
    const resets = this.period.end;
    return new ReceiverRefusal(
      'quota_exceeded',
      `the monthly quota of ${a.limit} requests on the ${a.plan} plan is used up; nothing was stored. It resets at ${new Date(resets).toISOString()}`,
      { 'retry-after': String(secondsUntil(resets, now)) },
    );
  }

  captured(capture: Capture, endpoint: EndpointSnapshot): void {
    if (endpoint.userId === null) {
      if (this.opts.sandboxLimit !== undefined) this.sandboxCount(sandboxOwner(endpoint), capture.receivedAt).count += 1;
      return;
    }
    this.account(endpoint.userId, capture.receivedAt).unsent += 1;
  }

  private admitSandbox(endpoint: EndpointSnapshot): ReceiverRefusal | null {
    const limit = this.opts.sandboxLimit;
    if (limit === undefined) return null;
    const now = this.clock.now();
    if (this.sandboxCount(sandboxOwner(endpoint), now).count < limit) return null;
    const resets = this.period.end;
    return new ReceiverRefusal(
      'sandbox_quota_exceeded',
      `this agent key's sandbox has used its ${limit} captures for the month; nothing was stored. Claim the key to use an account's plan, or wait until ${new Date(resets).toISOString()}`,
      { 'retry-after': String(secondsUntil(resets, now)) },
    );
  }

  private sandboxCount(owner: string, now: number): { period: number; count: number } {
    const period = this.currentPeriod(now).start;
    let c = this.sandbox.get(owner);
    if (!c || c.period !== period) {
      c = { period, count: 0 };
      this.sandbox.set(owner, c);
    }
    return c;
  }

  /** Flushes and refreshes every `flushMs`, one pass at a time, until `stop`. */
  start(): void {
    if (this.stopped || this.timer) return;
    this.timer = setTimeout(() => {
      this.ticking = this.tick()
        .catch((err: unknown) => log.warn('usage flush failed', { error: errorMessage(err) }))
        .finally(() => {
          this.ticking = null;
          this.timer = null;
          this.start();
        });
    }, this.opts.flushMs);
  }

  /** Stops the timer and writes what is left, so a clean shutdown loses no counts. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    await this.ticking;
    await this.flush(this.clock.now());
    const lost = this.leftovers.reduce((n, l) => n + l.delta, 0) + [...this.accounts.values()].reduce((n, a) => n + a.unsent, 0);
    if (lost > 0) log.warn('usage counts not written at shutdown', { captures: lost });
  }

  /** One flush-and-read pass now, after any pass under way (what the timer runs). */
  async sync(): Promise<void> {
    await this.ticking;
    await this.tick();
  }

  private async tick(): Promise<void> {
    const now = this.clock.now();
    await this.flush(now);
    await this.refresh();
    this.forgetIdle(now);
  }

  private currentPeriod(now: number): UsagePeriod {
    // Only moves forward: a capture stamped just before a rollover counts in the new month.
    if (now >= this.period.end) this.period = usagePeriod(now);
    return this.period;
  }

  private account(userId: string, now: number): Account {
    const period = this.currentPeriod(now).start;
    let a = this.accounts.get(userId);
    if (!a) {
      // Until the first read, judged by the plan every account starts on and this node's count.
      const plan = resolvePlan(this.opts.plans, 'free');
      a = { period, plan: plan.name, limit: plan.limit, stored: 0, unsent: 0, inFlight: 0, seenAt: now };
      this.accounts.set(userId, a);
    } else if (a.period !== period) {
      this.rollOver(userId, a, period);
    }
    a.seenAt = now;
    return a;
  }

  /** A new month: unsent counts go to the old month, the new one starts at 0. */
  private rollOver(userId: string, a: Account, period: number): void {
    if (a.unsent > 0) this.leftovers.push({ userId, periodStart: a.period, delta: a.unsent });
    // A flush under way keeps its own copy of `inFlight` and files it under the old month.
    a.period = period;
    a.stored = 0;
    a.unsent = 0;
    a.inFlight = 0;
  }

  private async flush(now: number): Promise<void> {
    const period = this.currentPeriod(now).start;
    const current = new Map<string, number>();
    for (const [id, a] of this.accounts) {
      if (a.period !== period) this.rollOver(id, a, period);
      if (a.unsent > 0) {
        current.set(id, a.unsent);
        a.inFlight += a.unsent;
        a.unsent = 0;
      }
    }
    await this.flushLeftovers(now);
    for (const part of chunks([...current], this.batchSize)) {
      const deltas = new Map(part);
      let totals: Map<string, number> | null = null;
      try {
        totals = await this.opts.store.add(period, deltas, now);
      } catch (err) {
        log.warn('usage flush failed; will retry', { accounts: deltas.size, error: errorMessage(err) });
      }
      for (const [id, delta] of deltas) {
        const a = this.accounts.get(id);
        if (a && a.period === period) {
          a.inFlight -= delta;
          const total = totals?.get(id);
          if (total !== undefined) a.stored = total;
          else if (!totals) a.unsent += delta;
        } else if (!totals) {
          this.leftovers.push({ userId: id, periodStart: period, delta });
        }
      }
    }
  }

  private async flushLeftovers(now: number): Promise<void> {
    if (this.leftovers.length === 0) return;
    const byPeriod = new Map<number, Map<string, number>>();
    for (const l of this.leftovers.splice(0)) {
      const m = byPeriod.get(l.periodStart) ?? new Map<string, number>();
      m.set(l.userId, (m.get(l.userId) ?? 0) + l.delta);
      byPeriod.set(l.periodStart, m);
    }
    for (const [periodStart, deltas] of byPeriod) {
      for (const part of chunks([...deltas], this.batchSize)) {
        try {
          await this.opts.store.add(periodStart, new Map(part), now);
        } catch (err) {
          for (const [userId, delta] of part) this.leftovers.push({ userId, periodStart, delta });
          log.warn('usage flush of an earlier month failed; will retry', { error: errorMessage(err) });
        }
      }
    }
  }

  /** Reads every active account's total (all nodes' flushed counts) and its current plan. */
  private async refresh(): Promise<void> {
    const period = this.period.start;
    for (const ids of chunks([...this.accounts.keys()], this.batchSize)) {
      const rows = await this.opts.store.read(period, ids);
      for (const id of ids) {
        const a = this.accounts.get(id);
        if (!a) continue;
        const row = rows.get(id);
        if (!row) {
          // The account was deleted: nothing of it is counted any more.
          this.accounts.delete(id);
          continue;
        }
        const plan = resolvePlan(this.opts.plans, row.plan);
        a.plan = plan.name;
        a.limit = plan.limit;
        // Only when no flush of this account is under way, or `stored` would count it twice.
        if (a.period === period && a.inFlight === 0) a.stored = row.used;
      }
    }
  }

  private forgetIdle(now: number): void {
    for (const [id, a] of this.accounts) {
      if (now - a.seenAt > this.idleMs && a.unsent === 0 && a.inFlight === 0) this.accounts.delete(id);
    }
    const period = this.currentPeriod(now).start;
    for (const [owner, c] of this.sandbox) if (c.period !== period) this.sandbox.delete(owner);
  }
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}
