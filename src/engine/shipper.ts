/**
 * Moves durable captures from the capture log into the capture store in large batches: one insert
 * per batch, flushed at `batchRows` rows or when the oldest waiting capture is `maxAgeMs` old.
 * After a successful insert the log checkpoint advances. A failed insert is retried with backoff;
 * the captures stay in the log, so nothing acknowledged is lost.
 */
import type { Capture } from '../model/capture';
import type { CaptureStore } from '../stores/captures/types';
import { log } from '../log';
import type { CaptureLog, LogPosition } from './capture-log';

interface Item {
  capture: Capture;
  position: LogPosition;
  /** Came from a replay of the log: may already be stored. */
  replayed: boolean;
  at: number;
}

export interface ShipperOptions {
  batchRows: number;
  maxAgeMs: number;
}

export class Shipper {
  private queue: Item[] = [];
  private head = 0;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private flushing: Promise<void> | null = null;
  private stopped = false;
  private failures = 0;
  readonly stats = { batches: 0, rows: 0, failures: 0 };

  constructor(
    private readonly store: CaptureStore,
    private readonly captureLog: CaptureLog,
    private readonly opts: ShipperOptions,
  ) {}

  /** Captures waiting to be stored. */
  get backlog(): number {
    return this.queue.length - this.head;
  }

  enqueue(capture: Capture, position: LogPosition, replayed = false): void {
    this.queue.push({ capture, position, replayed, at: Date.now() });
    if (this.backlog >= this.opts.batchRows) this.kick(0);
    else if (!this.timer && !this.flushing) this.kick(this.opts.maxAgeMs);
  }

  /** Ships everything queued (used on shutdown and by tests); resolves when the queue is empty. */
  async drain(): Promise<void> {
    while (this.backlog > 0 || this.flushing) {
      if (this.flushing) await this.flushing;
      else await this.flushOnce();
    }
  }

  async stop(): Promise<void> {
    await this.drain();
    this.stopped = true;
    if (this.timer) clearTimeout(this.timer);
    this.timer = null;
  }

  private kick(delay: number): void {
    if (this.stopped) return;
    if (this.timer) clearTimeout(this.timer);
    this.timer = setTimeout(() => {
      this.timer = null;
      if (!this.flushing) void this.flushOnce().then(() => this.afterFlush());
    }, delay);
  }

  private afterFlush(): void {
    if (this.backlog === 0) return;
    const oldest = this.queue[this.head];
    const age = oldest ? Date.now() - oldest.at : 0;
    const backoff = this.failures > 0 ? Math.min(5_000, 100 * 2 ** this.failures) : 0;
    const full = this.backlog >= this.opts.batchRows;
    this.kick(Math.max(backoff, full ? 0 : Math.max(0, this.opts.maxAgeMs - age)));
  }

  private flushOnce(): Promise<void> {
    const run = async () => {
      const items = this.queue.slice(this.head, this.head + this.opts.batchRows);
      if (items.length === 0) return;
      const last = items.at(-1);
      if (!last) return;
      try {
        await this.store.insert(
          items.map((i) => i.capture),
          { dedupe: items.some((i) => i.replayed) },
        );
      } catch (err) {
        this.failures++;
        this.stats.failures++;
        log.warn('shipper insert failed; will retry', { rows: items.length, error: String(err) });
        if (this.stopped || this.failures > 50) throw err;
        await Bun.sleep(Math.min(5_000, 100 * 2 ** this.failures));
        return;
      }
      this.failures = 0;
      this.head += items.length;
      if (this.head > 50_000 && this.head * 2 > this.queue.length) {
        this.queue = this.queue.slice(this.head);
        this.head = 0;
      }
      this.stats.batches++;
      this.stats.rows += items.length;
      this.captureLog.checkpoint(last.position);
    };
    this.flushing = run().finally(() => {
      this.flushing = null;
    });
    return this.flushing;
  }
}
