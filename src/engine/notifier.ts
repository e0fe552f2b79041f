/**
 * Notifications off the capture path: the capture hook only appends a small job to a bounded
 * in-memory queue; a few concurrent senders deliver it later, retrying network errors, timeouts,
 * 429 and 5xx with exponential backoff and jitter. When the queue is full new notifications are
 * dropped and counted rather than slowing captures or growing memory.
 *
 * Delivery is at-least-once only while this process lives: the queue is not persisted, so a
 * restart or crash loses what is pending (docs/notifications.md).
 */
import type { Config } from '../config';
import { log } from '../log';
import type { AllowList } from '../net/allow';
import type { CaptureHooks } from './capture';
import { buildNotification, deliverNotification, type DeliveryOutcome, type NotificationPayload } from './notification';

export interface NotificationJob {
  url: string;
  payload: NotificationPayload;
  /** 1 for the first attempt. */
  attempt: number;
}

export interface NotifierOptions {
  deliver: (job: NotificationJob) => Promise<DeliveryOutcome>;
  /** Most notifications held at once: queued, being sent, or waiting to retry. */
  queueLimit: number;
  maxAttempts: number;
  /** Deliveries in flight at once. */
  concurrency: number;
  /** First retry delay; doubles per attempt. */
  backoffMs: number;
  /** No retry waits longer, not even for a receiver's Retry-After. */
  maxBackoffMs?: number;
  random?: () => number;
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

export class Notifier {
  private readonly queue = new Fifo<NotificationJob>();
  private readonly retryTimers = new Set<ReturnType<typeof setTimeout>>();
  private readonly inFlight = new Set<Promise<void>>();
  private readonly maxBackoffMs: number;
  private readonly random: () => number;
  private pumpScheduled = false;
  private stopped = false;
  private lastDropLog = 0;
  private readonly counts = { delivered: 0, failed: 0, dropped: 0, retries: 0 };

  constructor(private readonly opts: NotifierOptions) {
    this.maxBackoffMs = opts.maxBackoffMs ?? 60_000;
    this.random = opts.random ?? Math.random;
  }

  stats(): NotifierStats {
    return { pending: this.pending, ...this.counts };
  }

  private get pending(): number {
    return this.queue.size + this.inFlight.size + this.retryTimers.size;
  }

  /**
   * Queues one notification; false when it was dropped (queue full or stopping). O(1) and
   * synchronous: sending starts on a later tick, never inside the caller's turn.
   */
  enqueue(url: string, payload: NotificationPayload): boolean {
    if (this.stopped || this.pending >= this.opts.queueLimit) {
      this.counts.dropped++;
      if (!this.stopped) this.logDrop();
      return false;
    }
    this.queue.push({ url, payload, attempt: 1 });
    this.schedulePump();
    return true;
  }

  /** Stops sending: drops what is queued or waiting to retry, and waits for attempts in flight. */
  async stop(): Promise<void> {
    this.stopped = true;
    for (const t of this.retryTimers) clearTimeout(t);
    const dropped = this.queue.clear() + this.retryTimers.size;
    this.retryTimers.clear();
    this.counts.dropped += dropped;
    if (dropped > 0) log.warn('notifications dropped at shutdown', { dropped });
    await Promise.allSettled([...this.inFlight]);
  }

  private schedulePump(): void {
    if (this.pumpScheduled) return;
    this.pumpScheduled = true;
    setImmediate(() => {
      this.pumpScheduled = false;
      this.pump();
    });
  }

  private pump(): void {
    while (!this.stopped && this.inFlight.size < this.opts.concurrency) {
      const job = this.queue.shift();
      if (!job) return;
      const running: Promise<void> = this.attempt(job).finally(() => {
        this.inFlight.delete(running);
        this.pump();
      });
      this.inFlight.add(running);
    }
  }

  private async attempt(job: NotificationJob): Promise<void> {
    const outcome = await this.opts.deliver(job).catch(
      (err: unknown): DeliveryOutcome => ({ ok: false, retry: true, reason: err instanceof Error ? err.message : String(err) }),
    );
    if (outcome.ok) {
      this.counts.delivered++;
      return;
    }
    if (!outcome.retry || job.attempt >= this.opts.maxAttempts || this.stopped) {
      this.counts.failed++;
      log.warn('notification failed', {
        endpoint: job.payload.endpoint.slug,
        requestId: job.payload.request.id,
        attempts: job.attempt,
        reason: outcome.reason,
      });
      return;
    }
    this.counts.retries++;
    const backoff = backoffDelay(job.attempt, this.opts.backoffMs, this.maxBackoffMs, this.random);
    const delay = Math.min(this.maxBackoffMs, Math.max(backoff, outcome.retryAfterMs ?? 0));
    const timer = setTimeout(() => {
      this.retryTimers.delete(timer);
      if (this.stopped) return;
      this.queue.push({ ...job, attempt: job.attempt + 1 });
      this.pump();
    }, delay);
    this.retryTimers.add(timer);
  }

  private logDrop(): void {
    const now = Date.now();
    if (now - this.lastDropLog < DROP_LOG_EVERY_MS) return;
    this.lastDropLog = now;
    log.warn('notification queue full; dropping notifications', { dropped: this.counts.dropped, limit: this.opts.queueLimit });
  }
}

/** The capture hook: endpoints with a notificationUrl get one notification per capture. */
export function notificationHooks(notifier: Notifier, baseUrl: string): CaptureHooks {
  return {
    captured(capture, endpoint) {
      if (endpoint.notificationUrl) notifier.enqueue(endpoint.notificationUrl, buildNotification(capture, endpoint, baseUrl));
    },
  };
}

/** Redirect hops a notification may follow; each hop is vetted again. */
export const NOTIFY_MAX_REDIRECTS = 5;

/** The notifier of a receiver node, delivering over HTTP through the outbound guard. */
export function createNotifier(config: Config, allow: AllowList): Notifier {
  const policy = { allow, timeoutMs: config.notify.timeoutMs, maxRedirects: NOTIFY_MAX_REDIRECTS };
  return new Notifier({
    deliver: (job) => deliverNotification(job.url, job.payload, job.attempt, policy),
    queueLimit: config.notify.queueLimit,
    maxAttempts: config.notify.maxAttempts,
    concurrency: config.notify.concurrency,
    backoffMs: config.notify.backoffMs,
  });
}
