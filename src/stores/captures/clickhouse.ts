import { readdir } from 'node:fs/promises';
import { createClient, type Logger } from '@clickhouse/client';
import { log } from '../../log';
import { idTime } from '../../ids';
import type { Capture } from '../../model/capture';
import * as sql from './clickhouse-sql';
import { TsvWriter } from './clickhouse-tsv';
import { parseRecords, recordText } from './json-records';
import { writeRecordRow } from './record-tsv';
import { captureToRow, metaSearchText, ROW_COLUMNS, rowToCapture } from './row';
import { quoteIdentifier, quoteString } from './sql-quote';
import type { CaptureStore, EndpointScope, PageCursor, SearchFilter, SearchPage } from './types';

export interface ClickHouseCaptureStoreOptions {
  /** HTTP interface, e.g. http://127.0.0.1:8123 */
  url: string;
  /** Created by migrate() when missing. */
  database: string;
  username?: string;
  password?: string;
}

const DDL_DIR = new URL('../../../clickhouse/', import.meta.url);

// Ids per IN list: ~35 bytes each quoted, so a statement stays far below 18.16's default
// max_query_size (256 KiB), which applies to the whole SELECT text.
const KEYS_PER_QUERY = 1000;

// A search names every endpoint the caller can read; past ~11,000 of them the IN list alone
// outgrows the server's default max_query_size (256 KiB) and the query would fail.
const MAX_QUERY_BYTES = String(16 * 1024 * 1024);

// As long as the client's requests may take (its default).
const INSERT_TIMEOUT_MS = 30_000;

// The largest insert buffer kept for the next batch; see insert().
const KEEP_BUFFER_BYTES = 64 * 1024 * 1024;

// Extra keys read per page; see page().
const SPARE_KEYS = 8;

type Row = Record<string, unknown>;

/** Every statement of every clickhouse/*.sql file, in file-name order. Each must be idempotent. */
async function ddlStatements(): Promise<string[]> {
  const files = (await readdir(DDL_DIR)).filter((f) => f.endsWith('.sql')).sort();
  const statements: string[] = [];
  for (const file of files) {
    const text = await Bun.file(new URL(file, DDL_DIR)).text();
    // Whole-line comments go first so a ';' inside one cannot split a statement.
    const code = text
      .split('\n')
      .filter((line) => !line.trimStart().startsWith('--'))
      .join('\n');
    statements.push(...code.split(';').map((s) => s.trim()).filter((s) => s !== ''));
  }
  return statements;
}

/** `ALTER TABLE t ADD COLUMN name …`: the table and column it adds; null for other statements. */
function addedColumn(statement: string): { table: string; column: string } | null {
  const m = /^ALTER\s+TABLE\s+(\w+)\s+ADD\s+COLUMN\s+(\w+)\s/i.exec(statement);
  return m?.[1] && m[2] ? { table: m[1], column: m[2] } : null;
}

