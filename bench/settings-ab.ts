/**
 * bench/settings-ab — does a service setting change latency at a fixed offered rate? Alternates
 * the settings (a fresh service per run, rounds rotated) and reports medians of p50/p99 from the
 * open-loop generator (bench/lib/rate.ts), the receiver thread's longest GC pause (JSC's GC log,
 * bench/lib/gc-log.ts) and the capture log's group-write p99 (`/healthz` captureLog.writeMs, the
 * disk's flush). A setting's environment overrides the bench's own (SHIP_MAX_AGE_MS: the service's
 * default for the backend, which the test harness would otherwise set to 50). Meant for settings
 * that do not need a code change: JSC's own (BUN_JSC_*) and the service's environment.
 *
 *   SETTINGS='{"default":{},"growth":{"BUN_JSC_smallHeapGrowthFactor":"1.25"}}' node_modules/.bin/bun bench/settings-ab.ts
 *   RATE (6000 captures/s), SECS (8), ROUNDS (3), B (server|embedded)
 *
 * A setting's `BENCH_SIDE` (`cpu:<ms>` or `disk:<MiB>`, bench/lib/side-load.ts) runs a burst beside
 * the service once a second during its run: e.g. shipping paused plus a burst like shipping's.
 */
import { tmpdir } from 'node:os';
import type { Health } from '../src/health';
import { call } from '../test/support/client';
import { mainHeap, parseGcLog } from './lib/gc-log';
import { constantRate } from './lib/rate';
import { startRateService } from './lib/rate-service';
import { postBody } from './lib/wrk';
const body = await postBody();
const settings: Record<string, Record<string, string>> = JSON.parse(process.env.SETTINGS ?? '{"default":{}}');
const rate = Number(process.env.RATE ?? 6000);
const rounds = Number(process.env.ROUNDS ?? 3);
const backend = (process.env.B ?? 'server') as 'server';
const res: Record<string, { p99: number[]; gc: number[]; p50: number[]; write99: number[] }> = {};
for (let r = 0; r < rounds; r++) {
  for (const [name, env] of Object.entries(settings)) {
    const svc = await startRateService(backend, env);
    const s = svc.server;
    let side: ReturnType<typeof Bun.spawn> | null = null;
    try {
      if (env.BENCH_SIDE) {
        // Beside the service's data directory (tmpdir), on the same disk.
        side = Bun.spawn([process.execPath, new URL('./lib/side-load.ts', import.meta.url).pathname], { env: { ...process.env, BENCH_SIDE: env.BENCH_SIDE, DIR: tmpdir() }, stdout: 'ignore', stderr: 'inherit' });
        await Bun.sleep(200);
        if (side.exitCode !== null) throw new Error(`BENCH_SIDE=${env.BENCH_SIDE}: the side load exited (${side.exitCode})`);
      }
      const from = s.output().length;
      const h = await constantRate(svc.url, body, rate, Number(process.env.SECS ?? 8));
      const g = parseGcLog(s.output().slice(from), mainHeap(s.output()));
      const write99 = (await call<Health>(s.url, 'GET', '/healthz')).body.captureLog?.writeMs?.p99 ?? Number.NaN;
      (res[name] ??= { p99: [], gc: [], p50: [], write99: [] }).p99.push(h.p99);
      res[name].write99.push(write99);
      res[name].p50.push(h.p50);
      res[name].gc.push(g.main[0] ?? 0);
      console.error(`round ${r + 1} ${name}: p50 ${h.p50.toFixed(2)} p99 ${h.p99.toFixed(2)} ms, main GC longest ${(g.main[0] ?? 0).toFixed(1)} (${g.main.length} pauses), log write p99 ${write99.toFixed(2)} ms, ok ${h.ok}/${h.sent}`);
    } finally {
      side?.kill();
      await side?.exited;
      await svc.stop();
    }
  }
}
const med = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? NaN;
for (const [name, x] of Object.entries(res)) console.log(`${name}: median p50 ${med(x.p50).toFixed(2)} p99 ${med(x.p99).toFixed(2)} ms, main GC longest ${med(x.gc).toFixed(1)} ms, log write p99 ${med(x.write99).toFixed(2)} ms`);
