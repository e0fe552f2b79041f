/**
 * bench/retention — what the two ClickHouse retention paths cost (docs/retention.md):
 * DROP PARTITION of a whole expired week against an ALTER TABLE … DELETE mutation that removes one
 * endpoint's rows from a week it shares with others.
 *
 *   bun bench/retention.ts                       2M synthetic captures (1 KiB bodies) over two weeks
 *   BENCH_ROWS=500000 bun bench/retention.ts     smaller
 *
 * Uses its own ClickHouse database `hookcap_bench_retention` (dropped at the end). Rows are made
 * by INSERT … SELECT from numbers(), so loading costs no client time. Reported, not asserted.
 */
import { CLICKHOUSE_URL } from '../test/support/backends';
import { createClickHouseCaptureStore } from '../src/stores/captures/clickhouse';
import { PARTITION_MS } from '../src/stores/captures/clickhouse-sql';
import { ClickHouseHttp } from './lib/clickhouse-http';

const rows = Number(process.env.BENCH_ROWS ?? 2_000_000);
const dbName = 'hookcap_bench_retention';
const ch = new ClickHouseHttp(CLICKHOUSE_URL, dbName);

await ch.exec(`DROP DATABASE IF EXISTS ${ch.db}`);
const store = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database: dbName });
await store.migrate();

const week0 = Math.floor(Date.now() / PARTITION_MS) - 10;
const t0 = week0 * PARTITION_MS;
// 1,000 endpoints, rows spread evenly over two whole weeks (two partitions).
await ch.exec(
  `INSERT INTO ${ch.db}.captures (endpoint_id, received_at, id, method, path, headers, body, body_encoding, query_params, content_type, ip, size, detected_provider, detected_event, signature, search_text)
   SELECT concat('ep_', toString(number % 1000)), ${t0} + intDiv(number * ${2 * PARTITION_MS}, ${rows}), concat('req_', toString(number)),
          'POST', '/', '{}', arrayStringConcat(arrayMap(x -> 'x', range(1024))), 'utf8', '{}', 'application/json', '127.0.0.1', 1024, '', '', '', ''
   FROM system.numbers LIMIT ${rows}`,
);
await ch.exec(`OPTIMIZE TABLE ${ch.db}.captures FINAL`);

const parts = async () =>
  (await ch.rows<{ partition: string; parts: string; rows: string; bytes: string }>(
    `SELECT partition, count() AS parts, sum(rows) AS rows, sum(bytes_on_disk) AS bytes FROM system.parts WHERE database = '${dbName}' AND table = 'captures' AND active GROUP BY partition ORDER BY partition`,
  ));
console.log('loaded', rows, 'rows:', await parts());

// A mutation removing one endpoint's rows (~0.1%) from the second week.
let t = performance.now();
await ch.exec(`ALTER TABLE ${ch.db}.captures DELETE WHERE endpoint_id = 'ep_7' AND received_at >= ${t0 + PARTITION_MS}`);
for (;;) {
  const [m] = await ch.rows<{ n: string }>(`SELECT count() AS n FROM system.mutations WHERE database = '${dbName}' AND is_done = 0`);
  if (Number(m?.n ?? 0) === 0) break;
  await Bun.sleep(20);
}
const mutationMs = performance.now() - t;
console.log(`mutation (1 endpoint of 1000, one week of ${rows / 2} rows): ${mutationMs.toFixed(0)} ms until done`);

t = performance.now();
await ch.exec(`ALTER TABLE ${ch.db}.captures DROP PARTITION ${week0}`);
const dropMs = performance.now() - t;
console.log(`DROP PARTITION (one week, ${rows / 2} rows): ${dropMs.toFixed(0)} ms`);
console.log('after:', await parts());

await store.close();
await ch.exec(`DROP DATABASE IF EXISTS ${ch.db}`);
