/**
 * Main-thread handle of the shipper worker (shipper-worker.ts). The main thread only tells the
 * worker how far the log is durable; it keeps a count of captures not yet stored, for the
 * receiver's backpressure (503 past SHIP_BACKLOG_LIMIT).
 */
import { log } from '../log';
import type { CaptureStoreSpec } from '../stores/captures/open';
import type { CaptureLog, LogPosition } from './capture-log';
import type { FromWorker, ToWorker } from './shipper-protocol';

export interface ShipperOptions {
  store: CaptureStoreSpec;
  batchRows: number;
  maxAgeMs: number;
}

/** A backlog older than this makes the node `degraded` even while inserts succeed (the store is behind). */
const DEGRADED_AGE_MS = 30_000;
/** Durable groups closer together than this share one entry of the age queue. */
const AGE_BUCKET_MS = 100;

/** The shipper's part of `/healthz`. */
export interface ShipperHealth {
  /** Captures acknowledged but not yet in the capture store. */
  backlog: number;
  /** Age of the oldest of them, in ms (0 when the backlog is empty). */
  backlogAgeMs: number;
  shipped: number;
  /** Failed inserts since start, and since the last one that succeeded. */
  failures: number;
  failing: number;
  /** False while the capture log cannot be written (disk full): the receiver answers 503. */
  logWritable: boolean;
  /** The capture store refuses inserts, the backlog is older than DEGRADED_AGE_MS, or the log cannot be written. */
  degraded: boolean;
}

export class Shipper {
  private readonly worker: Worker;
  private unshipped: number;
  private drained: (() => void) | null = null;
  readonly stats = { shipped: 0, failures: 0 };
  private failing = 0;
  /**
   * When the unshipped captures became durable, oldest first, in buckets of AGE_BUCKET_MS: the
   * worker ships in log order, so the head is the oldest still waiting. Captures replayed at start
   * count from the start (their own time is in the log, not here).
   */
  private readonly ages: { frames: number; at: number }[] = [];

  constructor(
    private readonly captureLog: CaptureLog,
    end: LogPosition,
    unshipped: number,
    opts: ShipperOptions,
  ) {
    this.unshipped = unshipped;
    if (unshipped > 0) this.ages.push({ frames: unshipped, at: Date.now() });
    this.worker = new Worker(new URL('./shipper-worker.ts', import.meta.url).href);
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => this.receive(event.data);
    this.send({ type: 'init', dir: captureLog.dir, store: opts.store, batchRows: opts.batchRows, maxAgeMs: opts.maxAgeMs, replayUntil: end });
    captureLog.onDurable = (durableEnd, frames) => {
      this.unshipped += frames;
      this.aged(frames);
      this.send({ type: 'durable', end: durableEnd });
    };
    if (unshipped > 0) log.info('replaying capture log', { captures: unshipped });
  }

  /** Captures acknowledged but not yet in the capture store. */
  get backlog(): number {
    return this.unshipped;
  }

  health(): ShipperHealth {
    const oldest = this.ages[0];
    const backlogAgeMs = this.unshipped > 0 && oldest ? Date.now() - oldest.at : 0;
    return {
      backlog: this.unshipped,
      backlogAgeMs,
      ...this.stats,
      failing: this.failing,
      logWritable: this.captureLog.writable,
      degraded: this.failing > 0 || backlogAgeMs > DEGRADED_AGE_MS || !this.captureLog.writable,
    };
  }

  private aged(frames: number): void {
    const now = Date.now();
    const last = this.ages.at(-1);
    if (last && now - last.at < AGE_BUCKET_MS) last.frames += frames;
    else this.ages.push({ frames, at: now });
  }

  private shippedFrames(frames: number): void {
    let left = frames;
    while (left > 0) {
      const head = this.ages[0];
      if (!head) break;
      const take = Math.min(left, head.frames);
      head.frames -= take;
      left -= take;
      if (head.frames === 0) this.ages.shift();
    }
  }

  /** Ships everything durable so far, then stops the worker. Call after the log is closed. */
  async stop(): Promise<void> {
    await new Promise<void>((resolve) => {
      this.drained = resolve;
      this.send({ type: 'drain' });
    });
    this.worker.terminate();
  }

  private send(m: ToWorker): void {
    this.worker.postMessage(m);
  }

  private receive(m: FromWorker): void {
    switch (m.type) {
      case 'shipped':
        this.unshipped -= m.frames;
        this.stats.shipped += m.frames;
        this.failing = 0;
        this.shippedFrames(m.frames);
        break;
      case 'warn':
        this.stats.failures++;
        this.failing++;
        log.warn('shipper insert failed; will retry', { rows: m.rows, error: m.message });
        break;
      case 'checkpoint_failed':
        log.warn('shipper checkpoint not written; a restart will replay more (deduplicated)', { error: m.message });
        break;
      case 'drained':
        this.drained?.();
        this.drained = null;
        break;
    }
  }
}
