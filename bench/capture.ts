/**
 * bench/capture — durable captures/s and ack latency, for both backends, next to raw Bun.serve.
 *
 *   npm run bench:capture            (both backends; needs scripts/services.sh for ClickHouse)
 *   BENCH_BACKENDS=embedded npm run bench:capture
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_AB_ROUNDS=3 …
 *
 * Every 2xx from the receiver is a durable capture (acknowledged only after fsync), so wrk's 2xx
 * rate is the durable capture rate. The p99 target is measured at half the peak rate with an
 * open-loop generator (bench/lib/rate.ts); the raw row shows that generator's own floor at
 * BENCH_FLOOR_RATE (10,000/s).
 *
 * Then provider detection's cost: alone (ns per call), and on the running service as an A/B
 * (DETECT_PROVIDERS on/off, fresh embedded server per run, BENCH_AB_ROUNDS rounds at
 * BENCH_AB_RATE captures/s), as CPU per capture and p99.
 */
import { join } from 'node:path';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { freePort, startServer, stopServer } from '../test/support/server';
import { readFileSync } from 'node:fs';
import { detectProvider, type DetectInput } from '../src/engine/providers';
import { Rng } from './lib/random';
import { webhookCapture } from './lib/webhooks';
import { GC_MARKED_ENTRY, mainHeap, parseGcLog } from './lib/gc-log';
import { jscOptions } from './lib/jsc-options';
import { constantRate } from './lib/rate';
import { loadAverage, saveResults } from './lib/results';
import { postBody, wrk, type WrkResult } from './lib/wrk';
import type { WriteLatency } from '../src/engine/capture-log';
import type { Health } from '../src/health';
import { defaultShipMaxAgeMs } from '../src/config';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const backends = (process.env.BENCH_BACKENDS ?? 'embedded,server').split(',').filter(Boolean) as BackendName[];
/** Rounds of the detection on/off comparison (0 skips it), at BENCH_AB_RATE captures/s (10,000). */
const abRounds = Number(process.env.BENCH_AB_ROUNDS ?? 3);
const body = await postBody();

interface Row {
  name: string;
  peak: WrkResult;
  half?: { rps: number; ok: number; sent: number; p50: number; p99: number };
  /** Longest GC pauses (ms, longest first) of the service's receiver thread and its shipper worker, at peak and at half peak. */
  gc?: { peak: { main: number[]; worker: number[] }; half: { main: number[]; worker: number[] } };
  /** The capture log's last group writes after the half-peak run (`/healthz` captureLog.writeMs): the disk's share of the p99. */
  logWriteMs?: WriteLatency | null;
  /** Captures not yet shipped when the half-peak run started: the peak's shipping still under way. */
  backlogAtHalf?: number | null;
}
/** BENCH_GC=0 runs the services without JSC's GC log. */
const gcLog = process.env.BENCH_GC !== '0';
const rows: Row[] = [];

async function raw(): Promise<Row> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'lib', 'raw-server.ts')], { env: { ...process.env, PORT: String(port) }, stdout: 'pipe' });
  await Bun.sleep(300);
  const peak = await wrk(`http://127.0.0.1:${port}/w/x`, { connections, seconds });
  // The open-loop generator's own floor: the same measurement as the services' p99 rows, against
  // a server that does nothing, at a rate like theirs.
  const rate = Number(process.env.BENCH_FLOOR_RATE ?? 10_000);
  const half = await constantRate(`http://127.0.0.1:${port}/w/x`, body, rate, Math.min(seconds, 10));
  proc.kill();
  return { name: 'raw Bun.serve (ceiling)', peak, half: { rps: rate, ...half } };
}

async function service(backend: BackendName): Promise<Row> {
  const p = await provision(backend);
  // The bench sends millions of captures: lift the free plan's monthly quota for its account.
  const s = await startServer({
    ...(gcLog ? { entry: GC_MARKED_ENTRY } : {}),
    env: { ...p.env, ...jscOptions(), LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), PLANS: '{"free":{"limit":1000000000}}', ...(gcLog ? { BUN_JSC_logGC: '1' } : {}) },
  });
  try {
    const a = await newAccount(s.url);
    const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
    const url = `${s.url}/w/${ep.slug}`;
    await wrk(url, { connections, seconds: 2 }); // warm-up
    const gcPeak = s.output().length;
    const peak = await wrk(url, { connections, seconds });
    const gcPeakEnd = s.output().length;
    await Bun.sleep(1000);
    const backlogAtHalf = (await call<Health>(s.url, 'GET', '/healthz')).body.shipper?.backlog ?? null;
    const target = Math.max(1, Math.floor(peak.rps / 2));
    const gcHalf = s.output().length;
    const half = await constantRate(url, body, target, Math.min(seconds, 10));
    const logWriteMs = ((await call<Health>(s.url, 'GET', '/healthz')).body.captureLog?.writeMs ?? null);
    const pauses = (from: number, to: number) => {
      const g = parseGcLog(s.output().slice(from, to), mainHeap(s.output()));
      return { main: g.main.slice(0, 10), worker: g.others.slice(0, 10) };
    };
    const gc = gcLog ? { peak: pauses(gcPeak, gcPeakEnd), half: pauses(gcHalf, s.output().length) } : undefined;
    return { name: backend === 'server' ? 'hookcap, Postgres + ClickHouse + NATS' : 'hookcap, embedded (PGlite + SQLite)', peak, half: { rps: target, ...half }, gc, logWriteMs, backlogAtHalf };
  } finally {
    await stopServer(s);
    await p.cleanup();
  }
}

