import { typedSearchForms } from '../../model/header-bytes';
import { CAPTURE_COLUMNS, headerKeyNeedle, headerNameNeedle, searchNeedle } from './row';
import { groupScopesBySince } from './scopes';
import { quoteInt, quoteString, quoteStringList } from './sql-quote';
import type { EndpointScope, HeaderFilter, PageCursor, SearchFilter } from './types';

/**
 * SQL text for the ClickHouse capture store. Pure functions, so the statements can be read and
 * tested without a server; every value goes through sql-quote.
 */

/** The table every statement reads and writes; clickhouse/ creates it. */
export const CAPTURES_TABLE = 'captures';

const SELECT_COLUMNS = CAPTURE_COLUMNS.join(', ');

/** The position of a row in (received_at, id) order, as read by keysQuery. */
export interface RowKey {
  endpointId: string;
  receivedAt: number;
  id: string;
}

/**
 * A read's conditions split by cost. `prewhere` tests only small columns (endpoint, time, id,
 * method): ClickHouse evaluates it first and reads the big columns only for the rows that pass,
 * so `where` (free text over search_text and body) never runs on another endpoint's rows that
 * share a granule. Measured on the 10M-row bench against leaving the choice to
 * optimize_move_to_prewhere: text search over an account's endpoints in a time window about 2x
 * faster (p50 46–68 → 21–31 ms), count by slug and text ~1.4x, search by slug and text the same.
 */
export interface Conditions {
  prewhere: string;
  where?: string;
}

function clauses(c: Conditions): string {
  return `PREWHERE ${c.prewhere}${c.where ? ` WHERE ${c.where}` : ''}`;
}

/**
 * `((endpoint_id IN (…) AND received_at > since) OR …)`: the caller's endpoints first, so the
 * primary key (endpoint_id, received_at, id) narrows every read. Callers handle empty scopes.
 */
export function scopeCondition(scopes: readonly EndpointScope[]): string {
  const groups = groupScopesBySince(scopes).map(
    (g) => `(endpoint_id IN ${quoteStringList(g.endpointIds)} AND received_at > ${quoteInt(g.since)})`,
  );
  return `(${groups.join(' OR ')})`;
}

/**
 * Free text. The body is searched in place with positionCaseInsensitiveUTF8 rather than copied
 * into search_text: same speed on 18.16 and half the storage (see clickhouse/001_captures.sql).
 * So is the raw query as sent (a short column, '' on most captures and on those stored before it
 * was kept, whose search_text still holds the query rebuilt from its parameters). A header's whole
 * name is found in the headers JSON with position() (row.ts headerNameNeedle): names are stored
 * lower-cased. 18.16 has no multiSearchAny, and OR evaluates every operand anyway. A q with
 * non-ASCII characters is also looked for as its UTF-8 bytes in the stored one-char-per-byte form
 * in search_text (header values are stored so; header-bytes.ts typedSearchForms); the body, stored
 * decoded, is not.
 */
export function textCondition(q: string): string {
  const name = headerNameNeedle(q);
  const [, bytes] = typedSearchForms(q);
  return (
    `(position(search_text, ${quoteString(searchNeedle(q))}) > 0` +
    (bytes === undefined ? '' : ` OR position(search_text, ${quoteString(searchNeedle(bytes))}) > 0`) +
    ` OR positionCaseInsensitiveUTF8(body, ${quoteString(q)}) > 0` +
    ` OR positionCaseInsensitiveUTF8(query, ${quoteString(q)}) > 0` +
    (name === null ? '' : ` OR position(headers, ${quoteString(name)}) > 0`) +
    ')'
  );
}

/**
 * A header filter on the stored headers JSON. Presence is the key's text, as for a name in q.
 * A value is read with visitParamExtractString (18.16's JSON reading: the first `"name":`, then
 * one JSON string, unescaped; '' when absent, so no separate presence test) and matched like the
 * body, with positionCaseInsensitiveUTF8. Only in WHERE, and only when the filter is given. A
 * value with non-ASCII characters matches either as typed or as its UTF-8 bytes in the stored
 * form (typedSearchForms); ClickHouse computes the repeated extraction once.
 */
