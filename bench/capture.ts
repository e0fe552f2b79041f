/**
 * bench/capture — durable captures/s and ack latency, for both backends, next to raw Bun.serve.
 *
 *   npm run bench:capture            (both backends; needs scripts/services.sh for ClickHouse)
 *   BENCH_BACKENDS=embedded npm run bench:capture
 *   BENCH_SECONDS=10 BENCH_CONNECTIONS=64 …
 *
 * Every 2xx from the receiver is a durable capture (acknowledged only after fsync), so wrk's 2xx
 * rate is the durable capture rate. The p99 target is measured at half the peak rate with an
 * open-loop generator (bench/lib/rate.ts).
 */
import { join } from 'node:path';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { freePort, startServer, stopServer } from '../test/support/server';
import { detectProvider } from '../src/engine/providers';
import { constantRate } from './lib/rate';
import { wrk, type WrkResult } from './lib/wrk';

const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const backends = (process.env.BENCH_BACKENDS ?? 'embedded,server').split(',') as BackendName[];
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

/** ns per call of provider detection on the bench's request, and on one with a provider header. */
function detectionCost(): { plain: number; stripe: number } {
  const base = { 'content-type': 'application/json', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', host: 'localhost', 'content-length': String(body.length) };
  const time = (headers: Record<string, string>) => {
    const n = 200_000;
    for (let i = 0; i < 10_000; i++) detectProvider({ headers, body, contentType: 'application/json', method: 'POST', query: {} });
    const t = performance.now();
    for (let i = 0; i < n; i++) detectProvider({ headers, body, contentType: 'application/json', method: 'POST', query: {} });
    return ((performance.now() - t) * 1e6) / n;
  };
  return { plain: time(base), stripe: time({ ...base, 'stripe-signature': 't=1695040000,v1=abc' }) };
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

const best = Math.max(...rows.slice(1).map((r) => r.peak.rps));
const budgetNs = 1e9 / best;
console.log(
  `\nprovider detection (runs on the capture path): ${f(detect.plain)} ns per capture for the bench body without a provider header, ${f(detect.stripe)} ns with a stripe-signature header — ${f((detect.plain / budgetNs) * 100, 1)}% / ${f((detect.stripe / budgetNs) * 100, 1)}% of the ${f(budgetNs)} ns a capture takes at the best peak above`,
);