function chunks<T>(items: readonly T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

function uniqueBy<T>(items: readonly T[], key: (item: T) => string): T[] {
  const seen = new Set<string>();
  return items.filter((item) => {
    const k = key(item);
    if (seen.has(k)) return false;
    seen.add(k);
    return true;
  });
}

function toKey(row: Row): sql.RowKey {
  const { endpoint_id: endpointId, received_at: receivedAt, id } = row;
  if (typeof endpointId !== 'string' || typeof id !== 'string') throw new Error('clickhouse: malformed key row');
  // UInt64 arrives as a quoted string in JSON output.
  return { endpointId, receivedAt: Number(receivedAt), id };
}

function captureKey(c: Capture): sql.RowKey {
  return { endpointId: c.endpointId, receivedAt: c.receivedAt, id: c.id };
}

/**
 * The client's own logger writes multi-line text to stderr (each failed request, with its query
 * id and arguments); the service's log is JSON lines. Every failure reaches our code as an error
 * and is logged there, so the client's lines go to `debug`, as JSON, message only.
 */
class ClientLog implements Logger {
  trace(): void {}
  debug(): void {}
  info(): void {}
  warn(p: { module: string; message: string; err?: Error }): void {
    log.debug('clickhouse client', { module: p.module, message: p.message, error: p.err?.message });
  }
  error(p: { module: string; message: string; err: Error }): void {
    log.debug('clickhouse client', { module: p.module, message: p.message, error: p.err.message });
  }
}
const clientLog = { LoggerClass: ClientLog };

/**
 * Captures in ClickHouse through @clickhouse/client, written to run on 18.16 (no query
 * parameters: values are rendered by sql-quote) and on current releases.
 *
 * Inserts alone go through Bun's `fetch`, one POST of the batch's bytes: the client sends a body
 * through Node's stream machinery, which copied each ~20 MB batch once more in the socket's
 * writev, and cost the shipper worker 0.6–1.5 µs more per capture (docs/benchmarks.md).
 */
export function createClickHouseCaptureStore(opts: ClickHouseCaptureStoreOptions): CaptureStore {
  const database = quoteIdentifier(opts.database);
  const auth = { username: opts.username ?? 'default', password: opts.password ?? '' };
  const client = createClient({ url: opts.url, database: opts.database, ...auth, log: clientLog });
  let spare: Buffer | null = null;
  const insertUrl = new URL(opts.url);
  insertUrl.searchParams.set('database', opts.database);
  insertUrl.searchParams.set('query', `INSERT INTO ${sql.CAPTURES_TABLE} (${ROW_COLUMNS.join(', ')}) FORMAT TabSeparated`);
  const insertHeaders = { authorization: `Basic ${Buffer.from(`${auth.username}:${auth.password}`).toString('base64')}` };

  async function select(query: string): Promise<Row[]> {
    const result = await client.query({ query, format: 'JSONEachRow', clickhouse_settings: { max_query_size: MAX_QUERY_BYTES } });
    return result.json<Row>();
  }

  /** Whole rows for distinct keys, in the keys' order. */
  async function rowsByKeys(keys: readonly sql.RowKey[]): Promise<Capture[]> {
    const parts = await Promise.all(chunks(keys, KEYS_PER_QUERY).map((c) => select(sql.rowsByKeysQuery(c))));
    const byId = new Map<string, Capture>();
    for (const row of parts.flat()) {
      const capture = rowToCapture(row);
      byId.set(capture.id, capture);
    }
    return keys.flatMap((k) => byId.get(k.id) ?? []);
  }

  async function page(c: sql.Conditions, order: 'asc' | 'desc', limit: number, offset = 0): Promise<Capture[]> {
    if (limit <= 0) return [];
    // A few spare keys so that a not-yet-merged duplicate cannot make a full page look short
    // (LIMIT 1 BY id would be exact but doubled the key read on a 300k-row endpoint).
    const keys = (await select(sql.keysQuery(c, order, limit + SPARE_KEYS, offset))).map(toKey);
    const unique = uniqueBy(keys, (k) => k.id).slice(0, limit);
    return unique.length === 0 ? [] : rowsByKeys(unique);
  }

  async function hasColumn(table: string, column: string): Promise<boolean> {
    const rows = await select(
      `SELECT name FROM system.columns WHERE database = ${quoteString(opts.database)} AND table = ${quoteString(table)} AND name = ${quoteString(column)}`,
    );
    return rows.length > 0;
  }

  async function storedIds(batch: readonly Capture[]): Promise<Set<string>> {
    // Sorted by id (= time order), each chunk covers a short time range.
    const keys = batch.map(captureKey).sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0));
    const found = await Promise.all(chunks(keys, KEYS_PER_QUERY).map((c) => select(sql.existingIdsQuery(c))));
    return new Set(found.flat().map((r) => String(r.id)));
  }

  /**
   * One buffer is kept between batches (a batch is at most SHIP_BATCH_BYTES, 32 MiB, of records), unless a batch
   * of large bodies grew it past KEEP_BUFFER_BYTES. A concurrent insert, or one after a failed
   * insert whose request may still hold the old buffer, writes into a new one.
   */
  function takeSpare(): Buffer | undefined {
    const kept = spare ?? undefined;
    spare = null;
    return kept;
  }

  async function send(w: TsvWriter): Promise<void> {
    const res = await fetch(insertUrl, { method: 'POST', body: w.bytes(), headers: insertHeaders, signal: AbortSignal.timeout(INSERT_TIMEOUT_MS) });
    if (!res.ok) throw new Error(`clickhouse insert: ${res.status} ${(await res.text()).slice(0, 1000)}`);
    await res.arrayBuffer();
    if (w.buf.length <= KEEP_BUFFER_BYTES) spare = w.buf;
  }

  return {
    kind: 'clickhouse',

    async migrate() {
      // A client bound to a database that does not exist yet fails every request, even this one.
      const bootstrap = createClient({ url: opts.url, ...auth, log: clientLog });
      try {
        await bootstrap.command({ query: `CREATE DATABASE IF NOT EXISTS ${database}` });
      } finally {
        await bootstrap.close();
      }
      for (const statement of await ddlStatements()) {
        // 18.16 has no ADD COLUMN IF NOT EXISTS: a column that is there already was added before.
        const added = addedColumn(statement);
        if (added && (await hasColumn(added.table, added.column))) continue;
        await client.command({ query: statement });
      }
    },

    async insert(batch, insertOpts) {
      let rows = uniqueBy(batch, (c) => c.id);
      if (insertOpts?.dedupe && rows.length > 0) {
        const stored = await storedIds(rows);
        rows = rows.filter((c) => !stored.has(c.id));
      }
      if (rows.length === 0) return;
      const w = new TsvWriter(takeSpare());
      for (const c of rows) w.row(captureToRow(c, metaSearchText(c)));
      await send(w);
    },

    async insertRecords(records, insertOpts) {
      // A replay is rare and must skip what is stored already: through the parsed path.
      if (insertOpts?.dedupe) return this.insert(parseRecords(records), insertOpts);
      if (records.ends.length === 0) return;
      // Not made unique by id, as insert() does: each record is in the log once (every append is
      // a new capture with a new id), and a batch that is not a replay reads each frame once.
      const w = new TsvWriter(takeSpare());
      const { bytes, ends } = records;
      for (let i = 0, start = 0; i < ends.length; start = ends[i++] as number) {
        if (writeRecordRow(w, bytes, start, ends[i] as number)) continue;
        const c = JSON.parse(recordText(records, i)) as Capture;
        w.row(captureToRow(c, metaSearchText(c)));
      }
      await send(w);
    },

    async list(scope: EndpointScope, limit: number, before?: PageCursor) {
      const prewhere = [sql.scopeCondition([scope]), ...(before ? [sql.beforeCondition(before)] : [])].join(' AND ');
      return page({ prewhere }, 'desc', limit);
    },

    async listAfter(scope: EndpointScope, after: PageCursor, limit: number) {
      return page({ prewhere: `${sql.scopeCondition([scope])} AND ${sql.afterCondition(after)}` }, 'asc', limit);
    },

    async get(id: string, scopes: EndpointScope[]) {
      const receivedAt = idTime(id);
      if (scopes.length === 0 || !Number.isSafeInteger(receivedAt)) return null;
      const [row] = await select(sql.getQuery(id, receivedAt, scopes));
      return row ? rowToCapture(row) : null;
    },

    async search(p: SearchPage) {
      if (p.scopes.length === 0) return [];
      const c = sql.filterConditions(p);
      if (p.cursor) c.prewhere += ` AND ${p.order === 'asc' ? sql.afterCondition(p.cursor) : sql.beforeCondition(p.cursor)}`;
      return page(c, p.order, p.limit, p.offset);
    },

    async probeRead(signal: AbortSignal) {
      // The smallest column's first granule: reads the table's data, not only its metadata (a
      // count() is answered from the parts' row counts), and costs one small read.
      const result = await client.query({ query: `SELECT 1 AS ok FROM ${sql.CAPTURES_TABLE} LIMIT 1`, format: 'JSONEachRow', abort_signal: signal });
      await result.json();
    },

    async count(filter: SearchFilter) {
      if (filter.scopes.length === 0) return 0;
      const [row] = await select(sql.countQuery(filter));
      return Number(row?.n ?? 0);
    },

    async activity(scopes: EndpointScope[]) {
      if (scopes.length === 0) return [];
      // UInt64 arrives as a quoted string in JSON output.
      return (await select(sql.activityQuery(scopes))).map((r) => ({ endpointId: String(r.endpoint_id), count: Number(r.n), lastReceivedAt: Number(r.last) }));
    },

    async expire(input) {
      const result = { partitionsDropped: 0, mutations: 0, rowsDeleted: 0, mutationsPending: false };
      const others = input.othersBefore;
      const cutoffOf = new Map<string, number>();
      for (const rule of input.rules) for (const id of rule.endpointIds) cutoffOf.set(id, rule.before);
      const cutoffs = [others, ...input.rules.map((r) => r.before)];
      // Before `floor` every capture has expired, whatever its endpoint; before `latest` some have.
      const floor = Math.min(...cutoffs);
      const latest = Math.max(...cutoffs);

      // Whole weeks first: a partition whose every capture has expired, and that holds no kept
      // one, goes with DROP PARTITION (metadata only, immediate). A week that ended by the floor
      // has expired for every endpoint; a later one if every endpoint in it has a later cutoff.
      const weeks = (await select(sql.partitionsQuery(opts.database)))
        .map((r) => Number(r.partition))
        .filter((w) => Number.isSafeInteger(w))
        .sort((a, b) => a - b);
      for (const week of weeks) {
        const from = week * sql.PARTITION_MS;
        const to = from + sql.PARTITION_MS;
        if (to > latest) break;
        if (to > floor) {
          const present = (await select(sql.endpointsBetweenQuery(from, to))).map((r) => String(r.endpoint_id));
          if (present.some((id) => (cutoffOf.get(id) ?? others) < to)) continue;
        }
        if ((await input.keptBetween(from, to)).length > 0) continue;
        await client.command({ query: sql.dropPartitionQuery(week) });
        result.partitionsDropped++;
      }

      // The rest by mutation. Each rewrites the parts it touches in the background; issuing more
      // while earlier ones run would only queue rewrites of the same parts.
      const [pending] = await select(sql.pendingMutationsQuery(opts.database));
      if (Number(pending?.n ?? 0) > 0) return { ...result, mutationsPending: true };
      // Every endpoint no rule names, in one mutation: all captures before `others` but those of
      // the endpoints with an earlier cutoff (a longer retention) and the kept ones. Issued only
      // when such a row is still stored.
      const longer = input.rules.filter((r) => r.before < others).flatMap((r) => r.endpointIds);
      const keepOthers = (await input.keptBetween(0, others)).map((k) => k.id);
      const [older] = await select(sql.countOlderQuery(others, longer, keepOthers));
      if (Number(older?.n ?? 0) > 0) {
        await client.command({ query: sql.expireOlderQuery(others, longer, keepOthers), clickhouse_settings: { max_query_size: MAX_QUERY_BYTES } });
        result.mutations++;
      }
      for (const rule of input.rules) {
        for (const ids of chunks(rule.endpointIds, KEYS_PER_QUERY)) {
          const expired = (await select(sql.expiredEndpointsQuery(ids, rule.before))).map((r) => String(r.endpoint_id));
          if (expired.length === 0) continue;
          const keep = (await input.keptOf(expired)).filter((k) => k.receivedAt < rule.before).map((k) => k.id);
          await client.command({ query: sql.expireQuery(expired, rule.before, keep) });
          result.mutations++;
        }
      }
      return result;
    },

    async purge(endpointIds: string[]) {
      if (endpointIds.length === 0) return;
      // A mutation: accepted at once, applied in the background (18.16 has no mutations_sync).
      await client.command({ query: sql.purgeQuery(endpointIds) });
    },

    async close() {
      await client.close();
    },
  };
}
