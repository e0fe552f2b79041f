/**
 * The capture log's group writes, done on a thread of their own.
 *
 * Why: Bun runs a `FileHandle.write` on the calling thread. On an O_DSYNC segment that is the
 * whole device flush, ~0.15 ms per group, during which the receiver thread answers nothing: a CPU
 * profile of the service at peak had 8% of the receiver's samples inside that write. Here the
 * receiver copies the group into shared memory, wakes the write thread (Atomics) and goes on
 * serving requests; the thread writes with one synchronous positioned write and wakes the
 * receiver's `Atomics.waitAsync`. A postMessage round trip cost ~100 µs of CPU here; the shared
 * memory hand-off ~30.
 *
 * The guarantee is unchanged: a write resolves only once the thread's write to the O_DSYNC file
 * returned, and one write is in flight at a time (capture-log.ts serialises groups). A group
 * larger than the staging area is written by the caller itself (`fits` is false).
 */
import { LOG_WRITE, WRITE_ERRORS } from './log-writer-protocol';

/** Bytes staged per write; a larger group is written inline by the log (one multi-MB capture). */
const STAGING_BYTES = 8 * 1024 * 1024;
const WRAP = 0x3fffffff;

/** An error from the write thread, with the errno code it reported (`ENOSPC`, `EIO`, …). */
export class LogWriteError extends Error {
  constructor(readonly code: string) {
    super(`capture log write failed: ${code}`);
    this.name = 'LogWriteError';
  }
}

export class LogWriter {
  private readonly ctrl: Int32Array;
  private readonly position: Float64Array;
  private readonly staging: Uint8Array;
  private readonly times: Float64Array;
  private request = 0;
  private stopped = false;

  private constructor(private readonly worker: Worker) {
    const ctrl = new SharedArrayBuffer(LOG_WRITE.CONTROL_BYTES);
    const staging = new SharedArrayBuffer(STAGING_BYTES);
    const times = new SharedArrayBuffer(LOG_WRITE.TIMES * Float64Array.BYTES_PER_ELEMENT);
    this.ctrl = new Int32Array(ctrl);
    this.position = new Float64Array(ctrl, LOG_WRITE.POSITION_BYTE, 1);
    this.staging = new Uint8Array(staging);
    this.times = new Float64Array(times);
    worker.postMessage({ ctrl, staging, times });
    // Kept alive only while a write is in flight (write() refs it): an idle log holds no process open.
    worker.unref();
  }

  static start(): LogWriter {
    return new LogWriter(new Worker(new URL('./log-writer-worker.ts', import.meta.url).href));
  }

  /** False for a group larger than the staging area: the caller writes it itself. */
  fits(bytes: number): boolean {
    return bytes <= this.staging.length && !this.stopped;
  }

  /** Writes `buf` at `position` of `fd` on the write thread; resolves once the write returned. */
  async write(fd: number, buf: Uint8Array, position: number): Promise<void> {
    if (!this.fits(buf.length)) throw new Error('capture log writer: group larger than the staging area, or stopped');
    this.staging.set(buf);
    this.ctrl[LOG_WRITE.FD] = fd;
    this.ctrl[LOG_WRITE.LENGTH] = buf.length;
    this.position[0] = position;
    this.request = this.request >= WRAP ? 1 : this.request + 1;
    const request = this.request;
    this.worker.ref();
    try {
      Atomics.store(this.ctrl, LOG_WRITE.REQUEST, request);
      Atomics.notify(this.ctrl, LOG_WRITE.REQUEST);
      for (;;) {
        const done = Atomics.load(this.ctrl, LOG_WRITE.DONE);
        if (done === request) break;
        if (done === LOG_WRITE.STOP) throw new Error('capture log writer stopped');
        const waited = Atomics.waitAsync(this.ctrl, LOG_WRITE.DONE, done);
        if (waited.async) await waited.value;
      }
    } finally {
      this.worker.unref();
    }
    const error = this.ctrl[LOG_WRITE.ERROR] as number;
    if (error !== 0) throw new LogWriteError(WRITE_ERRORS[error] ?? 'EUNKNOWN');
  }

  /**
   * How long the most recent writes took on the write thread (ms; up to LOG_WRITE.TIMES of them, in
   * no particular order). A slot being written meanwhile may show its previous write's time.
   */
  recentWriteMs(): number[] {
    const timed = Atomics.load(this.ctrl, LOG_WRITE.TIMED);
    return Array.from(this.times.subarray(0, Math.min(timed, LOG_WRITE.TIMES)));
  }

  /** Ends the thread; call when no write is in flight. */
  stop(): void {
    if (this.stopped) return;
    this.stopped = true;
    Atomics.store(this.ctrl, LOG_WRITE.REQUEST, LOG_WRITE.STOP);
    Atomics.notify(this.ctrl, LOG_WRITE.REQUEST);
    this.worker.terminate();
  }
}
