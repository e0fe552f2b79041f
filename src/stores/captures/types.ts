import type { Capture } from '../../model/capture';

/**
 * One endpoint the caller may see, and the time (ms, exclusive) before which its captures are
 * hidden because they were cleared. `since` 0 shows everything.
 */
export interface EndpointScope {
  endpointId: string;
  since: number;
}

/** Position of a capture in newest-first order: (receivedAt, id) descending. */
export interface PageCursor {
  receivedAt: number;
  id: string;
}

export interface SearchFilter {
  /** Already authorised by the caller; an empty list matches nothing. */
  scopes: EndpointScope[];
  /** Upper-case HTTP method. */
  method?: string;
  /** Case-insensitive substring over path, body, header values and query string. */
  q?: string;
  /** Every one must hold (AND); see HeaderFilter. Absent or empty: no header condition. */
  headers?: HeaderFilter[];
  /** Inclusive bounds on receivedAt, ms. */
  from?: number;
  to?: number;
  /** Only these capture ids (pinned ones); an empty list matches nothing. */
  ids?: string[];
}

/**
 * A capture carries a header of exactly this name whose value holds `value` as a case-insensitive
 * substring; `value` '' means the header is present with any value (docs/search.md, `header`).
 */
export interface HeaderFilter {
  /** A token (RFC 9110), lower-cased: stored names are lower-case. */
  name: string;
  value: string;
}

export interface SearchPage extends SearchFilter {
  limit: number;
  offset: number;
  order: 'asc' | 'desc';
  /** Only rows strictly beyond this position in `order` (keyset paging: exports walk every match). */
  cursor?: PageCursor;
}

/**
 * Captures of these endpoints received before `before` (ms) have expired (docs/retention.md): the
 * endpoints whose retention differs from the one most endpoints are on.
 */
export interface ExpiryRule {
  before: number;
  endpointIds: string[];
}

/** How many captures one endpoint holds in its scope, and when the newest came (endpoint list). */
export interface EndpointActivity {
  endpointId: string;
  count: number;
  /** receivedAt (ms) of the newest capture in scope. */
  lastReceivedAt: number;
}

/** A capture kept whatever its age (pinned). */
export interface KeptCapture {
  id: string;
  endpointId: string;
  receivedAt: number;
}

export interface ExpiryInput {
  /**
   * The cutoff (ms) of every endpoint no rule names: the retention most endpoints are on, and
   * deleted endpoints. So a sweep lists only the endpoints on other retentions, never all of them.
   */
  othersBefore: number;
  /**
   * Endpoints with a cutoff of their own, earlier (a longer retention) or later (a shorter one)
   * than `othersBefore`; an endpoint is in at most one.
   */
  rules: ExpiryRule[];
  /** Kept captures of these endpoints. */
  keptOf(endpointIds: string[]): Promise<KeptCapture[]>;
  /** Kept captures received in [from, to). */
  keptBetween(from: number, to: number): Promise<KeptCapture[]>;
  /** Rows per delete where the store deletes in batches (SQLite). */
  batchRows: number;
}

export interface ExpiryResult {
  /** Whole partitions dropped (ClickHouse). */
  partitionsDropped: number;
  /** ALTER TABLE … DELETE mutations issued (ClickHouse; applied in the background). */
  mutations: number;
  /** Rows deleted (SQLite). */
  rowsDeleted: number;
  /** Mutations of an earlier sweep are still running: none were issued this time (ClickHouse). */
  mutationsPending: boolean;
}

/**
 * Capture records as JSON text (`JSON.stringify` of a Capture), end to end in one buffer: record i
 * is `bytes[i === 0 ? 0 : ends[i - 1], ends[i])`.
 */
export interface JsonRecords {
  readonly bytes: Uint8Array;
  readonly ends: readonly number[];
}

/**
 * Where captured requests live: ClickHouse in production, bun:sqlite embedded. Both pass the one
 * conformance suite in test/stores/captures.test.ts.
 */
export interface CaptureStore {
  readonly kind: 'clickhouse' | 'sqlite';
  /** Creates tables if missing (DDL from clickhouse/ or the SQLite schema). */
  migrate(): Promise<void>;
  /**
   * Inserts one batch. With `dedupe` (used when replaying the capture log after a crash) rows whose
   * id is already stored are skipped, so a replay never duplicates.
   */
  insert(batch: Capture[], opts?: { dedupe?: boolean }): Promise<void>;
  /**
   * Inserts one batch given as the records' JSON text (the capture log's frames), as `insert` would
   * insert them parsed. The shipper's path: ClickHouse writes its rows from the text without
   * parsing it (record-tsv.ts).
   */
  insertRecords(records: JsonRecords, opts?: { dedupe?: boolean }): Promise<void>;
  /** Newest first, strictly older than `before` in (receivedAt, id) order. */
  list(scope: EndpointScope, limit: number, before?: PageCursor): Promise<Capture[]>;
  /** Oldest first, strictly newer than `after`: SSE catch-up after Last-Event-ID. */
  listAfter(scope: EndpointScope, after: PageCursor, limit: number): Promise<Capture[]>;
  /** One capture by id, only if it belongs to one of `scopes` (and is not cleared). */
  get(id: string, scopes: EndpointScope[]): Promise<Capture | null>;
  search(page: SearchPage): Promise<Capture[]>;
  count(filter: SearchFilter): Promise<number>;
  /**
   * For each scope, how many captures it holds (what `count({scopes: [scope]})` gives, so what
   * `list` pages through) and the newest one's receivedAt, each endpoint with its own `since`:
   * one grouped query for all of them. Endpoints without a capture in scope are left out; no
   * scopes, no rows. Order unspecified.
   */
  activity(scopes: EndpointScope[]): Promise<EndpointActivity[]>;
  /** Removes expired captures, never kept ones (may complete asynchronously). */
  expire(input: ExpiryInput): Promise<ExpiryResult>;
  /** Physically removes every capture of these endpoints (may complete asynchronously). */
  purge(endpointIds: string[]): Promise<void>;
  /**
   * One cheap read of the captures table, for /healthz (`backends.capturesReachable`); aborted
   * by `signal`. Only server stores have it: SQLite runs inside the process.
   */
  probeRead?(signal: AbortSignal): Promise<void>;
  close(): Promise<void>;
}
