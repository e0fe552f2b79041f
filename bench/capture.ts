/**
 * bench/capture — durable captures/s and ack latency, for both backends, next to raw Bun.serve.
 *
 *   npm run bench:capture            (both backends; needs scripts/services.sh for ClickHouse)
 *   BENCH_BACKENDS=embedded npm run bench:capture
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_AB_ROUNDS=3 …
 *
 * Every 2xx from the receiver is a durable capture (acknowledged only after fsync), so wrk's 2xx
 * rate is the durable capture rate. The p99 target is measured at half the peak rate with an
 * open-loop generator (bench/lib/rate.ts).
 */
import { join } from 'node:path';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { freePort, startServer, stopServer } from '../test/support/server';
import { readFileSync } from 'node:fs';
import { detectProvider, type DetectInput } from '../src/engine/providers';
import { Rng } from './lib/random';
import { webhookCapture } from './lib/webhooks';
import { constantRate } from './lib/rate';
import { wrk, type WrkResult } from './lib/wrk';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const backends = (process.env.BENCH_BACKENDS ?? 'embedded,server').split(',').filter(Boolean) as BackendName[];
/** Rounds of the detection on/off comparison (0 skips it). */
const abRounds = Number(process.env.BENCH_AB_ROUNDS ?? 3);
const body = (await Bun.file(join(import.meta.dir, 'lib', 'post.lua')).text()).match(/wrk\.body = '(.*)'/)?.[1] ?? '{}';

interface Row {
  name: string;
  peak: WrkResult;
  half?: { rps: number; ok: number; sent: number; p50: number; p99: number };
}
const rows: Row[] = [];

async function raw(): Promise<Row> {
  const port = await freePort();
  const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'lib', 'raw-server.ts')], { env: { ...process.env, PORT: String(port) }, stdout: 'pipe' });
  await Bun.sleep(300);
  const peak = await wrk(`http://127.0.0.1:${port}/w/x`, { connections, seconds });
  proc.kill();
  return { name: 'raw Bun.serve (ceiling)', peak };
}

async function service(backend: BackendName): Promise<Row> {
  const p = await provision(backend);
  // The bench sends millions of captures: lift the free plan's monthly quota for its account.
  const s = await startServer({ env: { ...p.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: '250', PLANS: '{"free":{"limit":1000000000}}' } });
  try {
    const a = await newAccount(s.url);
    const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
    const url = `${s.url}/w/${ep.slug}`;
    await wrk(url, { connections, seconds: 2 }); // warm-up
    const peak = await wrk(url, { connections, seconds });
    await Bun.sleep(1000);
    const target = Math.max(1, Math.floor(peak.rps / 2));
    const half = await constantRate(url, body, target, Math.min(seconds, 10));
    return { name: backend === 'server' ? 'hookcap, Postgres + ClickHouse + NATS' : 'hookcap, embedded (PGlite + SQLite)', peak, half: { rps: target, ...half } };
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
  const signedInputs = benchInputs.map((i) => ({ ...i, headers: { ...i.headers, 'stripe-signature': 't=1695040000,v1=5257a869' } }));
  return { bench: time(benchInputs), signed: time(signedInputs), mix: time(mixInputs) };
}

/** utime + stime in ms, from /proc (Linux): of the whole process, or of one thread (`task`). */
function cpuMs(pid: number, task?: number): number {
  const path = task === undefined ? `/proc/${pid}/stat` : `/proc/${pid}/task/${task}/stat`;
  const fields = readFileSync(path, 'utf8').split(') ')[1]?.split(' ') ?? [];
  const ticks = Number(fields[11]) + Number(fields[12]);
  return (ticks * 1000) / 100; // USER_HZ is 100 on Linux
}

/**
 * The service with detection on and off (DETECT_PROVIDERS), embedded backend, wrk runs
 * alternated so drift hits both alike. The requests carry a Stripe-Signature header, so detection
 * takes its usual costly path (header match, then the body parsed for the event type). Reports
 * captures/s and the service's CPU per capture (all its threads: receiver, capture log, shipper,
 * SQLite).
 */
async function detectionAB(rounds: number): Promise<{ mode: string; rps: number[]; cpuUs: number[]; mainUs: number[] }[]> {
  const modes = [
    { mode: 'detection on', env: { DETECT_PROVIDERS: 'true' } },
    { mode: 'detection off', env: { DETECT_PROVIDERS: 'false' } },
  ];
  const started = [];
  for (const m of modes) {
    const p = await provision('embedded');
    const s = await startServer({ env: { ...p.env, ...m.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: '250', PLANS: '{"free":{"limit":1000000000}}' } });
    const a = await newAccount(s.url);
    const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
    const url = `${s.url}/w/${ep.slug}`;
    await wrk(url, { connections, seconds: 2, script: 'post-stripe.lua' });
    started.push({ ...m, p, s, url, rps: [] as number[], cpuUs: [] as number[], mainUs: [] as number[] });
  }
  try {
    for (let r = 0; r < rounds; r++) {
      for (const m of r % 2 === 0 ? started : [...started].reverse()) {
        await Bun.sleep(1500); // let the shipper finish the previous run
        const pid = m.s.proc.pid;
        const before = cpuMs(pid);
        const mainBefore = cpuMs(pid, pid);
        const res = await wrk(m.url, { connections, seconds, script: 'post-stripe.lua' });
        const captures = Math.max(1, res.requests - res.non2xx);
        m.rps.push(res.rps);
        m.cpuUs.push(((cpuMs(pid) - before) * 1000) / captures);
        m.mainUs.push(((cpuMs(pid, pid) - mainBefore) * 1000) / captures);
      }
    }
  } finally {
    for (const m of started) {
      await stopServer(m.s);
      await m.p.cleanup();
    }
  }
  return started.map(({ mode, rps, cpuUs, mainUs }) => ({ mode, rps, cpuUs, mainUs }));
}

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

const median = (xs: number[]) => [...xs].sort((x, y) => x - y)[Math.floor(xs.length / 2)] ?? Number.NaN;
const spread = (xs: number[]) => ((Math.max(...xs) - Math.min(...xs)) / median(xs)) * 100;
console.log(
  `\nprovider detection, alone: ${f(detect.bench)} ns per call on the bench body, ${f(detect.signed)} ns with a Stripe-Signature header, ${f(detect.mix)} ns on a mix of real senders' deliveries`,
);
if (abRounds > 0) {
  const ab = await detectionAB(abRounds);
  console.log(`\nprovider detection on the capture path (embedded, Stripe-signed bench body, ${abRounds} alternated ${seconds}s runs each, median):\n`);
  console.log('| service | captures/s (spread) | CPU µs per capture, whole service (spread) | CPU µs per capture, receiver thread (spread) |\n|---|---|---|---|');
  for (const m of ab) {
    console.log(
      `| ${m.mode} | ${f(median(m.rps))} (${f(spread(m.rps))}%) | ${f(median(m.cpuUs), 1)} (${f(spread(m.cpuUs))}%) | ${f(median(m.mainUs), 1)} (${f(spread(m.mainUs))}%) |`,
    );
  }
  const [on, off] = ab;
  if (on && off) {
    const dRps = ((median(on.rps) - median(off.rps)) / median(off.rps)) * 100;
    console.log(
      `\ndetection on − off: ${f(dRps, 1)}% captures/s, ${f(median(on.cpuUs) - median(off.cpuUs), 2)} µs CPU per capture (service), ` +
        `${f(median(on.mainUs) - median(off.mainUs), 2)} µs (receiver thread); detection alone on this request: ${f(detect.signed / 1000, 2)} µs`,
    );
  }
}
