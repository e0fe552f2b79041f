/**
 * bench/capture-cpu — where a capture's CPU goes. Runs wrk against the real service (as
 * bench/capture does) and reads /proc before and after: per thread for the server, per process
 * for everything else on the machine (ClickHouse, NATS, kernel workers), as µs of CPU per capture.
 * wrk itself is not counted: it has exited when the second reading is taken. With BENCH_GC=1 the server runs with BUN_JSC_logGC=1 and the run ends with the number
 * of garbage collections and their longest pauses (all of the process's JS threads).
 *
 *   node_modules/.bin/bun bench/capture-cpu.ts        (BENCH_BACKEND=embedded|server, BENCH_SECONDS, BENCH_GC=1)
 */
import { readdirSync } from 'node:fs';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { startServer, stopServer } from '../test/support/server';
import { statTicks as stat } from './lib/proc-stat';
import { loadAverage, saveResults } from './lib/results';
import { wrk } from './lib/wrk';

const backend = (process.env.BENCH_BACKEND ?? 'server') as BackendName;
const seconds = Number(process.env.BENCH_SECONDS ?? 8);
const gcLog = process.env.BENCH_GC === '1';

function snapshot(serverPid: number): Map<string, number> {
  const out = new Map<string, number>();
  const add = (key: string, ticks: number) => out.set(key, (out.get(key) ?? 0) + ticks);
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    if (Number(pid) === serverPid) {
      for (const tid of readdirSync(`/proc/${pid}/task`)) {
        const t = stat(`/proc/${pid}/task/${tid}/stat`);
        if (t) add(`service: ${t.name}`, t.ticks);
      }
    } else {
      const p = stat(`/proc/${pid}/stat`);
      if (p) add(p.name, p.ticks);
    }
  }
  return out;
}

const p = await provision(backend);
const s = await startServer({
  env: { ...p.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: '250', PLANS: '{"free":{"limit":1000000000}}', ...(gcLog ? { BUN_JSC_logGC: '1' } : {}) },
});
try {
  const a = await newAccount(s.url);
  const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
  const url = `${s.url}/w/${ep.slug}`;
  await wrk(url, { connections: 64, seconds: 2 }); // warm-up
  await Bun.sleep(1500);
  const gcBefore = s.output().length;
  const before = snapshot(s.proc.pid);
  const r = await wrk(url, { connections: 64, seconds });
  const after = snapshot(s.proc.pid);
  const captures = r.requests - r.non2xx;
  console.log(`bench/capture-cpu (${backend}): ${r.rps.toFixed(0)} captures/s over ${seconds}s, p50 ${r.p50} ms, p99 ${r.p99} ms\n`);
  console.log('| thread or process | CPU s | µs per capture |\n|---|---|---|');
  const rows = [...after].map(([k, v]) => [k, v - (before.get(k) ?? 0)] as const).filter(([, d]) => d > 0);
  rows.sort((x, y) => y[1] - x[1]);
  let total = 0;
  for (const [, d] of rows) total += d;
  // Clock ticks are 10 ms (USER_HZ 100).
  for (const [k, d] of rows.slice(0, 15)) console.log(`| ${k} | ${(d / 100).toFixed(2)} | ${((d * 10_000) / captures).toFixed(1)} |`);
  console.log(`| all | ${(total / 100).toFixed(2)} | ${((total * 10_000) / captures).toFixed(1)} |`);
  let pauses: number[] = [];
  let allocatedBytes = 0;
  if (gcLog) {
    const gcOutput = s.output().slice(gcBefore);
    pauses = [...gcOutput.matchAll(/ p=([\d.]+)ms \(max/g)].map((m) => Number(m[1]));
    pauses.sort((x, y) => y - x);
    // JSC says why it starts each collection: "bytes allocated this cycle: N". Their sum is what
    // the JS heaps (main thread and worker together) allocated; a collection started for another
    // reason does not say, so this is a floor.
    for (const m of gcOutput.matchAll(/bytes allocated this cycle: (\d+)/g)) allocatedBytes += Number(m[1]);
    console.log(`\nGC during the run: ${pauses.length} collections (${(pauses.length / seconds).toFixed(1)}/s); longest pauses ${pauses.slice(0, 5).map((x) => x.toFixed(1)).join(', ')} ms`);
    console.log(`JS heap allocation: ${((allocatedBytes / captures) / 1024).toFixed(1)} KiB per capture, ${((allocatedBytes / captures) * 10_000 / 1024 / 1024).toFixed(1)} MiB per 10k captures (at least)`);
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
    gc: gcLog ? { collections: pauses.length, perSecond: pauses.length / seconds, pausesMs: pauses, allocatedBytesPerCapture: allocatedBytes / captures } : null,
  });
} finally {
  await stopServer(s);
  await p.cleanup();
}
