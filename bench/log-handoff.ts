/**
 * bench/log-handoff — what the capture log's hand-off to its write thread costs the receiver
 * thread (src/engine/log-writer.ts): group writes of ~9 KB (23 captures) through the real
 * LogWriter to a plain file (no O_DSYNC, so the device's flush is not in the figure), one at a
 * time as the log does, with the receiver thread's CPU read from /proc.
 *
 *   node_modules/.bin/bun bench/log-handoff.ts      (N writes, 20,000 by default)
 */
import { closeSync, mkdtempSync, openSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LogWriter } from '../src/engine/log-writer';

/** This (main) thread's user + system CPU, ms (clock ticks of 10 ms). */
function threadCpuMs(): number {
  const stat = readFileSync(`/proc/self/task/${process.pid}/stat`, 'utf8');
  const f = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(f[11]) + Number(f[12])) * 10;
}

const n = Number(process.env.N ?? 20_000);
const dir = mkdtempSync(join(tmpdir(), 'hookcap-handoff-'));
const fd = openSync(join(dir, 'log'), 'w');
const writer = LogWriter.start();
const group = new Uint8Array(9 * 1024).fill(120);
try {
  for (let i = 0; i < 1000; i++) await writer.write(fd, group, 0); // warm-up
  const cpu0 = threadCpuMs();
  const t0 = performance.now();
  for (let i = 0; i < n; i++) await writer.write(fd, group, 0);
  const wallUs = (1000 * (performance.now() - t0)) / n;
  const cpuUs = (1000 * (threadCpuMs() - cpu0)) / n;
  console.log(`bench/log-handoff: ${n} group writes of 9 KB: ${wallUs.toFixed(1)} µs each (wall), ${cpuUs.toFixed(1)} µs of the receiver thread's CPU each; at 23 captures per group ${(cpuUs / 23).toFixed(2)} µs per capture`);
} finally {
  writer.stop();
  closeSync(fd);
  rmSync(dir, { recursive: true, force: true });
}
