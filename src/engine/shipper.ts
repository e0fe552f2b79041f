/**
 * Main-thread handle of the shipper worker (shipper-worker.ts). The main thread only tells the
 * worker how far the log is durable; it keeps a count of captures not yet stored, for the
 * receiver's backpressure (503 past SHIP_BACKLOG_LIMIT).
 *
 * A worker that fails (an exception it cannot retry, or the thread dying) is logged, reported by
 * /healthz, and replaced after a pause by a new one that starts from the checkpoint: the log is
 * the queue, so nothing acknowledged is lost, and what the failed worker stored past its last
 * checkpoint is inserted again with dedupe (as after a crash).
 */
import { log } from '../log';
import type { CaptureStoreSpec } from '../stores/captures/open';
import type { CaptureLog, LogPosition } from './capture-log';
import type { FromWorker, ToWorker } from './shipper-protocol';

export interface ShipperOptions {
  store: CaptureStoreSpec;
  batchRows: number;
  /** A batch also ships at this many bytes of records. */
  batchBytes: number;
  maxAgeMs: number;
  /** First pause before a failed worker is replaced; doubles per failure in a row (default 1 s). */
  restartMs?: number;
}

/** Longest pause before a replacement worker. */
const MAX_RESTART_MS = 30_000;
/** Pause before a replacement while draining at shutdown: short, but not a busy loop. */
const DRAIN_RESTART_MS = 100;

/** A backlog older than this makes the node `degraded` even while inserts succeed (the store is behind). */
const DEGRADED_AGE_MS = 30_000;
/** Durable groups closer together than this share one entry of the age queue. */
const AGE_BUCKET_MS = 100;
/**
 * Longest wait before the worker hears of new durable frames. Waking the worker once per group
 * commit (hundreds a second under load) cost the receiver thread more than the rest of shipping
 * did; the worker waits up to SHIP_MAX_AGE_MS for a batch anyway, so a notice a few ms late
 * changes nothing but the number of wake-ups. A full batch's worth is told at once.
 */
const NOTICE_MS = 20;

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
  /** Workers replaced after failing. */
  restarts: number;
  /** `failed`: the last worker failed and its replacement has not yet caught up or stored a batch. */
  worker: 'running' | 'failed';
  lastError: string | null;
  /**
   * How long the capture store took over inserts, ms (succeeded or failed: a timeout is the slow
   * case): the `last` one, how many ended in the last minute and the slowest of those (null when
   * none did). Null before the first insert. A store that takes inserts slowly shows here before
   * the backlog grows.
   */
  insertMs: { last: number; lastMinute: number; slowestLastMinute: number | null } | null;
}

/** The window of `insertMs.slowestLastMinute`. */
const INSERT_WINDOW_MS = 60_000;
/** Durations kept for that window at most (a batch every ~1 ms would still fit 10 s of them). */
const MAX_INSERT_TIMES = 10_000;

const round1 = (ms: number): number => Math.round(ms * 10) / 10;

export class Shipper {
  private worker: Worker | null = null;
  private unshipped: number;
  /** The durable end of the log, as last reported: where a replacement worker's replay ends. */
  private durable: LogPosition;
  private draining = false;
  private drained: (() => void) | null = null;
  private restartTimer: ReturnType<typeof setTimeout> | null = null;
  /** Failures since a worker last made progress; sets the pause before the next replacement. */
  private failuresInRow = 0;
  private lastError: string | null = null;
  private failed = false;
  readonly stats = { shipped: 0, failures: 0, restarts: 0 };
  /** Failed inserts since the last one that succeeded. */
  private failing = 0;
  /**
   * When the unshipped captures became durable, oldest first, in buckets of AGE_BUCKET_MS: the
   * worker ships in log order, so the head is the oldest still waiting. Captures replayed at start
   * count from the start (their own time is in the log, not here).
   */
  private readonly ages: { frames: number; at: number }[] = [];
  /** Insert durations reported by the worker, oldest first, for `insertMs` (pruned to the window). */
  private readonly insertTimes: { at: number; ms: number }[] = [];
  private lastInsert: { at: number; ms: number } | null = null;

  private readonly dir: string;
  /** Durable frames the worker has not been told of yet, and the timer that will tell it. */
  private untold = 0;
  private noticeTimer: ReturnType<typeof setTimeout> | null = null;
  private readonly noticeMs: number;

  constructor(
    private readonly captureLog: CaptureLog,
    end: LogPosition,
    unshipped: number,
    private readonly opts: ShipperOptions,
  ) {
    this.dir = captureLog.dir;
    this.unshipped = unshipped;
    this.durable = end;
    this.noticeMs = Math.max(1, Math.min(NOTICE_MS, opts.maxAgeMs / 4));
    if (unshipped > 0) this.ages.push({ frames: unshipped, at: Date.now() });
    this.start();
    captureLog.onDurable = (durableEnd, frames) => {
      this.unshipped += frames;
      this.durable = durableEnd;
      this.aged(frames);
      this.untold += frames;
      if (this.untold >= opts.batchRows) this.tellWorker();
      else this.noticeTimer ??= setTimeout(() => this.tellWorker(), this.noticeMs);
    };
    if (unshipped > 0) log.info('replaying capture log', { captures: unshipped });
  }

