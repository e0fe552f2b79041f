/**
 * bench/search — search and count latency (SPEC 4.2) over a large ClickHouse dataset, end to end
 * through the real HTTP API (auth, endpoint lookup, visibility, query, JSON).
 *
 *   bun bench/search.ts                      load 10M captures (1,000 endpoints, 50 accounts, 30 days), then measure
 *   BENCH_REUSE=1 bun bench/search.ts        measure again on the dataset already loaded
 *   BENCH_ROWS=1000000 BENCH_QUERIES=50 …    smaller runs
 *
 * Needs scripts/services.sh (Postgres on 5432, ClickHouse on 8123). The data lives in its own
 * databases, `hookcap_bench_search` in Postgres and ClickHouse (BENCH_DB to rename), replaced on
 * every run without BENCH_REUSE. Targets (issue 3): slug + q p50 ≤ 150 ms, count ≤ 50 ms, a time
 * window over all of an account's endpoints ≤ 300 ms. Reported, not asserted.
 */
import postgres from 'postgres';
import { CLICKHOUSE_URL, PG_ADMIN_URL } from '../test/support/backends';
import { startServer, stopServer, type TestServer } from '../test/support/server';
import { ClickHouseHttp } from './lib/clickhouse-http';
import { Rng } from './lib/random';
import { createAccounts, loadCaptures, readDataset, storageFacts, waitForMerges, type Dataset, type DatasetShape } from './lib/search-dataset';
import { kinds, type QueryKind } from './lib/search-queries';
import { loadAverage, saveResults } from './lib/results';

const env = process.env;
const num = (name: string, def: number) => (env[name] ? Number(env[name]) : def);
const shape: DatasetShape = {
  rows: num('BENCH_ROWS', 10_000_000),
  endpoints: num('BENCH_ENDPOINTS', 1_000),
  accounts: num('BENCH_ACCOUNTS', 50),
  days: num('BENCH_DAYS', 30),
  batchRows: num('BENCH_BATCH', 100_000),
  skew: num('BENCH_SKEW', 0.6),
};
const queries = num('BENCH_QUERIES', 100);
const reuse = env.BENCH_REUSE === '1';
const dbName = env.BENCH_DB ?? 'hookcap_bench_search';
const only = env.BENCH_ONLY ? new Set(env.BENCH_ONLY.split(',')) : null;

const ch = new ClickHouseHttp(CLICKHOUSE_URL, dbName);
const pgUrl = new URL(PG_ADMIN_URL);
pgUrl.pathname = `/${dbName}`;

async function resetDatabases(): Promise<void> {
  // dbName is a plain identifier (ClickHouseHttp refuses anything else), so it can be quoted as is.
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`DROP DATABASE IF EXISTS "${dbName}" WITH (FORCE)`);
  await admin.unsafe(`CREATE DATABASE "${dbName}"`);
  await admin.end();
  await ch.exec(`DROP DATABASE IF EXISTS ${ch.db}`);
}

function serve(): Promise<TestServer> {
  return startServer({
    env: { DATABASE_URL: pgUrl.toString(), CLICKHOUSE_URL: `${CLICKHOUSE_URL.replace(/\/+$/, '')}/${dbName}`,
      LOG_LEVEL: 'warn',
      // 50 sign-ups in a row; the per-key API limit stays on, so its cost is in the figures.
      RATE_LIMIT_AUTH: 'off',
      // The dataset spans 30 days and the accounts are on the free plan (7 days): without this the
      // retention sweep one second after start drops most of it, and BENCH_REUSE measures 2.3M rows.
      RETENTION_CLOCK_OFFSET_MS: String(-365 * 86_400_000),
    },
  });
}

async function dataset(server: TestServer): Promise<Dataset> {
  if (reuse) {
    const found = await readDataset(ch);
    if (found) return found;
    throw new Error(`BENCH_REUSE=1 but no completed dataset in ClickHouse database ${dbName}; run once without it`);
  }
  console.log(`creating ${shape.accounts} accounts and ${shape.endpoints} endpoints through the API`);
  const accounts = await createAccounts(server.url, shape);
  console.log(`loading ${shape.rows.toLocaleString('en')} captures in batches of ${shape.batchRows.toLocaleString('en')}`);
  const t0 = performance.now();
  const loaded = await loadCaptures(ch, accounts, shape);
  console.log(`  load took ${((performance.now() - t0) / 1000).toFixed(0)} s`);
  return loaded;
}

interface Measured {
  ms: number[];
  results: number[];
}

const quantile = (sorted: readonly number[], q: number) => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;

