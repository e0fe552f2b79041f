/**
 * Notifications off the capture path: the capture hook only appends a small job to a bounded
 * in-memory queue; a few concurrent senders deliver it later, retrying network errors, timeouts,
 * 429 and 5xx with exponential backoff and jitter. When the queue is full new notifications are
 * dropped and counted rather than slowing captures or growing memory.
 *
 * The queue is fair between tenants (accounts, or an agent key's sandbox): each holds at most its
 * share of the pending notifications, and senders take jobs from the tenants in turn, so one
 * account's flood neither fills the queue nor delays everyone else's deliveries.
 *
 * Delivery is at-least-once across restarts: each job remembers where its capture's frame starts
 * in the capture log, and notify-log.ts persists the earliest frame whose notification is not
 * settled (with the attempts made so far) and re-reads the log from there at start-up. This queue
 * is only the in-memory window over the log (docs/notifications.md).
 */
import type { Config } from '../config';
import { systemClock, type Clock } from '../clock';
import { log } from '../log';
import { errorMessage } from '../unknown';
import type { AllowList } from '../net/allow';
import type { Capture } from '../model/capture';
import type { EndpointSnapshot } from './endpoint-cache';
import type { CaptureHooks } from './capture';
import type { LogPosition } from './capture-log';
import { buildNotification, deliverNotification, NOTIFY_HOP_HEADER, type DeliveryOutcome, type NotificationPayload } from './notification-delivery';

export interface NotificationJob {
  url: string;
  payload: NotificationPayload;
  /** 1 for the first attempt. */
  attempt: number;
  /** Whose notification it is (fairness): an account id, an agent key id, or "" when unknown. */
  tenant: string;
  /** Notifications that led to the captured request (its x-hookcap-hop), plus one. */
  hop: number;
}

/** A notification not yet settled, as notify-log.ts persists it. */
export interface UnsettledNotification {
  /** Where its capture's frame starts in the capture log. */
  at: LogPosition;
  /** Attempts made and failed so far. */
  tries: number;
}

export interface EnqueueOptions {
  tenant?: string;
  hop?: number;
  /** The capture's frame in the log; without it the job is not tracked for restarts. */
  at?: LogPosition;
  /** The attempt to make first (after a restart: attempts already made, plus one). */
  attempt?: number;
}

export interface NotifierOptions {
  deliver: (job: NotificationJob) => Promise<DeliveryOutcome>;
  /** Most notifications held at once: queued, being sent, or waiting to retry. */
  queueLimit: number;
  /** Most of those one tenant may hold (default: queueLimit, i.e. no share). */
  tenantLimit?: number;
  maxAttempts: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** First retry delay; doubles per attempt. */
  backoffMs: number;
  /** No retry waits longer, not even for a receiver's Retry-After. */
  maxBackoffMs?: number;
  random?: () => number;
  /** Where the time is read (the service's clock; the system clock if none). */
  clock?: Clock;
}

export interface NotifierStats {
  /** Queued, in flight or waiting to retry. */
  pending: number;
  delivered: number;
  /** Given up: out of attempts or not retryable. */
  failed: number;
  /** Refused because the queue was full, or still pending at shutdown. */
  dropped: number;
  retries: number;
}

/**
 * Delay before attempt `failed + 1`: base·2^(failed−1) capped at max, then "equal jitter" (half
 * fixed, half random) so a receiver that failed many notifications at once is not hit in lockstep.
 */
export function backoffDelay(failedAttempts: number, baseMs: number, maxMs: number, random: () => number = Math.random): number {
  const exp = Math.min(maxMs, baseMs * 2 ** Math.max(0, failedAttempts - 1));
  return Math.round(exp / 2 + random() * (exp / 2));
}

/** A FIFO with O(1) push and shift (Array#shift is O(n)). */
class Fifo<T> {
  private items: T[] = [];
  private head = 0;

  get size(): number {
    return this.items.length - this.head;
  }

  push(item: T): void {
    this.items.push(item);
  }

