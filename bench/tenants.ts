/**
 * bench/tenants — is the capture rate flat in tenants? Durable captures/s with every capture to
 * one endpoint, then spread uniformly over BENCH_SPREAD endpoints, with BENCH_ENDPOINTS endpoints
 * in Postgres (issue 15: 100,000 of 1,000,000, within 10% of the one-endpoint figure). Between the
 * two, a cold pass sends one capture to each spread endpoint in turn: every one a cache miss, the
 * loads batched (engine/endpoint-cache.ts). Then both ways again at one fixed offered rate (open loop):
 * does the spread keep up, and at what latency. Reports captures/s, p50/p99, CPU per capture of the service
 * process and of its Postgres connections, GC pauses, and the endpoint cache's memory (its own
 * estimate from /healthz, next to the heap the same snapshots take in this process after a full GC).
 *
 *   node_modules/.bin/bun bench/tenants.ts          seed 1,000,000 endpoints (~1 min), then measure
 *   BENCH_REUSE=1 node_modules/.bin/bun bench/tenants.ts   measure on the endpoints already seeded
 *   BENCH_QUICK=1 …                                 100,000 endpoints, 10,000 spread, one 3 s round
 *   BENCH_ENDPOINTS, BENCH_SPREAD, BENCH_SECONDS (5), BENCH_ROUNDS (3, alternated; medians),
 *   BENCH_CONNECTIONS (64), BENCH_RATE (the open-loop rate; half the one-endpoint peak),
 *   BENCH_DB (hookcap_bench_tenants), ENDPOINT_CACHE_MAX and ENDPOINT_CACHE_MAX_AGE_MS (the service's)
 *
 * Needs scripts/services.sh (Postgres, ClickHouse, NATS) and wrk. The endpoints are made by
 * Postgres itself (INSERT … SELECT generate_series, test/support/seed-endpoints.ts); their slugs
 * are numbered, so wrk computes them (bench/lib/tenants.lua) and nothing is read back. Figures are
 * reported, never asserted. Progress goes to stderr, the table to stdout.
 */
import { heapStats } from 'bun:jsc';
import { join } from 'node:path';
import postgres from 'postgres';
import { EndpointCache } from '../src/engine/endpoint-cache';
import { loadEndpointSnapshots } from '../src/engine/endpoint-snapshots';
import type { Health } from '../src/health';
import { insertUser } from '../src/stores/state/accounts';
import { openPostgres } from '../src/stores/state/db';
import { CLICKHOUSE_URL, NATS_URL, PG_ADMIN_URL } from '../test/support/backends';
import { seedBase, seedEndpoints, seedSlug } from '../test/support/seed-endpoints';
import { startServer, stopServer, type TestServer } from '../test/support/server';
import { GC_MARKED_ENTRY, mainHeap, parseGcLog } from './lib/gc-log';
import { allProcesses, statTicks } from './lib/proc-stat';
import { loadAverage, progress, saveResults } from './lib/results';
import { constantRate, type RateResult } from './lib/rate';
import { Rng } from './lib/random';
import { postBody, wrk, type WrkResult } from './lib/wrk';
import { defaultShipMaxAgeMs } from '../src/config';

const env = process.env;
const quick = env.BENCH_QUICK === '1';
const num = (name: string, def: number) => (env[name] ? Number(env[name]) : def);
const endpoints = num('BENCH_ENDPOINTS', quick ? 100_000 : 1_000_000);
const spread = Math.min(endpoints, num('BENCH_SPREAD', quick ? 10_000 : 100_000));
const seconds = num('BENCH_SECONDS', quick ? 3 : 5);
const rounds = num('BENCH_ROUNDS', quick ? 1 : 3);
const connections = num('BENCH_CONNECTIONS', 64);
const reuse = env.BENCH_REUSE === '1';
const dbName = env.BENCH_DB ?? 'hookcap_bench_tenants';
if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error(`BENCH_DB must be a plain identifier, got ${dbName}`);
const script = join(import.meta.dir, 'lib', 'tenants.lua');
const SEED_CHUNK = 50_000;

const pgUrl = new URL(PG_ADMIN_URL);
pgUrl.pathname = `/${dbName}`;

const log = (line: string) => process.stderr.write(`${line}\n`);

