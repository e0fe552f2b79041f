/**
 * The capture log's write thread (log-writer.ts): waits for a request in shared memory, writes the
 * staged bytes with one synchronous positioned write (the segment is O_DSYNC, so durable on
 * return), and says so in shared memory. It never returns to its event loop while it runs.
 */
import { writeSync } from 'node:fs';
import { LOG_WRITE, errorIndex } from './log-writer-protocol';

declare const self: Worker;

self.onmessage = (event: MessageEvent<{ ctrl: SharedArrayBuffer; staging: SharedArrayBuffer; times: SharedArrayBuffer }>) => {
  const ctrl = new Int32Array(event.data.ctrl);
  const position = new Float64Array(event.data.ctrl, LOG_WRITE.POSITION_BYTE, 1);
  const staging = new Uint8Array(event.data.staging);
  const times = new Float64Array(event.data.times);
  let timed = 0;
  // Requests count from 1: one made before this thread started is seen at once.
  let seen = 0;
  for (;;) {
    Atomics.wait(ctrl, LOG_WRITE.REQUEST, seen);
    const request = Atomics.load(ctrl, LOG_WRITE.REQUEST);
    if (request === LOG_WRITE.STOP) break;
    if (request === seen) continue;
    seen = request;
    const fd = ctrl[LOG_WRITE.FD] as number;
    const length = ctrl[LOG_WRITE.LENGTH] as number;
    const at = position[0] as number;
    let error = 0;
    const started = performance.now();
    try {
      let written = 0;
      while (written < length) written += writeSync(fd, staging, written, length - written, at + written);
    } catch (err) {
      error = errorIndex(err);
    }
    // The device's flush time: what every capture of the group waited for (/healthz captureLog.writeMs).
    times[timed % LOG_WRITE.TIMES] = performance.now() - started;
    timed = timed >= 0x3fffffff ? 0 : timed + 1;
    Atomics.store(ctrl, LOG_WRITE.TIMED, timed);
    ctrl[LOG_WRITE.ERROR] = error;
    Atomics.store(ctrl, LOG_WRITE.DONE, request);
    Atomics.notify(ctrl, LOG_WRITE.DONE);
  }
  Atomics.store(ctrl, LOG_WRITE.DONE, LOG_WRITE.STOP);
  Atomics.notify(ctrl, LOG_WRITE.DONE);
};