  shift(): T | undefined {
    if (this.head >= this.items.length) return undefined;
    const item = this.items[this.head];
    this.head++;
    if (this.head > 1024 && this.head * 2 > this.items.length) {
      this.items = this.items.slice(this.head);
      this.head = 0;
    }
    return item;
  }

  clear(): number {
    const n = this.size;
    this.items = [];
    this.head = 0;
    return n;
  }
}

const DROP_LOG_EVERY_MS = 5_000;

/** One tenant's part of the queue. */
interface Tenant {
  readonly id: string;
  readonly queue: Fifo<NotificationJob>;
  /** Queued, in flight or waiting to retry. */
  pending: number;
  inFlight: number;
}

export class Notifier {
  private readonly tenants = new Map<string, Tenant>();
  /** Tenants with queued jobs, in the order senders serve them. */
  private readonly turn = new Fifo<Tenant>();
  private queued = 0;
  private readonly retryTimers = new Set<ReturnType<typeof setTimeout>>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxBackoffMs: number;
  private readonly tenantLimit: number;
  /** Deliveries one tenant may hold while another waits for a sender. */
  private readonly tenantShare: number;
  private readonly random: () => number;
  private pumpScheduled = false;
  private stopped = false;
  private lastDropLog = 0;
  private readonly counts = { delivered: 0, failed: 0, dropped: 0, retries: 0 };
  /** Tracked jobs (those with a log position) not yet delivered or given up, by capture id. */
  private readonly open = new Map<string, UnsettledNotification>();
  private readonly clock: Clock;

  constructor(private readonly opts: NotifierOptions) {
    this.clock = opts.clock ?? systemClock;
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
    this.tenantLimit = opts.tenantLimit ?? opts.queueLimit;
    this.tenantShare = Math.max(1, Math.floor(opts.concurrency / 2));
    this.random = opts.random ?? Math.random;
  }

  stats(): NotifierStats {
    return { pending: this.pending, ...this.counts };
  }

  private get pending(): number {
    return this.queued + this.inFlight.size + this.retryTimers.size;
  }

  /**
   * Queues one notification; false when it was dropped (queue or the tenant's share full, or
   * stopping). O(1) and synchronous: sending starts on a later tick, never inside the caller's turn.
   */
  enqueue(url: string, payload: NotificationPayload, from: EnqueueOptions = {}): boolean {
    const id = from.tenant ?? '';
    const tenant = this.tenants.get(id);
    if (!this.hasRoom(id)) {
      this.counts.dropped++;
      if (!this.stopped) this.logDrop();
      return false;
    }
    const t = tenant ?? this.addTenant(id);
    t.pending++;
    const attempt = Math.max(1, from.attempt ?? 1);
    if (from.at) this.open.set(payload.request.id, { at: from.at, tries: attempt - 1 });
    this.push(t, { url, payload, attempt, tenant: id, hop: from.hop ?? 1 });
    this.schedulePump();
    return true;
  }

  /** Whether enqueue would take a notification of `tenant` now (the restart replay waits for room). */
  hasRoom(tenant: string): boolean {
    return !this.stopped && this.pending < this.opts.queueLimit && (this.tenants.get(tenant)?.pending ?? 0) < this.tenantLimit;
  }

  /** Tracked notifications not yet delivered or given up (by capture id), including those left by stop(). */
  unsettled(): IterableIterator<[string, UnsettledNotification]> {
    return this.open.entries();
  }