  /** Tells the worker how far the log is durable now. */
  private tellWorker(): void {
    if (this.noticeTimer) clearTimeout(this.noticeTimer);
    this.noticeTimer = null;
    this.untold = 0;
    this.worker?.postMessage({ type: 'durable', end: this.durable } satisfies ToWorker);
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
      worker: this.failed ? 'failed' : 'running',
      lastError: this.lastError,
      insertMs: this.insertFigures(),
    };
  }

  /** Called per insert the worker reports (a few a second at most under load): a push and a prune. */
  private recordInsert(ms: number): void {
    const now = Date.now();
    this.lastInsert = { at: now, ms };
    this.insertTimes.push(this.lastInsert);
    this.pruneInsertTimes(now);
  }

  private pruneInsertTimes(now: number): void {
    let drop = 0;
    while (drop < this.insertTimes.length && (this.insertTimes[drop] as { at: number }).at <= now - INSERT_WINDOW_MS) drop++;
    drop = Math.max(drop, this.insertTimes.length - MAX_INSERT_TIMES);
    if (drop > 0) this.insertTimes.splice(0, drop);
  }

  private insertFigures(): ShipperHealth['insertMs'] {
    const last = this.lastInsert;
    if (!last) return null;
    this.pruneInsertTimes(Date.now());
    let slowest: number | null = null;
    for (const t of this.insertTimes) if (slowest === null || t.ms > slowest) slowest = t.ms;
    return { last: round1(last.ms), lastMinute: this.insertTimes.length, slowestLastMinute: slowest === null ? null : round1(slowest) };
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

  /**
   * Ships everything durable so far, then stops the worker. Call after the log is closed. With a
   * deadline, gives up waiting then (returns false): what is left is replayed at the next start.
   */
  async stop(deadline = Number.POSITIVE_INFINITY): Promise<boolean> {
    this.draining = true;
    // The worker drains up to the durable end it knows: tell it the last one first.
    this.tellWorker();
    const done = new Promise<true>((resolve) => {
      this.drained = () => resolve(true);
    });
    if (this.restartTimer) {
      // A failed worker waiting for its replacement: replace it now, the drain cannot wait.
      clearTimeout(this.restartTimer);
      this.restartTimer = null;
      this.start();
    } else {
      this.worker?.postMessage({ type: 'drain' } satisfies ToWorker);
    }
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<false>((resolve) => {
      if (Number.isFinite(deadline)) timer = setTimeout(() => resolve(false), Math.max(0, deadline - Date.now()));
    });
    const drained = await Promise.race([done, late]);
    clearTimeout(timer);
    if (this.restartTimer) clearTimeout(this.restartTimer);
    this.restartTimer = null;
    const w = this.worker;
    this.worker = null;
    w?.terminate();
    if (!drained) log.warn('shutdown deadline reached before the shipper drained; the rest is replayed at the next start', { backlog: this.unshipped });
    return drained;
  }

  /** A new worker, from the checkpoint; everything up to the durable end may already be stored. */
  private start(): void {
    const w = new Worker(new URL('./shipper-worker.ts', import.meta.url).href);
    this.worker = w;
    w.onmessage = (event: MessageEvent<FromWorker>) => {
      if (w === this.worker) this.receive(event.data);
    };
    w.onerror = (event: ErrorEvent) => {
      event.preventDefault();
      this.fail(w, event.message || 'worker error');
    };
    w.addEventListener('close', () => this.fail(w, 'worker exited'));
    const init: ToWorker = {
      type: 'init',
      dir: this.dir,
      store: this.opts.store,
      batchRows: this.opts.batchRows,
      batchBytes: this.opts.batchBytes,
      maxAgeMs: this.opts.maxAgeMs,
      replayUntil: this.durable,
    };
    w.postMessage(init);
    if (this.draining) w.postMessage({ type: 'drain' } satisfies ToWorker);
  }

  /** Replaces a failed worker after a pause (a short one when draining). Ignores a worker already replaced. */
  private fail(w: Worker, message: string): void {
    if (w !== this.worker) return;
    this.worker = null;
    w.terminate();
    this.failed = true;
    this.lastError = message;
    this.stats.restarts++;
    const pause = this.draining ? DRAIN_RESTART_MS : Math.min(MAX_RESTART_MS, (this.opts.restartMs ?? 1_000) * 2 ** Math.min(this.failuresInRow, 5));
    this.failuresInRow++;
    log.error('shipper worker failed; a new one starts from the checkpoint', { error: message, restartInMs: pause, backlog: this.unshipped });
    this.restartTimer = setTimeout(() => {
      this.restartTimer = null;
      this.start();
    }, pause);
  }

  /** A worker made progress: the failure, if any, is over. */
  private recovered(): void {
    this.failuresInRow = 0;
    if (this.failed) log.info('shipper worker recovered', { backlog: this.unshipped });
    this.failed = false;
  }

  private receive(m: FromWorker): void {
    switch (m.type) {
      case 'shipped':
        this.recordInsert(m.insertMs);
        this.unshipped -= m.frames;
        this.stats.shipped += m.frames;
        this.failing = 0;
        this.shippedFrames(m.frames);
        this.recovered();
        break;
      case 'caught-up':
        this.recovered();
        break;
      case 'warn':
        this.recordInsert(m.insertMs);
        this.stats.failures++;
        this.failing++;
        log.warn('shipper insert failed; will retry', { rows: m.rows, error: m.message });
        break;
      case 'failed':
        if (this.worker) this.fail(this.worker, m.message);
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