/**
 * ns per call of provider detection, on the bench body and on a realistic mix of senders (Stripe,
 * GitHub, Shopify, Twilio, in-house events). Every input is a distinct string, as on the capture
 * path, so no regexp result can be reused between calls.
 */
function detectionCost(): { bench: number; signed: number; mix: number } {
  const time = (inputs: DetectInput[]) => {
    let sink = 0;
    for (let i = 0; i < 20_000; i++) sink += detectProvider(inputs[i % inputs.length]!).provider.length;
    const n = 200_000;
    const t = Bun.nanoseconds();
    for (let i = 0; i < n; i++) sink += detectProvider(inputs[i % inputs.length]!).provider.length;
    if (sink < 0) console.log(sink);
    return (Bun.nanoseconds() - t) / n;
  };
  const headers = { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', host: 'localhost' };
  const benchInputs = Array.from({ length: 4096 }, (_, i): DetectInput => {
    const b = body.replace('evt_1', `evt_${i}_`);
    return { headers: { ...headers, 'content-length': String(b.length) }, body: b, contentType: 'application/json', method: 'POST', query: {} };
  });
  const rng = new Rng(7);
  const mixInputs = Array.from({ length: 4096 }, (): DetectInput => {
    const c = webhookCapture(rng, 'ep_bench', Date.now());
    return { headers: c.headers, body: c.body, contentType: c.contentType, method: c.method, query: c.queryParams };
  });
  const signedInputs = Array.from({ length: 4096 }, (_, i): DetectInput => {
    const b = stripeBody.replace('evt_1', `evt_${i}_`);
    return { headers: { ...headers, ...STRIPE_SIGNED, 'content-length': String(b.length) }, body: b, contentType: 'application/json', method: 'POST', query: {} };
  });
  return { bench: time(benchInputs), signed: time(signedInputs), mix: time(mixInputs) };
}

/** utime + stime in ms, from /proc (Linux): of the whole process, or of one thread (`task`). */
function cpuMs(pid: number, task?: number): number {
  const path = task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/** A Stripe delivery as Stripe sends it: signed, the bench body's event pretty-printed, `type` last. */
const STRIPE_SIGNED = { 'stripe-signature': 't=1695040000,v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd' };
const stripeBody = (() => {
  const { type, ...rest } = JSON.parse(body) as Record<string, unknown>;
  return JSON.stringify({ ...rest, type }, null, 2);
})();

interface AbResult {
  mode: string;
  cpuUs: number[];
  mainUs: number[];
  p99: number[];
}

/**
 * The service with detection on and off (DETECT_PROVIDERS), embedded backend, at the same fixed
 * rate (open loop). At a fixed rate both modes do the same batching, so a difference in CPU per
 * capture is detection's own. Every run gets a fresh server, one at a time, the modes alternating
 * which goes first: two long-lived servers measured in turn differed by ~6 µs per capture with the
 * same setting (an A/A run), more than detection costs. The requests are a signed Stripe delivery:
 * detection matches the header, then reads the event type from the body.
 */
async function detectionAB(rounds: number, rate: number): Promise<AbResult[]> {
  // The second "on" is the control: how far two runs with the same setting land apart.
  const modes: AbResult[] = [
    { mode: 'detection on', cpuUs: [], mainUs: [], p99: [] },
    { mode: 'detection off', cpuUs: [], mainUs: [], p99: [] },
    { mode: 'detection on, again (control)', cpuUs: [], mainUs: [], p99: [] },
  ];
  for (let r = 0; r < rounds; r++) {
    for (let k = 0; k < modes.length; k++) {
      const m = modes[(r + k) % modes.length] as AbResult;
      const p = await provision('embedded');
      const env = { DETECT_PROVIDERS: m.mode === 'detection off' ? 'false' : 'true' };
      const s = await startServer({ env: { ...p.env, ...env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), PLANS: '{"free":{"limit":1000000000}}' } });
      try {
        const a = await newAccount(s.url);
        const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
        const url = `${s.url}/w/${ep.slug}`;
        await constantRate(url, stripeBody, rate, 2, 128, STRIPE_SIGNED); // warm-up (JIT)
        await Bun.sleep(1000);
        const pid = s.proc.pid;
        const before = cpuMs(pid);
        const mainBefore = cpuMs(pid, pid);
        const res = await constantRate(url, stripeBody, rate, seconds, 128, STRIPE_SIGNED);
        const captures = Math.max(1, res.ok);
        m.cpuUs.push(((cpuMs(pid) - before) * 1000) / captures);
        m.mainUs.push(((cpuMs(pid, pid) - mainBefore) * 1000) / captures);
        m.p99.push(res.p99);
      } finally {
        await stopServer(s);
        await p.cleanup();
      }
    }
  }
  return modes;
}

const loadStart = loadAverage();
const detect = detectionCost();
const ceiling = await raw();
rows.push(ceiling);
for (const b of backends) rows.push(await service(b));

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
console.log(`\nbench/capture: ${seconds}s per run, ${connections} connections, ~1 KB JSON POST, wrk -t1 on ${navigator.hardwareConcurrency} cores\n`);
console.log('| target | captures/s (2xx) | % of raw | non-2xx | p50 ms (peak) | p99 ms (peak) | rate for p99 | p50 ms | p99 ms |');
console.log('|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  const pct = (r.peak.rps / ceiling.peak.rps) * 100;
  console.log(
    `| ${r.name} | ${f(r.peak.rps)} | ${f(pct)}% | ${r.peak.non2xx + r.peak.errors} | ${f(r.peak.p50, 2)} | ${f(r.peak.p99, 2)} | ${r.half ? `${r.half.rps}/s (${r.half.ok}/${r.half.sent} ok)` : '-'} | ${r.half ? f(r.half.p50, 2) : '-'} | ${r.half ? f(r.half.p99, 2) : '-'} |`,
  );
}

if (gcLog) {
  const ms = (xs: number[] | undefined) => (xs?.length ? xs.slice(0, 3).map((x) => x.toFixed(1)).join(', ') : 'none');
  console.log('\nlongest GC pauses (ms, BUN_JSC_logGC), receiver thread | shipper worker:\n');
  console.log('| target | at peak | at half peak |\n|---|---|---|');
  for (const r of rows) if (r.gc) console.log(`| ${r.name} | ${ms(r.gc.peak.main)} \\| ${ms(r.gc.peak.worker)} | ${ms(r.gc.half.main)} \\| ${ms(r.gc.half.worker)} |`);
}

console.log('\ncapture log group writes at half peak (the last 1,024; /healthz captureLog.writeMs), ms:\n');
console.log('| target | p50 | p99 | max |\n|---|---|---|---|');
for (const r of rows) if (r.logWriteMs) console.log(`| ${r.name} | ${f(r.logWriteMs.p50, 2)} | ${f(r.logWriteMs.p99, 2)} | ${f(r.logWriteMs.max, 2)} |`);
for (const r of rows) if (r.backlogAtHalf != null) console.log(`\n${r.name}: ${f(r.backlogAtHalf)} captures of the peak run not yet shipped when the half-peak run started`);

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: number[]) => ((Math.max(...xs) - Math.min(...xs)) / median(xs)) * 100;
console.log(
  `\nprovider detection, alone: ${f(detect.bench)} ns per call on the bench body, ${f(detect.signed)} ns on a Stripe delivery (signed, event type read from the body), ${f(detect.mix)} ns on a mix of real senders' deliveries`,
);
let abOut: AbResult[] = [];
if (abRounds > 0) {
  const rate = Number(process.env.BENCH_AB_RATE ?? 10_000);
  const ab = await detectionAB(abRounds, rate);
  abOut = ab;
  console.log(`\nprovider detection on the capture path (embedded, a Stripe delivery at ${rate}/s, ${abRounds} rotated ${seconds}s runs each, a fresh server per run; median and spread):\n`);
  console.log('| service | CPU µs per capture, receiver thread | CPU µs per capture, whole service | p99 ms |\n|---|---|---|---|');
  for (const m of ab) {
    console.log(`| ${m.mode} | ${f(median(m.mainUs), 1)} (±${f(spread(m.mainUs) / 2)}%) | ${f(median(m.cpuUs), 1)} (±${f(spread(m.cpuUs) / 2)}%) | ${f(median(m.p99), 2)} |`);
  }
  const [on, off, again] = ab;
  if (on && off && again) {
    const diff = (a: AbResult, b: AbResult) =>
      `${f(median(a.mainUs) - median(b.mainUs), 2)} µs receiver CPU per capture, ${f(median(a.cpuUs) - median(b.cpuUs), 2)} µs for the whole service, ${f(median(a.p99) - median(b.p99), 2)} ms p99`;
    console.log(`\ndetection on − off:      ${diff(on, off)}`);
    console.log(`control, on − on again: ${diff(on, again)}`);
    console.log(`detection alone on this request: ${f(detect.signed / 1000, 2)} µs`);
  }
}
saveResults('capture', {
  bench: 'capture',
  at: new Date().toISOString(),
  loadAverage: { start: loadStart, end: loadAverage() },
  config: { seconds, connections, cores: navigator.hardwareConcurrency },
  ceiling: ceiling.peak.rps,
  rows: rows.map((r) => ({ name: r.name, peak: r.peak, half: r.half ?? null, gc: r.gc ?? null, logWriteMs: r.logWriteMs ?? null, backlogAtHalf: r.backlogAtHalf ?? null, ofCeiling: r.peak.rps / ceiling.peak.rps })),
  detection: { nsPerCall: detect, ab: abOut },
});