  /**
   * Stops sending: drops what is queued or waiting to retry, and waits for attempts in flight.
   * Tracked jobs stay unsettled, so the next start sends them again (notify-log.ts).
   */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.retryTimers) clearTimeout(t);
    const dropped = this.queued + this.retryTimers.size;
    for (const t of this.tenants.values()) t.queue.clear();
    this.turn.clear();
    this.queued = 0;
    this.retryTimers.clear();
    this.counts.dropped += dropped;
    if (dropped > 0) log.warn('notifications dropped at shutdown', { dropped });
    await Promise.allSettled([...this.inFlight]);
  }

  private addTenant(id: string): Tenant {
    const t: Tenant = { id, queue: new Fifo(), pending: 0, inFlight: 0 };
    this.tenants.set(id, t);
    return t;
  }

  private push(t: Tenant, job: NotificationJob): void {
    if (t.queue.size === 0) this.turn.push(t);
    t.queue.push(job);
    this.queued++;
  }

  /** A job's notification is settled (delivered or given up): the tenant holds one less. */
  private settle(t: Tenant, job: NotificationJob): void {
    this.open.delete(job.payload.request.id);
    t.pending--;
    if (t.pending <= 0 && this.tenants.get(t.id) === t) this.tenants.delete(t.id);
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  /**
   * The next tenant to serve: the first in turn below its share of senders; when every waiting
   * tenant is at its share, the first in turn anyway (a lone busy tenant still gets every sender).
   */
  private nextTenant(): Tenant | undefined {
    let fallback: Tenant | undefined;
    for (let n = this.turn.size; n > 0; n--) {
      const t = this.turn.shift();
      if (!t) break;
      if (t.queue.size === 0) continue;
      if (t.inFlight < this.tenantShare) return t;
      fallback ??= t;
      this.turn.push(t);
    }
    if (fallback) this.removeFromTurn(fallback);
    return fallback;
  }

  private removeFromTurn(t: Tenant): void {
    for (let n = this.turn.size; n > 0; n--) {
      const other = this.turn.shift();
      if (other && other !== t) this.turn.push(other);
    }
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.opts.concurrency) {
      const t = this.nextTenant();
      const job = t?.queue.shift();
      if (!t || !job) return;
      this.queued--;
      // Back of the line: the other tenants go first.
      if (t.queue.size > 0) this.turn.push(t);
      t.inFlight++;
      const running: Promise<void> = this.attempt(t, job).finally(() => {
        t.inFlight--;
        this.inFlight.delete(running);
        this.pump();
      });
      this.inFlight.add(running);
    }
  }

  private async attempt(t: Tenant, job: NotificationJob): Promise<void> {
    const outcome = await this.opts.deliver(job).catch(
      (err: unknown): DeliveryOutcome => ({ ok: false, retry: true, reason: errorMessage(err) }),
    );
    if (outcome.ok) {
      this.counts.delivered++;
      this.settle(t, job);
      return;
    }
    if (this.stopped && outcome.retry && job.attempt < this.opts.maxAttempts) {
      // Stopping: not a give-up. The job stays unsettled and is tried again after the restart.
      this.countTry(job);
      this.counts.dropped++;
      t.pending--;
      return;
    }
    if (!outcome.retry || job.attempt >= this.opts.maxAttempts) {
      this.counts.failed++;
      this.settle(t, job);
      log.warn('notification failed', {
        endpoint: job.payload.endpoint.slug,
        requestId: job.payload.request.id,
        attempts: job.attempt,
        reason: outcome.reason,
      });
      return;
    }
    this.counts.retries++;
    this.countTry(job);
    const backoff = backoffDelay(job.attempt, this.opts.backoffMs, this.maxBackoffMs, this.random);
    const delay = Math.min(this.maxBackoffMs, Math.max(backoff, outcome.retryAfterMs ?? 0));
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.stopped) return;
      this.push(t, { ...job, attempt: job.attempt + 1 });
      this.pump();
    }, delay);
    this.retryTimers.add(timer);
  }

  /** One more failed attempt of a tracked job, for the persisted retry state. */
  private countTry(job: NotificationJob): void {
    const open = this.open.get(job.payload.request.id);
    if (open) open.tries = job.attempt;
  }

  private logDrop(): void {
    const now = this.clock.now();
    if (now - this.lastDropLog < DROP_LOG_EVERY_MS) return;
    this.lastDropLog = now;
    log.warn('notification queue full; dropping notifications', { dropped: this.counts.dropped, limit: this.opts.queueLimit, tenantLimit: this.tenantLimit });
  }
}

