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

export class Shipper {
  private readonly worker: Worker;
  private unshipped: number;
  private drained: (() => void) | null = null;
  readonly stats = { shipped: 0, failures: 0 };

  constructor(captureLog: CaptureLog, end: LogPosition, unshipped: number, opts: ShipperOptions) {
    this.unshipped = unshipped;
    this.worker = new Worker(new URL('./shipper-worker.ts', import.meta.url).href);
    this.worker.onmessage = (event: MessageEvent<FromWorker>) => this.receive(event.data);
    this.send({ type: 'init', dir: captureLog.dir, store: opts.store, batchRows: opts.batchRows, maxAgeMs: opts.maxAgeMs, replayUntil: end });
    captureLog.onDurable = (durableEnd, frames) => {
      this.unshipped += frames;
      this.send({ type: 'durable', end: durableEnd });
    };
    if (unshipped > 0) log.info('replaying capture log', { captures: unshipped });
  }

  /** Captures acknowledged but not yet in the capture store. */
  get backlog(): number {
    return this.unshipped;
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
        break;
      case 'warn':
        this.stats.failures++;
        log.warn('shipper insert failed; will retry', { rows: m.rows, error: m.message });
        break;
      case 'drained':
        this.drained?.();
        this.drained = null;
        break;
    }
  }
}
