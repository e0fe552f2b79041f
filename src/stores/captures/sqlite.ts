import { Database } from 'bun:sqlite';
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { Capture } from '../../model/capture';
import { typedSearchForms } from '../../model/header-bytes';
import { CAPTURE_COLUMNS, ROW_COLUMNS, captureToRow, headerKeyNeedle, headerNameNeedle, headersOf, metaSearchText, rowToCapture, searchNeedle, storedHeaderValue } from './row';
import { groupScopesBySince } from './scopes';
import type { CaptureStore, EndpointScope, HeaderFilter, PageCursor, SearchFilter, SearchPage } from './types';
import { parseRecords } from './json-records';

export interface SqliteCaptureStoreOptions {
  /** Database file (its folder is created), or ":memory:". */
  path: string;
}

type Binding = string | number;
type Row = Record<string, unknown>;

/** A piece of WHERE clause with its bound values; values never enter the SQL text. */
interface Clause {
  sql: string;
  params: Binding[];
}

const SCHEMA = [
  `CREATE TABLE IF NOT EXISTS captures (
    id TEXT PRIMARY KEY,
    endpoint_id TEXT NOT NULL,
    received_at INTEGER NOT NULL,
    method TEXT NOT NULL,
    path TEXT NOT NULL,
    headers TEXT NOT NULL,
    body TEXT NOT NULL,
    body_encoding TEXT NOT NULL,
    query_params TEXT NOT NULL,
    content_type TEXT NOT NULL,
    ip TEXT NOT NULL,
    size INTEGER NOT NULL,
    detected_provider TEXT NOT NULL,
    detected_event TEXT NOT NULL,
    signature TEXT NOT NULL,
    search_text TEXT NOT NULL
  )`,
  'CREATE INDEX IF NOT EXISTS captures_endpoint_time ON captures (endpoint_id, received_at, id)',
];

/** Columns added since the first layout, in order; existing rows get the default. */
const ADDED_COLUMNS: readonly (readonly [string, string])[] = [
  ['response_status', 'response_status INTEGER NOT NULL DEFAULT 0'],
  // The raw query as sent; '' on rows stored before it was kept.
  ['query', "query TEXT NOT NULL DEFAULT ''"],
];

const SELECT_COLUMNS = CAPTURE_COLUMNS.join(', ');
/**
 * Rows per INSERT statement when a batch has that many: one statement per row cost ~6.3 µs of
 * user CPU per row, one per 32 rows 3.4–4.5 (100,000 rows through bun:sqlite in isolation;
 * docs/benchmarks.md). 32 × 18 bound values stays far below SQLite's limit on variables.
 */
const ROWS_PER_INSERT = 32;
const insertSql = (rows: number) =>
  `INSERT OR IGNORE INTO captures (${ROW_COLUMNS.join(', ')}) VALUES ` +
  Array.from({ length: rows }, () => `(${ROW_COLUMNS.map(() => '?').join(', ')})`).join(', ');
const INSERT_ONE_SQL = insertSql(1);
const INSERT_MANY_SQL = insertSql(ROWS_PER_INSERT);
/**
 * Page size of a new database file. 16 KiB pages instead of SQLite's 4 KiB: rows are a captured
 * request each (~1–3 KB, body and its lower-cased copy), and bigger pages cut the write syscalls
 * and the B-tree splits per row (the SQLite part of shipping went from ~11 to ~6.5 µs of CPU per
 * row with 32-row statements, in isolation). A file created before keeps its page size.
 */
const PAGE_SIZE = 16_384;

/**
 * SQLite has no Unicode case folding (LIKE and lower() fold ASCII only), so the body is lower-cased
 * in JS next to the other fields and searched with instr(): the same matches as ClickHouse for
 * everything but exotic case pairs.
 */
function searchText(c: Capture): string {
  return `${metaSearchText(c)}\n${c.body.toLowerCase()}`;
}

function placeholders(n: number): string {
  return Array.from({ length: n }, () => '?').join(', ');
}

function scopeClause(scopes: readonly EndpointScope[]): Clause {
  const groups = groupScopesBySince(scopes);
  return {
    sql: `(${groups.map((g) => `(endpoint_id IN (${placeholders(g.endpointIds.length)}) AND received_at > ?)`).join(' OR ')})`,
    params: groups.flatMap((g) => [...g.endpointIds, g.since]),
  };
}