/**
 * A captured request that is itself the MAX_NOTIFY_HOPS-th notification in a row does not notify
 * again: a loop through our own receiver (a redirect, another host name for it) ends there. PATCH
 * already refuses a notificationUrl on this service's own hosts.
 */
export const MAX_NOTIFY_HOPS = 3;

/** The notification hop a captured request carries (x-hookcap-hop), 0 for any other request. */
function hopOf(headers: Record<string, string>): number {
  const raw = headers[NOTIFY_HOP_HEADER];
  if (raw === undefined) return 0;
  const n = Number.parseInt(raw, 10);
  return Number.isFinite(n) && n > 0 ? n : 0;
}

/** The capture hook: endpoints with a notificationUrl get one notification per capture. */
export function notificationHooks(notifier: Notifier, baseUrl: string): CaptureHooks {
  return {
    captured(capture, endpoint, at) {
      enqueueFor(notifier, capture, endpoint, baseUrl, { at });
    },
  };
}

/** The one notification a capture gets, if its endpoint has a URL and the loop limit allows. */
export function enqueueFor(
  notifier: Notifier,
  capture: Capture,
  endpoint: Pick<EndpointSnapshot, 'id' | 'slug' | 'userId' | 'ownerKeyId' | 'notificationUrl'>,
  baseUrl: string,
  track: { at?: LogPosition; attempt?: number },
): boolean {
  if (!endpoint.notificationUrl) return false;
  const hop = hopOf(capture.headers);
  if (hop >= MAX_NOTIFY_HOPS) return false;
  return notifier.enqueue(endpoint.notificationUrl, buildNotification(capture, endpoint, baseUrl), {
    tenant: tenantOf(endpoint),
    hop: hop + 1,
    ...track,
  });
}

/** Whose notifications these are, for fairness. */
export function tenantOf(endpoint: Pick<EndpointSnapshot, 'id' | 'userId' | 'ownerKeyId'>): string {
  return endpoint.userId ?? endpoint.ownerKeyId ?? endpoint.id;
}

/** Redirect hops a notification may follow; each hop is vetted again. */
export const NOTIFY_MAX_REDIRECTS = 5;

/**
 * The key a notification is signed with at this attempt: the current one of its endpoint, as the
 * node's endpoint cache holds it (announced changes drop it), so after a rotation or a removal
 * even retries of earlier captures are signed with the new secret, or not at all. null: unsigned.
 * A lookup that fails (a cold slug while Postgres is down) throws: the attempt counts as a
 * retryable failure instead of going out unsigned.
 */
export type NotificationKeyLookup = (endpoint: NotificationPayload['endpoint']) => Uint8Array | null | Promise<Uint8Array | null>;

/** The lookup from the receiver's endpoint cache; an endpoint whose slug now names another (or none) signs nothing. */
export function notificationKeyFromCache(cache: { get(slug: string): EndpointSnapshot | null | Promise<EndpointSnapshot | null> }): NotificationKeyLookup {
  const keyOf = (snapshot: EndpointSnapshot | null, id: string) => (snapshot?.id === id ? snapshot.notificationKey : null);
  return ({ id, slug }) => {
    const got = cache.get(slug);
    return got instanceof Promise ? got.then((s) => keyOf(s, id)) : keyOf(got, id);
  };
}

/** The notifier of a receiver node, delivering over HTTP through the outbound guard. */
export function createNotifier(config: Config, allow: AllowList, clock: Clock, keyOf: NotificationKeyLookup = () => null): Notifier {
  const policy = { allow, timeoutMs: config.notify.timeoutMs, maxRedirects: NOTIFY_MAX_REDIRECTS };
  return new Notifier({
    deliver: async (job) => deliverNotification(job.url, job.payload, job.attempt, policy, job.hop, clock, await keyOf(job.payload.endpoint)),
    queueLimit: config.notify.queueLimit,
    tenantLimit: config.notify.queuePerAccount,
    maxAttempts: config.notify.maxAttempts,
    concurrency: config.notify.concurrency,
    backoffMs: config.notify.backoffMs,
    clock,
  });
}
