/** Messages between the main thread (shipper.ts) and the shipper worker (shipper-worker.ts). */
import type { CaptureStoreSpec } from '../stores/captures/open';
import type { LogPosition } from './capture-log';

export type ToWorker =
  | {
      type: 'init';
      dir: string;
      store: CaptureStoreSpec;
      batchRows: number;
      batchBytes: number;
      maxAgeMs: number;
      /** End of the log at start: frames before it may already be stored (replay: dedupe). */
      replayUntil: LogPosition;
    }
  | { type: 'durable'; end: LogPosition }
  | { type: 'drain' };

export type FromWorker =
  /** `insertMs`: how long the store took over the insert (worker's monotonic clock). */
  | { type: 'shipped'; frames: number; insertMs: number }
  /** Once per worker: everything durable when it started is stored (nothing may have been left). */
  | { type: 'caught-up' }
  | { type: 'drained' }
  /** An insert failed; the worker retries it. */
  | { type: 'warn'; message: string; rows: number; insertMs: number }
  /** Anything else failed (reading the log, the checkpoint, the store's setup): replace the worker. */
  | { type: 'failed'; message: string }
  /** The checkpoint could not be written for lack of space; shipping goes on (a restart replays more). */
  | { type: 'checkpoint_failed'; message: string };