async function measure(base: string, kind: QueryKind, data: Dataset): Promise<Measured> {
  const rng = new Rng(kind.name.length * 7919 + 17);
  const warm = Array.from({ length: 5 }, () => kind.make(rng, data));
  for (const q of warm) await fetch(`${base}${q.path}`, { headers: { authorization: `Bearer ${q.key}` } }).then((r) => r.text());
  const ms: number[] = [];
  const results: number[] = [];
  for (let i = 0; i < Math.min(queries, kind.maxQueries ?? queries); i++) {
    const q = kind.make(rng, data);
    const t0 = performance.now();
    const res = await fetch(`${base}${q.path}`, { headers: { authorization: `Bearer ${q.key}` } });
    const text = await res.text();
    ms.push(performance.now() - t0);
    if (res.status !== 200) throw new Error(`${kind.name}: ${res.status} ${text.slice(0, 300)} for ${q.path}`);
    const body: unknown = JSON.parse(text);
    results.push(Array.isArray(body) ? body.length : typeof body === 'object' && body !== null && 'count' in body ? Number(body.count) : 0);
  }
  return { ms, results };
}

const server = await (async () => {
  if (!reuse) await resetDatabases();
  return serve();
})();
// Ctrl-C must not leave the service process behind.
for (const signal of ['SIGINT', 'SIGTERM'] as const) {
  process.on(signal, () => {
    void stopServer(server).finally(() => process.exit(130));
  });
}
try {
  const data = await dataset(server);
  console.log('waiting for ClickHouse merges to settle');
  await waitForMerges(ch, dbName, num('BENCH_MERGE_WAIT_S', 900) * 1000);
  const facts = await storageFacts(ch, dbName);
  const version = (await ch.exec('SELECT version()')).trim();
  const endpoints = data.accounts.flatMap((a) => a.endpoints).map((e) => e.rows).sort((a, b) => a - b);
  const perAccount = data.accounts.map((a) => a.endpoints.reduce((s, e) => s + e.rows, 0)).sort((a, b) => a - b);

  const f = (n: number) => (Number.isFinite(n) ? n.toFixed(1) : 'n/a');
  console.log(
    `\nbench/search: ClickHouse ${version}, ${facts.rows.toLocaleString('en')} captures over ${data.days} days, ` +
      `${endpoints.length} endpoints in ${data.accounts.length} accounts, ${queries} queries per row (after 5 warm-up), ` +
      `one at a time over HTTP, ${navigator.hardwareConcurrency} cores`,
  );
  console.log(
    `captures per endpoint: min ${endpoints[0]}, median ${quantile(endpoints, 0.5)}, max ${endpoints.at(-1)}; ` +
      `per account: median ${quantile(perAccount, 0.5)}, max ${perAccount.at(-1)}; ` +
      `table ${(facts.bytesOnDisk / 2 ** 30).toFixed(2)} GiB on disk (${(facts.uncompressed / 2 ** 30).toFixed(2)} GiB raw), ` +
      `${facts.parts} parts in ${facts.partitions} partitions\n`,
  );
  const measuredKinds: { id: string; name: string; p50: number; p95: number; max: number; targetMs: number | null; medianResults: number }[] = [];
  console.log('| query | p50 ms | p95 ms | max ms | target | median results |');
  console.log('|---|---|---|---|---|---|');
  for (const kind of kinds) {
    if (only && !only.has(kind.id)) continue;
    const r = await measure(server.url, kind, data);
    const sorted = [...r.ms].sort((a, b) => a - b);
    const counts = [...r.results].sort((a, b) => a - b);
    const p50 = quantile(sorted, 0.5);
    const target = kind.targetMs ? `p50 ≤ ${kind.targetMs}${p50 <= kind.targetMs ? ' ✓' : ' ✗'}` : '-';
    console.log(`| ${kind.name} | ${f(p50)} | ${f(quantile(sorted, 0.95))} | ${f(sorted.at(-1) ?? Number.NaN)} | ${target} | ${quantile(counts, 0.5)} |`);
    measuredKinds.push({ id: kind.id, name: kind.name, p50, p95: quantile(sorted, 0.95), max: sorted.at(-1) ?? Number.NaN, targetMs: kind.targetMs ?? null, medianResults: quantile(counts, 0.5) });
  }
  saveResults('search', { bench: 'search', at: new Date().toISOString(), loadAverage: loadAverage(), clickhouse: version, rows: facts.rows, endpoints: endpoints.length, accounts: data.accounts.length, queries, kinds: measuredKinds });
} finally {
  await stopServer(server);
}