export function headerCondition(h: HeaderFilter): string {
  if (h.value === '') return `position(headers, ${quoteString(headerKeyNeedle(h.name))}) > 0`;
  const value = `visitParamExtractString(headers, ${quoteString(h.name)})`;
  const holds = (v: string) => `positionCaseInsensitiveUTF8(${value}, ${quoteString(v)}) > 0`;
  const [typed, bytes] = typedSearchForms(h.value);
  return bytes === undefined ? holds(typed) : `(${holds(typed)} OR ${holds(bytes)})`;
}

export function filterConditions(filter: SearchFilter): Conditions {
  const cheap = [scopeCondition(filter.scopes)];
  if (filter.method !== undefined) cheap.push(`method = ${quoteString(filter.method)}`);
  if (filter.from !== undefined) cheap.push(`received_at >= ${quoteInt(filter.from)}`);
  if (filter.to !== undefined) cheap.push(`received_at <= ${quoteInt(filter.to)}`);
  if (filter.ids !== undefined) cheap.push(filter.ids.length > 0 ? `id IN ${quoteStringList(filter.ids)}` : '0');
  const costly = (filter.headers ?? []).map(headerCondition);
  if (filter.q) costly.push(textCondition(filter.q));
  return costly.length > 0 ? { prewhere: cheap.join(' AND '), where: costly.join(' AND ') } : { prewhere: cheap.join(' AND ') };
}

// (received_at, id) < (t, id) spelled out, with a bare bound on received_at the primary key can use.
export function beforeCondition(cursor: PageCursor): string {
  const t = quoteInt(cursor.receivedAt);
  return `received_at <= ${t} AND (received_at < ${t} OR id < ${quoteString(cursor.id)})`;
}

export function afterCondition(cursor: PageCursor): string {
  const t = quoteInt(cursor.receivedAt);
  return `received_at >= ${t} AND (received_at > ${t} OR id > ${quoteString(cursor.id)})`;
}

/**
 * First phase of a page read: only the key columns, sorted and limited. 18.16 cannot stop a
 * sorted read early, so sorting whole rows would read every body in range; keys are cheap.
 */
export function keysQuery(c: Conditions, order: 'asc' | 'desc', limit: number, offset = 0): string {
  const dir = order === 'asc' ? 'ASC' : 'DESC';
  const skip = offset > 0 ? ` OFFSET ${quoteInt(offset)}` : '';
  return (
    `SELECT endpoint_id, received_at, id FROM ${CAPTURES_TABLE} ${clauses(c)}` +
    ` ORDER BY received_at ${dir}, id ${dir} LIMIT ${quoteInt(limit)}${skip}`
  );
}

/**
 * Exactly these keys. The (endpoint_id, received_at) tuple set is a primary-key prefix, so even
 * keys spread over many endpoints and weeks read only the granules that hold them.
 */
function keysCondition(keys: readonly RowKey[]): string {
  const pairs = keys.map((k) => `(${quoteString(k.endpointId)}, ${quoteInt(k.receivedAt)})`);
  return `(endpoint_id, received_at) IN (${pairs.join(', ')}) AND id IN ${quoteStringList(keys.map((k) => k.id))}`;
}

/** Second phase: whole rows for known keys (measured: 50 rows in ~10 ms). */
export function rowsByKeysQuery(keys: readonly RowKey[]): string {
  return `SELECT ${SELECT_COLUMNS} FROM ${CAPTURES_TABLE} PREWHERE ${keysCondition(keys)}`;
}

/** Ids of these keys that are already stored (dedupe on replay). */
export function existingIdsQuery(keys: readonly RowKey[]): string {
  return `SELECT id FROM ${CAPTURES_TABLE} PREWHERE ${keysCondition(keys)}`;
}

/** One capture: idTime(id) gives received_at, so the lookup is a primary-key point read. */
export function getQuery(id: string, receivedAt: number, scopes: readonly EndpointScope[]): string {
  return (
    `SELECT ${SELECT_COLUMNS} FROM ${CAPTURES_TABLE} PREWHERE ${scopeCondition(scopes)}` +
    ` AND received_at = ${quoteInt(receivedAt)} AND id = ${quoteString(id)} LIMIT 1`
  );
}

