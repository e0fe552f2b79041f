/** Messages between the main thread (shipper.ts) and the shipper worker (shipper-worker.ts). */
import type { CaptureStoreSpec } from '../stores/captures/open';
import type { LogPosition } from './capture-log';

export type ToWorker =
  | {
      type: 'init';
      dir: string;
      store: CaptureStoreSpec;
      batchRows: number;
      maxAgeMs: number;
      /** End of the log at start: frames before it may already be stored (replay: dedupe). */
      replayUntil: LogPosition;
    }
  | { type: 'durable'; end: LogPosition }
  | { type: 'drain' };

export type FromWorker =
  | { type: 'shipped'; frames: number }
  | { type: 'drained' }
  | { type: 'warn'; message: string; rows: number }
  | { type: 'checkpoint_failed'; message: string };