/**
 * Free text: search_text (path, query rebuilt from its parameters, header values, body), the raw
 * query as sent, and a header's whole name in the stored headers JSON (row.ts headerNameNeedle).
 * lower() folds ASCII only, which the raw query is but for bytes a client left unencoded. A q
 * with non-ASCII characters is also looked for as its UTF-8 bytes in the stored form
 * (typedSearchForms), in header values only: search_text holds the body too (stored decoded), so
 * instr on it only picks the rows worth the JS test of their header values.
 */
function textClause(q: string): Clause {
  const needle = searchNeedle(q);
  const name = headerNameNeedle(q);
  const [, bytes] = typedSearchForms(q);
  const sql = ['instr(search_text, ?) > 0', 'instr(lower(query), ?) > 0'];
  const params: Binding[] = [needle, needle];
  if (bytes !== undefined) {
    const byteNeedle = searchNeedle(bytes);
    sql.push(`(instr(search_text, ?) > 0 AND ${HEADER_VALUES_HOLD}(headers, ?))`);
    params.push(byteNeedle, byteNeedle);
  }
  if (name !== null) {
    sql.push('instr(headers, ?) > 0');
    params.push(name);
  }
  return { sql: `(${sql.join(' OR ')})`, params };
}

/** The SQL functions the clauses call: bun:sqlite runs them in JS, so case folds as in JS. */
const HEADER_HOLDS = 'hookcap_header_holds';
const HEADER_VALUES_HOLD = 'hookcap_header_values_hold';

/** Whether header `name` of stored headers JSON holds one of `needles` (lower-cased) in any case. */
function headerHolds(headers: unknown, name: unknown, ...needles: unknown[]): number {
  if (typeof headers !== 'string' || typeof name !== 'string') return 0;
  const value = storedHeaderValue(headers, name)?.toLowerCase();
  return value !== undefined && needles.some((n) => typeof n === 'string' && value.includes(n)) ? 1 : 0;
}

/** Whether any value of stored headers JSON holds `needle` (lower-cased) in any case, as search_text would. */
function headerValuesHold(headers: unknown, needle: unknown): number {
  if (typeof headers !== 'string' || typeof needle !== 'string') return 0;
  const values = headersOf({ headers });
  return Object.values(values).some((v) => v.toLowerCase().includes(needle)) ? 1 : 0;
}

/**
 * A header filter: the key's text in the stored JSON first (instr, in C, on every row the other
 * conditions leave), and only on rows holding it the value test in JS. lower() would fold ASCII
 * only; JS folds as metaSearchText does, so both stores agree on values like "ÉTÉ".
 */
function headerClause(h: HeaderFilter): Clause {
  const key: Clause = { sql: 'instr(headers, ?) > 0', params: [headerKeyNeedle(h.name)] };
  if (h.value === '') return key;
  // A value with non-ASCII characters also matches as its UTF-8 bytes in the stored form.
  const needles = typedSearchForms(h.value).map(searchNeedle);
  return { sql: `(${key.sql} AND ${HEADER_HOLDS}(headers, ?, ${needles.map(() => '?').join(', ')}))`, params: [...key.params, h.name, ...needles] };
}

function filterClause(filter: SearchFilter): Clause {
  const clauses = [scopeClause(filter.scopes)];
  if (filter.method !== undefined) clauses.push({ sql: 'method = ?', params: [filter.method] });
  // Before q: a header test reads the short headers column, q the body's lower-cased copy.
  for (const h of filter.headers ?? []) clauses.push(headerClause(h));
  if (filter.q) clauses.push(textClause(filter.q));
  if (filter.from !== undefined) clauses.push({ sql: 'received_at >= ?', params: [filter.from] });
  if (filter.to !== undefined) clauses.push({ sql: 'received_at <= ?', params: [filter.to] });
  if (filter.ids !== undefined) clauses.push({ sql: 'id IN (SELECT value FROM json_each(?))', params: [JSON.stringify(filter.ids)] });
  return and(...clauses);
}

function and(...clauses: Clause[]): Clause {
  return { sql: clauses.map((c) => c.sql).join(' AND '), params: clauses.flatMap((c) => c.params) };
}

function orderBy(order: 'asc' | 'desc'): string {
  return order === 'asc' ? 'ORDER BY received_at ASC, id ASC' : 'ORDER BY received_at DESC, id DESC';
}