export function countQuery(filter: SearchFilter): string {
  return `SELECT count() AS n FROM ${CAPTURES_TABLE} ${clauses(filterConditions(filter))}`;
}

/**
 * Per endpoint in scope, its captures and the newest received_at: one read of the two key
 * columns, grouped (the store's `activity`). Each endpoint's own since applies through
 * scopeCondition. Callers handle empty scopes.
 */
export function activityQuery(scopes: readonly EndpointScope[]): string {
  return `SELECT endpoint_id, count() AS n, max(received_at) AS last FROM ${CAPTURES_TABLE} PREWHERE ${scopeCondition(scopes)} GROUP BY endpoint_id`;
}

export function purgeQuery(endpointIds: readonly string[]): string {
  return `ALTER TABLE ${CAPTURES_TABLE} DELETE WHERE endpoint_id IN ${quoteStringList(endpointIds)}`;
}

/** Partitions are weeks of received_at (clickhouse/001_captures.sql). */
export const PARTITION_MS = 604_800_000;

/** The weekly partitions that hold data. */
export function partitionsQuery(database: string): string {
  return (
    `SELECT DISTINCT partition FROM system.parts WHERE database = ${quoteString(database)}` +
    ` AND table = ${quoteString(CAPTURES_TABLE)} AND active`
  );
}

/** Endpoints with captures in [from, to): reads only the endpoint_id column of that week. */
export function endpointsBetweenQuery(from: number, to: number): string {
  return `SELECT DISTINCT endpoint_id FROM ${CAPTURES_TABLE} PREWHERE received_at >= ${quoteInt(from)} AND received_at < ${quoteInt(to)}`;
}

export function dropPartitionQuery(week: number): string {
  return `ALTER TABLE ${CAPTURES_TABLE} DROP PARTITION ${quoteInt(week)}`;
}

/** Mutations on the table not finished yet. */
export function pendingMutationsQuery(database: string): string {
  return (
    `SELECT count() AS n FROM system.mutations WHERE database = ${quoteString(database)}` +
    ` AND table = ${quoteString(CAPTURES_TABLE)} AND is_done = 0`
  );
}

/** Which of these endpoints have captures received before `before`. */
export function expiredEndpointsQuery(endpointIds: readonly string[], before: number): string {
  return `SELECT DISTINCT endpoint_id FROM ${CAPTURES_TABLE} PREWHERE endpoint_id IN ${quoteStringList(endpointIds)} AND received_at < ${quoteInt(before)}`;
}

/** Captures received before `before`, but those of `exceptEndpoints` and the kept ones. */
function olderCondition(before: number, exceptEndpoints: readonly string[], keepIds: readonly string[]): string {
  const except = exceptEndpoints.length > 0 ? ` AND endpoint_id NOT IN ${quoteStringList(exceptEndpoints)}` : '';
  const keep = keepIds.length > 0 ? ` AND id NOT IN ${quoteStringList(keepIds)}` : '';
  return `received_at < ${quoteInt(before)}${except}${keep}`;
}

/** How many captures olderCondition matches. */
export function countOlderQuery(before: number, exceptEndpoints: readonly string[], keepIds: readonly string[]): string {
  return `SELECT count() AS n FROM ${CAPTURES_TABLE} WHERE ${olderCondition(before, exceptEndpoints, keepIds)}`;
}

/** A mutation removing what olderCondition matches, whatever the endpoint. */
export function expireOlderQuery(before: number, exceptEndpoints: readonly string[], keepIds: readonly string[]): string {
  return `ALTER TABLE ${CAPTURES_TABLE} DELETE WHERE ${olderCondition(before, exceptEndpoints, keepIds)}`;
}

/** A mutation: rewrites every part holding a matching row (docs/retention.md: the cost). */
export function expireQuery(endpointIds: readonly string[], before: number, keepIds: readonly string[]): string {
  const keep = keepIds.length > 0 ? ` AND id NOT IN ${quoteStringList(keepIds)}` : '';
  return `ALTER TABLE ${CAPTURES_TABLE} DELETE WHERE endpoint_id IN ${quoteStringList(endpointIds)} AND received_at < ${quoteInt(before)}${keep}`;
}
