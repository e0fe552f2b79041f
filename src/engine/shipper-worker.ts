/**
 * The shipper, in a worker thread: tails the capture log from the checkpoint up to the durable
 * end the main thread reports, and inserts large batches into the capture store (one insert per
 * `batchRows` rows, `batchBytes` of records or `maxAgeMs` of age, whichever first). After each successful insert the checkpoint moves.
 * Row building and the insert never touch the main thread's event loop; the frames go to the store
 * as the JSON text they are (ClickHouse writes its rows from it without parsing it: record-tsv.ts).
 */
import { JsonRecordBatch } from '../stores/captures/json-records';
import { openCaptureStore } from '../stores/captures/open';
import type { CaptureStore } from '../stores/captures/types';
import { readCheckpoint, writeCheckpoint, type LogPosition } from './capture-log';
import { before, LogReader } from './log-reader';
import type { FromWorker, ToWorker } from './shipper-protocol';
import { errorMessage } from '../unknown';

declare const self: Worker;

const decoder = new TextDecoder();
let store: CaptureStore | null = null;
let reader: LogReader | null = null;
let dir = '';
// Set by init.
let batchRows = 0;
let batchBytes = 0;
let maxAgeMs = 0;
let replayUntil: LogPosition = { segment: 0, offset: 0 };
let durable: LogPosition = { segment: 0, offset: 0 };
/** The frames read and not shipped yet: capture records as JSON, inserted without parsing them here. */
const pending = new JsonRecordBatch();
/** The oldest pending capture's receivedAt (parsed from its frame alone). */
let pendingReceivedAt = 0;
let pendingEnd: LogPosition | null = null;
let pendingReplayed = false;
/** performance.now() when the oldest pending frame was read: the batch's age if the wall clock stepped back. */
let pendingSince = 0;
let busy = false;
let draining = false;
let failures = 0;
let caughtUp = false;
/** Set after a failure reported to the main thread, which replaces this worker: do nothing more. */
let broken = false;
let timer: ReturnType<typeof setTimeout> | null = null;

const post = (m: FromWorker) => self.postMessage(m);

function fill(): void {
  if (!reader) return;
  while (pending.length < batchRows && pending.byteLength < batchBytes && before(reader.pos, durable)) {
    const frames = reader.read(durable, batchRows - pending.length);
    if (frames.length === 0) break;
    if (pending.length === 0) {
      pendingSince = performance.now();
      pendingReceivedAt = receivedAtOf(frames[0]!.payload);
    }
    for (const f of frames) {
      if (!before(replayUntil, f.end)) pendingReplayed = true;
      // Copied: the reader reuses its buffer on the next read.
      pending.push(f.payload);
      pendingEnd = f.end;
    }
  }
}

/** Runs `ship`, turning anything it throws into a `failed` report (the main thread replaces the worker). */
async function pump(): Promise<void> {
  if (broken) return;
  try {
    await ship();
  } catch (err) {
    broken = true;
    post({ type: 'failed', message: errorMessage(err) });
  }
}

async function ship(): Promise<void> {
  if (busy || !store) return;
  busy = true;
  try {
    for (;;) {
      fill();
      if (pending.length === 0 || !pendingEnd) break;
      // Age from the capture's own time, or from when it was read if that is longer: a receivedAt
      // ahead of this thread's wall clock (the clock stepped back, or a test's clock was moved
      // forward) must not hold the batch back until the wall clock catches up.
      const age = Math.max(Date.now() - pendingReceivedAt, performance.now() - pendingSince);
      const full = pending.length >= batchRows || pending.byteLength >= batchBytes;
      if (!full && age < maxAgeMs && !draining) {
        schedule(maxAgeMs - age);
        break;
      }
      const insertStart = performance.now();
      try {
        await store.insertRecords(pending, { dedupe: pendingReplayed });
      } catch (err) {
        failures++;
        post({ type: 'warn', message: errorMessage(err), rows: pending.length, insertMs: performance.now() - insertStart });
        // The captures stay in the log; retry the same batch with backoff.
        await Bun.sleep(Math.min(5_000, 100 * 2 ** Math.min(failures, 6)));
        continue;
      }
      const insertMs = performance.now() - insertStart;
      failures = 0;
      try {
        writeCheckpoint(dir, pendingEnd);
      } catch (err) {
        // Out of space: stored, but the checkpoint did not move; shipping goes on from memory and a
        // restart replays from the older checkpoint (a replay inserts with dedupe). Anything else
        // is a fault in the data directory: the worker fails and a new one starts from the checkpoint.
        if (!isOutOfSpace(err)) throw err;
        post({ type: 'checkpoint_failed', message: errorMessage(err) });
      }
      post({ type: 'shipped', frames: pending.length, insertMs });
      pending.clear();
      pendingEnd = null;
      pendingReplayed = false;
    }
  } finally {
    busy = false;
  }
  const idle = pending.length === 0 && reader !== null && !before(reader.pos, durable);
  if (idle && !caughtUp) {
    caughtUp = true;
    post({ type: 'caught-up' });
  }
  if (draining && idle) post({ type: 'drained' });
}

/** A frame's receivedAt; now when it has none (the batch's age then counts from its reading). */
function receivedAtOf(frame: Uint8Array): number {
  try {
    const receivedAt = (JSON.parse(decoder.decode(frame)) as { receivedAt?: unknown }).receivedAt;
    if (typeof receivedAt === 'number') return receivedAt;
  } catch {
    // The insert reports a record it cannot read.
  }
  return Date.now();
}

function schedule(ms: number): void {
  if (timer) return;
  timer = setTimeout(() => {
    timer = null;
    void pump();
  }, Math.max(0, ms));
}

function init(m: Extract<ToWorker, { type: 'init' }>): void {
  dir = m.dir;
  batchRows = m.batchRows;
  batchBytes = m.batchBytes;
  maxAgeMs = m.maxAgeMs;
  replayUntil = m.replayUntil;
  durable = m.replayUntil;
  try {
    store = openCaptureStore(m.store);
    // Each frame is copied as soon as it is read, so the reader may reuse its buffer.
    reader = new LogReader(dir, readCheckpoint(dir), { reuseBuffer: true });
  } catch (err) {
    broken = true;
    post({ type: 'failed', message: errorMessage(err) });
    return;
  }
  void pump();
}

self.onmessage = (event: MessageEvent<ToWorker>) => {
  const m = event.data;
  switch (m.type) {
    case 'init':
      init(m);
      break;
    case 'durable':
      durable = m.end;
      // Fill as the log grows, even while the age timer runs: a full batch ships at once.
      if (!busy) void pump();
      break;
    case 'drain':
      draining = true;
      if (timer) clearTimeout(timer);
      timer = null;
      void pump();
      break;
  }
};

function isOutOfSpace(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code;
  return code === 'ENOSPC' || code === 'EDQUOT';
}
