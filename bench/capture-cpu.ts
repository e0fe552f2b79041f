/**
 * bench/capture-cpu — where a capture's CPU goes. Runs wrk against the real service (as
 * bench/capture does) and reads /proc before and after: per thread for the server, per process
 * for everything else on the machine (ClickHouse, NATS, kernel workers), as µs of CPU per capture.
 * wrk itself is not counted: it has exited when the second reading is taken. With BENCH_GC=1 the server runs with BUN_JSC_logGC=1 and the run ends with the number
 * of garbage collections and their longest pauses (all of the process's JS threads).
 *
 *   node_modules/.bin/bun bench/capture-cpu.ts        (BENCH_BACKEND=embedded|server, BENCH_SECONDS, BENCH_GC=1, BENCH_IDLE_RSS=<s>,
 *                                                       BENCH_ENV='{"SHIP_BATCH_ROWS":"50000"}': service settings)
 */
import { readdirSync, readFileSync } from 'node:fs';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { startServer, stopServer } from '../test/support/server';
import { GC_MARKED_ENTRY, mainHeap, parseGcLog, type GcLog } from './lib/gc-log';
import { jscOptions } from './lib/jsc-options';
import { allProcesses, statFaults, statTicks as stat } from './lib/proc-stat';
import { loadAverage, saveResults } from './lib/results';
import { wrk } from './lib/wrk';
import { defaultShipMaxAgeMs } from '../src/config';

const backend = (process.env.BENCH_BACKEND ?? 'server') as BackendName;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const gcLog = process.env.BENCH_GC === '1';
/** BENCH_IDLE_RSS=<s>: also read the service's RSS that many seconds after the run (what it gives back when idle). */
const idleRssSeconds = Number(process.env.BENCH_IDLE_RSS ?? 0);
const rssOf = (pid: number) => Number(/VmRSS:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) / 1024;

/**
 * CPU ticks so far of every thread of the service and every other process, keyed by thread or
 * process id: a kernel worker's name says what it is doing right now (kworker/u8:0-writeback), so
 * keyed by name, one renamed during the run counted its whole lifetime as the run's.
 */
function snapshot(serverPid: number): Map<string, { name: string; ticks: number }> {
  const out = new Map<string, { name: string; ticks: number }>();
  for (const tid of readdirSync(`/proc/${serverPid}/task`)) {
    const t = stat(`/proc/${serverPid}/task/${tid}/stat`);
    if (t) out.set(`task ${tid}`, { name: `service: ${t.name}`, ticks: t.ticks });
  }
  for (const [pid, p] of allProcesses()) {
    // Kernel workers are summed as one row: their suffix is the work item of the moment.
    if (pid !== serverPid) out.set(String(pid), { name: p.name.startsWith('kworker/') ? 'kernel workers (kworker)' : p.name, ticks: p.ticks });
  }
  return out;
}

/** Ticks used between two snapshots, summed by name (a process started meanwhile counts whole). */
function used(before: ReturnType<typeof snapshot>, after: ReturnType<typeof snapshot>): Map<string, number> {
  const out = new Map<string, number>();
  for (const [id, a] of after) {
    const d = a.ticks - (before.get(id)?.ticks ?? 0);
    if (d > 0) out.set(a.name, (out.get(a.name) ?? 0) + d);
  }
  return out;
}

/** The capture log's writes and frames so far (`/healthz` `captureLog`). */
async function logStats(base: string): Promise<{ groups: number; frames: number }> {
  const h = (await (await fetch(`${base}/healthz`)).json()) as { captureLog: { groups: number; frames: number } };
  return h.captureLog;
}

