/**
 * The search bench's dataset: accounts and endpoints made through the real API, then N generated
 * captures inserted straight into ClickHouse in large time-ordered batches (one part per insert),
 * and a description of it all kept in the bench database so a later run can reuse it.
 */
import { call, newAccount } from '../../test/support/client';
import { captureToRow, metaSearchText } from '../../src/stores/captures/row';
import { quoteString } from '../../src/stores/captures/sql-quote';
import type { ClickHouseHttp } from './clickhouse-http';
import { Rng, WeightedPicker } from './random';
import { webhookCapture } from './webhooks';

export interface BenchEndpoint {
  id: string;
  slug: string;
  /** Captures generated for it. */
  rows: number;
}

export interface BenchAccount {
  key: string;
  endpoints: BenchEndpoint[];
}

export interface Dataset {
  rows: number;
  days: number;
  startAt: number;
  endAt: number;
  accounts: BenchAccount[];
}

export interface DatasetShape {
  rows: number;
  endpoints: number;
  accounts: number;
  days: number;
  batchRows: number;
  /** Zipf exponent of endpoint traffic: 0 = all equal; 0.6 = a few busy endpoints, a long tail. */
  skew: number;
}

const META_TABLE = 'bench_meta';

/** The dataset recorded by an earlier, completed load; null when there is none. */
export async function readDataset(ch: ClickHouseHttp): Promise<Dataset | null> {
  const exists = await ch.exec(`EXISTS TABLE ${ch.db}.${META_TABLE}`).catch(() => '0');
  if (exists.trim() !== '1') return null;
  const [row] = await ch.rows<{ value: string }>(`SELECT value FROM ${ch.db}.${META_TABLE} WHERE key = 'dataset'`);
  return row ? (JSON.parse(row.value) as Dataset) : null;
}

async function writeDataset(ch: ClickHouseHttp, dataset: Dataset): Promise<void> {
  await ch.exec(`CREATE TABLE IF NOT EXISTS ${ch.db}.${META_TABLE} (key String, value String) ENGINE = TinyLog`);
  await ch.exec(`INSERT INTO ${ch.db}.${META_TABLE} (key, value) VALUES ('dataset', ${quoteString(JSON.stringify(dataset))})`);
}

/** Accounts with an API key each and `endpoints` endpoints dealt round-robin, via the API. */
export async function createAccounts(base: string, shape: DatasetShape): Promise<BenchAccount[]> {
  const accounts: BenchAccount[] = [];
  for (let a = 0; a < shape.accounts; a++) accounts.push({ key: (await newAccount(base)).key, endpoints: [] });
  for (let e = 0; e < shape.endpoints; e++) {
    const account = accounts[e % accounts.length];
    if (!account) throw new Error('no accounts');
    const r = await call(base, 'POST', '/api/endpoints', { token: account.key, body: { name: `bench ${e}` } });
    if (r.status !== 201) throw new Error(`create endpoint: ${r.status} ${r.text}`);
    account.endpoints.push({ id: r.body.id, slug: r.body.slug, rows: 0 });
  }
  return accounts;
}

/**
 * Inserts `shape.rows` captures spread evenly over `shape.days` days ending now, in time order
 * so each batch lands in one or two daily partitions. The next batch is generated while the
 * previous one is being inserted.
 */
export async function loadCaptures(ch: ClickHouseHttp, accounts: BenchAccount[], shape: DatasetShape): Promise<Dataset> {
  // Endpoint i, counted account by account, gets weight 1/(i+1)^skew: the first account holds the
  // busiest endpoints (one big customer, ~1.7M of 10M captures), the last account the quietest.
  const endpoints = accounts.flatMap((a) => a.endpoints);
  const picker = new WeightedPicker(endpoints.map((_, i) => 1 / Math.pow(i + 1, shape.skew)));
  const rng = new Rng(20240310);
  const endAt = Date.now();
  const span = shape.days * 86_400_000;
  const startAt = endAt - span;
  let pending: Promise<void> | null = null;
  const started = performance.now();
  for (let done = 0; done < shape.rows; ) {
    const n = Math.min(shape.batchRows, shape.rows - done);
    const lines: string[] = new Array(n);
    for (let i = 0; i < n; i++) {
      const at = startAt + Math.floor(((done + i) * span) / shape.rows);
      const endpoint = endpoints[picker.pick(rng)];
      if (!endpoint) throw new Error('picker out of range');
      endpoint.rows++;
      const c = webhookCapture(rng, endpoint.id, at);
      lines[i] = JSON.stringify(captureToRow(c, metaSearchText(c)));
    }
    if (pending) await pending;
    pending = ch.insertJsonEachRow('captures', lines.join('\n'));
    done += n;
    const s = (performance.now() - started) / 1000;
    process.stdout.write(`\r  loaded ${done.toLocaleString('en')} / ${shape.rows.toLocaleString('en')} rows, ${Math.round(done / s).toLocaleString('en')} rows/s   `);
  }
  if (pending) await pending;
  process.stdout.write('\n');
  const dataset: Dataset = { rows: shape.rows, days: shape.days, startAt, endAt, accounts };
  await writeDataset(ch, dataset);
  return dataset;
}

/** Waits until ClickHouse has no merge running on the bench database (or `maxMs` passes). */
export async function waitForMerges(ch: ClickHouseHttp, database: string, maxMs: number): Promise<void> {
  const deadline = Date.now() + maxMs;
  let quiet = 0;
  while (Date.now() < deadline && quiet < 3) {
    const [row] = await ch.rows<{ n: string }>(`SELECT count() AS n FROM system.merges WHERE database = ${quoteString(database)}`);
    quiet = Number(row?.n ?? 0) === 0 ? quiet + 1 : 0;
    await Bun.sleep(2_000);
  }
}

export interface StorageFacts {
  rows: number;
  parts: number;
  partitions: number;
  bytesOnDisk: number;
  uncompressed: number;
}

export async function storageFacts(ch: ClickHouseHttp, database: string, table = 'captures'): Promise<StorageFacts> {
  const [row] = await ch.rows<Record<string, string>>(
    `SELECT sum(rows) AS rows, count() AS parts, uniqExact(partition) AS partitions, sum(bytes_on_disk) AS disk,` +
      ` sum(data_uncompressed_bytes) AS raw FROM system.parts` +
      ` WHERE database = ${quoteString(database)} AND table = ${quoteString(table)} AND active`,
  );
  return {
    rows: Number(row?.rows ?? 0),
    parts: Number(row?.parts ?? 0),
    partitions: Number(row?.partitions ?? 0),
    bytesOnDisk: Number(row?.disk ?? 0),
    uncompressed: Number(row?.raw ?? 0),
  };
}