/** Endpoints probed for expired rows between two yields to the event loop. */
const EXPIRY_PROBES = 200;

/** Lets timers and I/O run between two short synchronous steps (bun:sqlite blocks while it works). */
const yieldToLoop = () => new Promise<void>((resolve) => setImmediate(resolve));

/** Captures in a local SQLite file through bun:sqlite: the embedded twin of the ClickHouse store. */
export function createSqliteCaptureStore(opts: SqliteCaptureStoreOptions): CaptureStore {
  if (opts.path !== ':memory:') mkdirSync(dirname(opts.path), { recursive: true });
  const db = new Database(opts.path, { create: true, strict: true });
  // Takes effect only while the file is still empty (before WAL mode and the first table).
  db.run(`PRAGMA page_size = ${PAGE_SIZE}`);
  db.run('PRAGMA journal_mode = WAL');
  // FULL: each commit's WAL is on disk when the insert resolves. The shipper moves its checkpoint
  // past a batch once its insert resolves, and the log's segments before the checkpoint are
  // recycled, so with NORMAL (WAL synced only at checkpoints) a power loss could take captures that
  // were acknowledged, shipped and no longer in the log. One fsync per batch (every 250 ms at most
  // per node); the ack p99 did not move (docs/benchmarks.md).
  db.run('PRAGMA synchronous = FULL');
  db.run('PRAGMA busy_timeout = 5000');
  db.function(HEADER_HOLDS, { varargs: true }, headerHolds);
  db.function(HEADER_VALUES_HOLD, headerValuesHold);

  // db.query() caches the compiled statement per SQL text, so repeated shapes are prepared once.
  function select(where: Clause, tail = ''): Capture[] {
    const text = `SELECT ${SELECT_COLUMNS} FROM captures WHERE ${where.sql} ${tail}`;
    return db.query<Row, Binding[]>(text).all(...where.params).map(rowToCapture);
  }

  function page(where: Clause, order: 'asc' | 'desc', limit: number, offset = 0): Capture[] {
    if (limit <= 0) return [];
    // A negative LIMIT means "no limit" to SQLite, hence the guard above; offset is clamped alike.
    const params = [...where.params, limit, Math.max(0, offset)];
    return select({ sql: where.sql, params }, `${orderBy(order)} LIMIT ? OFFSET ?`);
  }

  return {
    kind: 'sqlite',

    async migrate() {
      for (const statement of SCHEMA) db.run(statement);
      // Columns added after the table's first layout (SQLite has no ADD COLUMN IF NOT EXISTS).
      const present = new Set(db.query<{ name: string }, []>('PRAGMA table_info(captures)').all().map((c) => c.name));
      for (const [name, ddl] of ADDED_COLUMNS) if (!present.has(name)) db.run(`ALTER TABLE captures ADD COLUMN ${ddl}`);
    },

    async insert(batch) {
      // INSERT OR IGNORE on the id primary key: a replayed capture is skipped, dedupe or not
      // (within one statement too).
      const one = db.query<Row, Binding[]>(INSERT_ONE_SQL);
      const many = db.query<Row, Binding[]>(INSERT_MANY_SQL);
      const values: Binding[] = [];
      const bind = (c: Capture) => {
        const row = captureToRow(c, searchText(c));
        for (const column of ROW_COLUMNS) values.push(row[column]);
      };
      db.transaction((captures: readonly Capture[]) => {
        let i = 0;
        for (; i + ROWS_PER_INSERT <= captures.length; i += ROWS_PER_INSERT) {
          values.length = 0;
          for (let j = i; j < i + ROWS_PER_INSERT; j++) bind(captures[j] as Capture);
          many.run(...values);
        }
        for (; i < captures.length; i++) {
          values.length = 0;
          bind(captures[i] as Capture);
          one.run(...values);
        }
      })(batch);
    },

    async insertRecords(records, insertOpts) {
      await this.insert(parseRecords(records), insertOpts);
    },

    async list(scope: EndpointScope, limit: number, before?: PageCursor) {
      const cursor: Clause[] = before ? [{ sql: '(received_at, id) < (?, ?)', params: [before.receivedAt, before.id] }] : [];
      return page(and(scopeClause([scope]), ...cursor), 'desc', limit);
    },

    async listAfter(scope: EndpointScope, after: PageCursor, limit: number) {
      const cursor = { sql: '(received_at, id) > (?, ?)', params: [after.receivedAt, after.id] };
      return page(and(scopeClause([scope]), cursor), 'asc', limit);
    },

    async get(id: string, scopes: EndpointScope[]) {
      if (scopes.length === 0) return null;
      const [capture] = select(and({ sql: 'id = ?', params: [id] }, scopeClause(scopes)), 'LIMIT 1');
      return capture ?? null;
    },

    async search(p: SearchPage) {
      if (p.scopes.length === 0) return [];
      const where = p.cursor
        ? and(filterClause(p), { sql: `(received_at, id) ${p.order === 'asc' ? '>' : '<'} (?, ?)`, params: [p.cursor.receivedAt, p.cursor.id] })
        : filterClause(p);
      return page(where, p.order, p.limit, p.offset);
    },

    async count(filter: SearchFilter) {
      if (filter.scopes.length === 0) return 0;
      const where = filterClause(filter);
      const row = db.query<{ n: number }, Binding[]>(`SELECT count(*) AS n FROM captures WHERE ${where.sql}`).get(...where.params);
      return row?.n ?? 0;
    },

    async activity(scopes: EndpointScope[]) {
      if (scopes.length === 0) return [];
      // One pass over the (endpoint_id, received_at, id) index ranges of the scopes.
      const where = scopeClause(scopes);
      const text = `SELECT endpoint_id AS e, count(*) AS n, max(received_at) AS last FROM captures WHERE ${where.sql} GROUP BY endpoint_id`;
      return db
        .query<{ e: string; n: number; last: number }, Binding[]>(text)
        .all(...where.params)
        .map((r) => ({ endpointId: r.e, count: r.n, lastReceivedAt: r.last }));
    },

    async expire(input) {
      // Walks the endpoints that have captures, by seeks on the (endpoint_id, received_at, id)
      // index, so the sweep never needs the list of every endpoint in the state database. Each
      // endpoint's expired rows are a range of that index; a batch is one short write transaction,
      // and the loop yields between batches, so neither the shipper's inserts nor this thread's
      // requests wait behind a large deletion. An endpoint no rule names expires at `othersBefore`.
      const cutoffOf = new Map<string, number>();
      for (const rule of input.rules) for (const id of rule.endpointIds) cutoffOf.set(id, rule.before);
      const next = db.query<{ e: string }, Binding[]>('SELECT endpoint_id AS e FROM captures WHERE endpoint_id > ? ORDER BY endpoint_id LIMIT 1');
      const probe = db.query<{ x: number }, Binding[]>('SELECT 1 AS x FROM captures WHERE endpoint_id = ? AND received_at < ? LIMIT 1');
      const remove = db.query<Row, Binding[]>(
        'DELETE FROM captures WHERE rowid IN (SELECT rowid FROM captures WHERE endpoint_id = ? AND received_at < ?' +
          ' AND id NOT IN (SELECT value FROM json_each(?)) LIMIT ?)',
      );
      let rowsDeleted = 0;
      let last = '';
      for (let done = false; !done; ) {
        const expired: { endpointId: string; before: number }[] = [];
        for (let i = 0; i < EXPIRY_PROBES; i++) {
          const row = next.get(last);
          if (!row) {
            done = true;
            break;
          }
          last = row.e;
          const before = cutoffOf.get(last) ?? input.othersBefore;
          if (probe.get(last, before) !== null) expired.push({ endpointId: last, before });
        }
        await yieldToLoop();
        if (expired.length === 0) continue;
        const kept = await input.keptOf(expired.map((x) => x.endpointId));
        for (const { endpointId, before } of expired) {
          const keep = JSON.stringify(kept.filter((k) => k.endpointId === endpointId).map((k) => k.id));
          for (;;) {
            const n = remove.run(endpointId, before, keep, input.batchRows).changes;
            rowsDeleted += n;
            await yieldToLoop();
            if (n < input.batchRows) break;
          }
        }
      }
      return { partitionsDropped: 0, mutations: 0, rowsDeleted, mutationsPending: false };
    },

    async purge(endpointIds: string[]) {
      if (endpointIds.length === 0) return;
      db.query<Row, Binding[]>(`DELETE FROM captures WHERE endpoint_id IN (${placeholders(endpointIds.length)})`).run(...endpointIds);
    },

    async close() {
      db.close();
    },
  };
}