interface Dataset {
  base: number;
  endpoints: number;
}

/** The seeded endpoints: made now, or (BENCH_REUSE) the ones a previous run left, topped up if short. */
async function prepare(): Promise<Dataset> {
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  try {
    const exists = (await admin`SELECT 1 FROM pg_database WHERE datname = ${dbName}`).length > 0;
    if (!reuse || !exists) {
      // dbName is a checked plain identifier (above); Postgres takes no parameter for a database name.
      await admin.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
      await admin.unsafe(`CREATE DATABASE "${dbName}"`);
    }
  } finally {
    await admin.end();
  }
  const state = await openPostgres(pgUrl.toString(), 2);
  const raw = postgres(pgUrl.toString(), { max: 1, onnotice: () => {} });
  try {
    await raw`CREATE TABLE IF NOT EXISTS bench_tenants (base bigint NOT NULL, user_id text NOT NULL, endpoints integer NOT NULL)`;
    const found = (await raw`SELECT base::text AS base, user_id, endpoints FROM bench_tenants LIMIT 1`)[0];
    let data: Dataset & { userId: string };
    if (found) {
      data = { base: Number(found.base), userId: String(found.user_id), endpoints: Number(found.endpoints) };
      log(`reusing ${data.endpoints.toLocaleString('en')} endpoints in Postgres database ${dbName}`);
    } else {
      data = { base: seedBase(), userId: 'usr_bench_tenants', endpoints: 0 };
      await insertUser(state.db, { id: data.userId, email: 'bench-tenants@example.com', createdAt: Date.now() });
      await raw`INSERT INTO bench_tenants (base, user_id, endpoints) VALUES (${data.base}, ${data.userId}, 0)`;
    }
    if (data.endpoints < endpoints) {
      const t0 = performance.now();
      for (let from = data.endpoints; from < endpoints; from += SEED_CHUNK) {
        progress('seeding endpoints', from - data.endpoints, endpoints - data.endpoints, t0);
        const to = Math.min(endpoints, from + SEED_CHUNK);
        await seedEndpoints(state.db, { userId: data.userId, base: data.base, from, to });
        await raw`UPDATE bench_tenants SET endpoints = ${to}`;
      }
      progress('seeding endpoints', endpoints - data.endpoints, endpoints - data.endpoints, t0);
      await raw`ANALYZE endpoints`;
      log(`  seeded ${(endpoints - data.endpoints).toLocaleString('en')} endpoints in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
      data.endpoints = endpoints;
    }
    return data;
  } finally {
    await raw.end();
    await state.close();
  }
}

interface Sample extends WrkResult {
  /** µs of CPU per capture: the service process, its Postgres connections, NATS and ClickHouse. */
  cpuUs: { service: number; postgres: number; nats: number; clickhouse: number };
  /** Pauses of every JS thread; the longest of the receiver (main) thread and of the shipper worker. */
  gc: { collections: number; longestMs: number; mainLongestMs: number; workerLongestMs: number };
}

const ticksOf = (pids: number[]) => pids.reduce((sum, pid) => sum + (statTicks(`/proc/${pid}/stat`)?.ticks ?? 0), 0);

/** Processes on this machine whose name starts with `prefix` (nats-server, clickhouse-serv…). */
const pidsNamed = (prefix: string) => [...allProcesses()].filter(([, p]) => p.name.startsWith(prefix)).map(([pid]) => pid);

/** One wrk run, with the CPU the service and its Postgres backends spent and the GCs it logged. */
async function measured(s: TestServer, pgPids: () => Promise<number[]>, args: string[], secs: number): Promise<Sample> {
  const pids = await pgPids();
  const nats = pidsNamed('nats-server');
  const clickhouse = pidsNamed('clickhouse');
  const service0 = ticksOf([s.proc.pid]);
  const pg0 = ticksOf(pids);
  const nats0 = ticksOf(nats);
  const ch0 = ticksOf(clickhouse);
  const out0 = s.output().length;
  const r = await wrk(`${s.url}/w/`, { connections, seconds: secs, script, args });
  const captures = Math.max(1, r.requests - r.non2xx);
  const perCapture = (ticks: number) => (ticks * 10_000) / captures; // a tick is 10 ms
  const g = parseGcLog(s.output().slice(out0), mainHeap(s.output()));
  return {
    ...r,
    cpuUs: {
      service: perCapture(ticksOf([s.proc.pid]) - service0),
      postgres: perCapture(ticksOf(pids) - pg0),
      nats: perCapture(ticksOf(nats) - nats0),
      clickhouse: perCapture(ticksOf(clickhouse) - ch0),
    },
    gc: { collections: g.main.length + g.others.length, longestMs: Math.max(g.main[0] ?? 0, g.others[0] ?? 0), mainLongestMs: g.main[0] ?? 0, workerLongestMs: g.others[0] ?? 0 },
  };
}

/**
 * The cache's real memory, to check its estimate: the same loader and cache as the service, in
 * this process, filled with `n` of the seeded endpoints; JS heap after a full GC, before and after.
 */
async function cacheMemory(data: Dataset, n: number): Promise<{ heapBytes: number; estimatedBytes: number }> {
  const state = await openPostgres(pgUrl.toString(), 2);
  try {
    const slugs = Array.from({ length: n }, (_, i) => seedSlug(data.base, i));
    const cache = new EndpointCache({ maxEntries: n, loadMany: (batch) => loadEndpointSnapshots(state.db, batch) });
    Bun.gc(true);
    const before = heapStats().heapSize;
    for (let i = 0; i < n; i += 1_000) await Promise.all(slugs.slice(i, i + 1_000).map((slug) => cache.get(slug)));
    Bun.gc(true);
    const heapBytes = heapStats().heapSize - before;
    return { heapBytes, estimatedBytes: cache.stats().bytes };
  } finally {
    await state.close();
  }
}

const median = (xs: number[]) => {
  const s = [...xs].sort((a, b) => a - b);
  return s.length ? (s.length % 2 ? (s[(s.length - 1) >> 1] as number) : ((s[s.length / 2 - 1] as number) + (s[s.length / 2] as number)) / 2) : Number.NaN;
};

async function main() {
  const loadStart = loadAverage();
  log(`bench/tenants: ${endpoints.toLocaleString('en')} endpoints in Postgres, spread over ${spread.toLocaleString('en')}, ${rounds} round(s) of ${seconds} s; load average ${loadStart}`);
  const data = await prepare();
  // Captures go to a fresh ClickHouse database each run; only the endpoints are worth reusing.
  await fetch(`${CLICKHOUSE_URL}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${dbName}`)}`, { method: 'POST' });
  const s = await startServer({
    entry: GC_MARKED_ENTRY,
    env: {
      DATABASE_URL: pgUrl.toString(),
      CLICKHOUSE_URL: `${CLICKHOUSE_URL.replace(/\/+$/, '')}/${dbName}`,
      NATS_URL,
      NATS_PREFIX: dbName,
      LOG_LEVEL: 'warn',
      SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(true)),
      PLANS: '{"free":{"limit":1000000000}}',
      BUN_JSC_logGC: '1',
      ...(env.ENDPOINT_CACHE_MAX ? { ENDPOINT_CACHE_MAX: env.ENDPOINT_CACHE_MAX } : {}),
      ...(env.ENDPOINT_CACHE_MAX_AGE_MS ? { ENDPOINT_CACHE_MAX_AGE_MS: env.ENDPOINT_CACHE_MAX_AGE_MS } : {}),
    },
  });
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  const pgPids = async () => (await admin`SELECT pid FROM pg_stat_activity WHERE datname = ${dbName} AND backend_type = 'client backend' AND pid <> pg_backend_pid()`).map((r) => Number(r.pid));
  const health = async () => (await (await fetch(`${s.url}/healthz`)).json()) as Health;
  const one = ['' + data.base, '1', 'random'];
  const many = ['' + data.base, String(spread), 'random'];
  try {
    log('warming up on one endpoint');
    await wrk(`${s.url}/w/`, { connections, seconds: 2, script, args: one });
    const cacheBefore = (await health()).endpointCache;

    // The cold pass: one capture to each spread endpoint in turn, every one a miss. Short wrk runs
    // (wrk always runs its full duration), each starting where the last stopped; the last one may
    // wrap onto warm endpoints for a moment.
    const t0 = performance.now();
    let covered = 0;
    let coldOk = 0;
    let coldSeconds = 0;
    while (covered < spread) {
      progress('cold pass over the spread endpoints', covered, spread, t0);
      const r = await wrk(`${s.url}/w/`, { connections, seconds: 1, script, args: [String(data.base), String(spread), 'walk', String(covered)] });
      if (r.requests === 0) throw new Error('wrk sent nothing in the cold pass');
      covered += r.requests;
      coldOk += r.requests - r.non2xx;
      coldSeconds += r.seconds;
    }
    progress('cold pass over the spread endpoints', spread, spread, t0);
    const cacheAfter = (await health()).endpointCache;
    if (!cacheBefore || !cacheAfter) throw new Error('no endpointCache in /healthz');
    const cold = {
      captures: coldOk,
      capturesPerSecond: coldOk / coldSeconds,
      queries: cacheAfter.queries - cacheBefore.queries,
      slugsLoaded: cacheAfter.slugsLoaded - cacheBefore.slugsLoaded,
    };
    const measuredCache = await cacheMemory(data, spread);
    const cache = {
      entries: cacheAfter.entries,
      max: cacheAfter.max,
      estimatedBytes: cacheAfter.bytes,
      estimatedBytesPerEntry: cacheAfter.bytes / Math.max(1, cacheAfter.entries),
      measuredBytesPerEntry: measuredCache.heapBytes / spread,
      estimateInBench: measuredCache.estimatedBytes / spread,
    };

    const samples: { one: Sample[]; spread: Sample[] } = { one: [], spread: [] };
    for (let r = 0; r < rounds; r++) {
      log(`round ${r + 1}/${rounds}: one endpoint, then ${spread.toLocaleString('en')} endpoints (${seconds} s each)`);
      samples.one.push(await measured(s, pgPids, one, seconds));
      samples.spread.push(await measured(s, pgPids, many, seconds));
    }
    // The same offered rate both ways, open loop (bench/lib/rate.ts): half the one-endpoint peak
    // unless BENCH_RATE says otherwise; latency from each request's scheduled send.
    const rate = num('BENCH_RATE', Math.max(1, Math.floor(median(samples.one.map((x) => x.rps)) / 2)));
    const body = await postBody();
    const rng = new Rng(15);
    const atRate: { one: RateResult[]; spread: RateResult[] } = { one: [], spread: [] };
    for (let r = 0; r < rounds; r++) {
      log(`round ${r + 1}/${rounds} at ${rate.toLocaleString('en')} captures/s: one endpoint, then ${spread.toLocaleString('en')}`);
      // Both ways compute a slug per request, so the generator costs the same.
      atRate.one.push(await constantRate(`${s.url}/w/`, body, rate, seconds, 128, {}, () => `/w/${seedSlug(data.base, Math.floor(rng.next() * 0))}`));
      atRate.spread.push(await constantRate(`${s.url}/w/`, body, rate, seconds, 128, {}, () => `/w/${seedSlug(data.base, Math.floor(rng.next() * spread))}`));
    }
    // Every load after the cold pass is a background re-read of a snapshot past its age
    // (ENDPOINT_CACHE_MAX_AGE_MS): nothing is evicted or invalidated during the rounds.
    const cacheEnd = (await health()).endpointCache;
    const rereads = { slugs: (cacheEnd?.slugsLoaded ?? 0) - cacheAfter.slugsLoaded, queries: (cacheEnd?.queries ?? 0) - cacheAfter.queries };
    const rateSummary = (xs: RateResult[]) => ({
      rate,
      ok: xs.reduce((a, x) => a + x.ok, 0),
      sent: xs.reduce((a, x) => a + x.sent, 0),
      p50Ms: median(xs.map((x) => x.p50)),
      p99Ms: median(xs.map((x) => x.p99)),
    });
    const summary = (xs: Sample[]) => ({
      capturesPerSecond: median(xs.map((x) => x.rps)),
      p50Ms: median(xs.map((x) => x.p50)),
      p99Ms: median(xs.map((x) => x.p99)),
      cpuUsPerCapture: {
        service: median(xs.map((x) => x.cpuUs.service)),
        postgres: median(xs.map((x) => x.cpuUs.postgres)),
        nats: median(xs.map((x) => x.cpuUs.nats)),
        clickhouse: median(xs.map((x) => x.cpuUs.clickhouse)),
      },
      gc: {
        collections: median(xs.map((x) => x.gc.collections)),
        longestMs: Math.max(...xs.map((x) => x.gc.longestMs)),
        mainLongestMs: Math.max(...xs.map((x) => x.gc.mainLongestMs)),
        workerLongestMs: Math.max(...xs.map((x) => x.gc.workerLongestMs)),
      },
      errors: xs.reduce((a, x) => a + x.errors + x.non2xx, 0),
    });
    const result = {
      bench: 'tenants',
      at: new Date().toISOString(),
      loadAverage: { start: loadStart, end: loadAverage() },
      config: { endpoints: data.endpoints, spread, seconds, rounds, connections, quick },
      one: summary(samples.one),
      spread: summary(samples.spread),
      ratio: median(samples.spread.map((x) => x.rps)) / median(samples.one.map((x) => x.rps)),
      atRate: { one: rateSummary(atRate.one), spread: rateSummary(atRate.spread) },
      cold,
      cache,
      rereads,
      samples,
    };
    saveResults('tenants', result);

    const f = (n: number, d = 0) => n.toLocaleString('en', { maximumFractionDigits: d, minimumFractionDigits: d });
    console.log(`\nbench/tenants — ${f(data.endpoints)} endpoints in Postgres; medians of ${rounds} alternated round(s) of ${seconds} s, wrk -t1 -c${connections}; load average ${loadStart} → ${result.loadAverage.end}\n`);
    console.log('| captures to | captures/s | p50 / p99 ms | µs CPU per capture: service / its Postgres / NATS / ClickHouse | GC pauses, longest: receiver / worker |');
    console.log('|---|---|---|---|---|');
    for (const [name, x] of [['one endpoint', result.one], [`${f(spread)} endpoints (uniform)`, result.spread]] as const) {
      console.log(`| ${name} | ${f(x.capturesPerSecond)} | ${f(x.p50Ms, 2)} / ${f(x.p99Ms, 2)} | ${f(x.cpuUsPerCapture.service, 1)} / ${f(x.cpuUsPerCapture.postgres, 1)} / ${f(x.cpuUsPerCapture.nats, 1)} / ${f(x.cpuUsPerCapture.clickhouse, 1)} | ${x.gc.collections}, ${f(x.gc.mainLongestMs, 1)} / ${f(x.gc.workerLongestMs, 1)} ms |`);
    }
    console.log(`\nspread / one: ${f(result.ratio * 100, 1)}% (target ≥ 90%)`);
    for (const [name, x] of [['one endpoint', result.atRate.one], [`${f(spread)} endpoints`, result.atRate.spread]] as const) {
      console.log(`at ${f(rate)} captures/s offered (open loop), ${name}: ${f(x.ok)}/${f(x.sent)} acknowledged, p50 ${f(x.p50Ms, 2)} ms, p99 ${f(x.p99Ms, 2)} ms`);
    }
    console.log(`cold pass: ${f(spread)} cold endpoints covered by ${f(cold.captures)} captures (its last 1 s wrk run wraps onto warm ones) at ${f(cold.capturesPerSecond)}/s, ${f(cold.queries)} load queries (${f(cold.slugsLoaded / Math.max(1, cold.queries), 1)} slugs per query)`);
    console.log(`re-reads of snapshots past their age after the cold pass (ENDPOINT_CACHE_MAX_AGE_MS): ${f(rereads.slugs)} slugs in ${f(rereads.queries)} queries`);
    console.log(`endpoint cache: ${f(cache.entries)} entries (max ${f(cache.max)}), estimated ${f(cache.estimatedBytes / 2 ** 20, 1)} MiB (${f(cache.estimatedBytesPerEntry)} B/entry, /healthz); the same ${f(spread)} snapshots measured on the heap in this process: ${f(cache.measuredBytesPerEntry)} B/entry`);
  } finally {
    await admin.end();
    await stopServer(s);
    await fetch(`${CLICKHOUSE_URL}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${dbName}`)}`, { method: 'POST' }).catch(() => {});
  }
}

await main();