const p = await provision(backend);
const s = await startServer({
  ...(gcLog ? { entry: GC_MARKED_ENTRY } : {}),
  env: { ...p.env, ...jscOptions(), LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), PLANS: '{"free":{"limit":1000000000}}', ...(gcLog ? { BUN_JSC_logGC: '1' } : {}), ...(JSON.parse(process.env.BENCH_ENV ?? '{}') as Record<string, string>) },
});
try {
  const a = await newAccount(s.url);
  const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
  const url = `${s.url}/w/${ep.slug}`;
  await wrk(url, { connections: 64, seconds: 2 }); // warm-up
  await Bun.sleep(1500);
  const gcBefore = s.output().length;
  const logBefore = await logStats(s.url);
  const pid = s.proc.pid;
  const faultsBefore = { main: statFaults(`/proc/${pid}/task/${pid}/stat`), all: statFaults(`/proc/${pid}/stat`) };
  const before = snapshot(pid);
  const r = await wrk(url, { connections: 64, seconds });
  const after = snapshot(pid);
  const faultsAfter = { main: statFaults(`/proc/${pid}/task/${pid}/stat`), all: statFaults(`/proc/${pid}/stat`) };
  const rssMiB = rssOf(pid);
  const logAfter = await logStats(s.url);
  const captures = r.requests - r.non2xx;
  const groups = logAfter.groups - logBefore.groups;
  const perWrite = groups > 0 ? (logAfter.frames - logBefore.frames) / groups : 0;
  console.log(`bench/capture-cpu (${backend}): ${r.rps.toFixed(0)} captures/s over ${seconds}s, p50 ${r.p50} ms, p99 ${r.p99} ms, ${perWrite.toFixed(1)} captures per log write (${groups} writes)\n`);
  console.log('| thread or process | CPU s | µs per capture |\n|---|---|---|');
  const rows = [...used(before, after)];
  rows.sort((x, y) => y[1] - x[1]);
  let total = 0;
  for (const [, d] of rows) total += d;
  // Clock ticks are 10 ms (USER_HZ 100).
  for (const [k, d] of rows.slice(0, 15)) console.log(`| ${k} | ${(d / 100).toFixed(2)} | ${((d * 10_000) / captures).toFixed(1)} |`);
  console.log(`| all | ${(total / 100).toFixed(2)} | ${((total * 10_000) / captures).toFixed(1)} |`);
  const { main: m0, all: a0 } = faultsBefore;
  const { main: m1, all: a1 } = faultsAfter;
  const faults =
    m0 && m1 && a0 && a1
      ? { receiverPerCapture: (m1.minflt - m0.minflt) / captures, processPerCapture: (a1.minflt - a0.minflt) / captures, receiverSystemShare: (m1.stime - m0.stime) / Math.max(1, m1.utime - m0.utime + m1.stime - m0.stime) }
      : null;
  if (faults) {
    console.log(`\nminor page faults per capture: receiver thread ${faults.receiverPerCapture.toFixed(2)}, whole service ${faults.processPerCapture.toFixed(2)}; receiver thread's CPU in the kernel ${(faults.receiverSystemShare * 100).toFixed(0)}%; service RSS after the run ${rssMiB.toFixed(0)} MiB`);
  }
  let gc: GcLog | null = null;
  if (gcLog) {
    gc = parseGcLog(s.output().slice(gcBefore), mainHeap(s.output()));
    const all = [...gc.main, ...gc.others].sort((x, y) => y - x);
    const top = (xs: number[]) => xs.slice(0, 5).map((x) => x.toFixed(1)).join(', ') || 'none';
    console.log(`\nGC pauses during the run: ${all.length} (${(all.length / seconds).toFixed(1)}/s)`);
    console.log(`  receiver (main) thread: ${gc.main.length}, longest ${top(gc.main)} ms`);
    console.log(`  shipper worker: ${gc.others.length}, longest ${top(gc.others)} ms`);
    // JSC says why it starts each collection: "bytes allocated this cycle: N". Their sum is what
    // the JS heaps (main thread and worker together) allocated; a collection started for another
    // reason does not say, so this is a floor.
    console.log(`JS heap allocation: ${((gc.allocatedBytes / captures) / 1024).toFixed(1)} KiB per capture, ${((gc.allocatedBytes / captures) * 10_000 / 1024 / 1024).toFixed(1)} MiB per 10k captures (at least)`);
  }
  let idleRssMiB: number | null = null;
  if (idleRssSeconds > 0) {
    await Bun.sleep(idleRssSeconds * 1000);
    idleRssMiB = rssOf(pid);
    console.log(`service RSS ${idleRssSeconds} s after the run: ${idleRssMiB.toFixed(0)} MiB`);
  }
  saveResults(`capture-cpu-${backend}`, {
    bench: 'capture-cpu',
    backend,
    at: new Date().toISOString(),
    loadAverage: loadAverage(),
    seconds,
    capturesPerSecond: r.rps,
    p50: r.p50,
    p99: r.p99,
    // µs of CPU per capture by thread of the service ("service: …") and by process for the rest.
    cpuUsPerCapture: rows.map(([name, d]) => ({ name, us: (d * 10_000) / captures })),
    totalUsPerCapture: (total * 10_000) / captures,
    capturesPerLogWrite: perWrite,
    pageFaults: faults,
    rssMiB,
    idleRssMiB,
    // pausesMs: every thread's, longest first; mainPausesMs: the receiver thread's (they delay acks).
    gc: gc
      ? (() => {
          const pausesMs = [...gc.main, ...gc.others].sort((x, y) => y - x);
          return { collections: pausesMs.length, perSecond: pausesMs.length / seconds, pausesMs, mainPausesMs: gc.main, workerPausesMs: gc.others, allocatedBytesPerCapture: gc.allocatedBytes / captures };
        })()
      : null,
  });
} finally {
  await stopServer(s);
  await p.cleanup();
}
