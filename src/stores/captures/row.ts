import type { Capture } from '../../model/capture';
import { isRecord } from '../../unknown';


/**
 * A capture as both stores keep it: one flat row, the maps as JSON text, and the lower-cased
 * text that free-text search looks in. Column names are the same in ClickHouse and SQLite.
 */
export interface CaptureRow {
  id: string;
  endpoint_id: string;
  received_at: number;
  method: string;
  path: string;
  headers: string;
  body: string;
  body_encoding: string;
  query_params: string;
  /** The raw query as sent; '' when none, and for captures stored before it was kept. */
  query: string;
  content_type: string;
  ip: string;
  size: number;
  detected_provider: string;
  detected_event: string;
  signature: string;
  /** 0 for captures stored before the answered status was recorded. */
  response_status: number;
  search_text: string;
}

/** Columns read back into a Capture (search_text is write-only). */
export const CAPTURE_COLUMNS = [
  'id',
  'endpoint_id',
  'received_at',
  'method',
  'path',
  'headers',
  'body',
  'body_encoding',
  'query_params',
  'content_type',
  'ip',
  'size',
  'detected_provider',
  'detected_event',
  'signature',
  'response_status',
  'query',
] as const;

/** Columns written on insert, in this order. */
export const ROW_COLUMNS = [...CAPTURE_COLUMNS, 'search_text'] as const;

/** `a=1&a=2&b=x`: the query string as a client would type it into a search box. */
function queryString(params: Capture['queryParams']): string {
  const parts: string[] = [];
  for (const [key, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) parts.push(`${key}=${v}`);
  }
  return parts.join('&');
}

/**
 * The lower-cased text `q` is matched against, besides the body: path, query string rebuilt from
 * its parameters and header values. The stores also match the raw `query` column and header names
 * (headerNameNeedle) in place. Lower-casing happens here, in JS, for both stores and for the
 * needle, so SQLite (whose LIKE folds ASCII only) and ClickHouse agree on what matches.
 */
export function metaSearchText(c: Capture): string {
  return [c.path, queryString(c.queryParams), ...Object.values(c.headers)].join('\n').toLowerCase();
}

/** The needle for search_text: lower-cased exactly as metaSearchText lower-cases. */
export function searchNeedle(q: string): string {
  return q.toLowerCase();
}

// A header name is a token (RFC 9110 §5.6.2): the receiver takes no other, replay and send-test refuse others.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * What free-text search looks for in the stored headers JSON so that `q` matches a capture
 * carrying a header of exactly that name: `"name":`, the key as JSON.stringify writes it (names
 * are stored lower-cased, and a token needs no escape). Inside a JSON string every `"` is escaped,
 * so no header value can hold this text; only a key ending in `"name` could, and a token holds no
 * quote. A substring test like the body's: no parse, no derived column, and captures stored before
 * it are found too. Whole names only: parts (`content`, `type`, `user`) would match every capture.
 * Null when q is not a token, and so no header's name.
 */
export function headerNameNeedle(q: string): string | null {
  return TOKEN.test(q) ? headerKeyNeedle(q.toLowerCase()) : null;
}

/**
 * `"name":`, a header's key as JSON.stringify writes it in the stored headers (a token needs no
 * escape, and stored names are lower-case): the name filter's needle, safe for the reason
 * headerNameNeedle gives. `name` must already be a lower-case token.
 */
export function headerKeyNeedle(name: string): string {
  return `"${name}":`;
}

/**
 * The value of header `name` in stored headers JSON, found the way ClickHouse's
 * visitParamExtractString finds it (the first `"name":`, then one JSON string), so both stores
 * read the same value; null when absent, not a string, or malformed. No parse of the whole map:
 * SQLite calls this only on rows whose headers hold the key.
 */
export function storedHeaderValue(headers: string, name: string): string | null {
  const key = headerKeyNeedle(name);
  const at = headers.indexOf(key);
  if (at < 0) return null;
  const start = at + key.length;
  if (headers.charCodeAt(start) !== 0x22) return null;
  let end = start + 1;
  for (; end < headers.length; end++) {
    const c = headers.charCodeAt(end);
    if (c === 0x5c) end++;
    else if (c === 0x22) break;
  }
  if (end >= headers.length) return null;
  try {
    const value: unknown = JSON.parse(headers.slice(start, end + 1));
    return typeof value === 'string' ? value : null;
  } catch {
    return null;
  }
}

interface SignatureFields {
  signatureVerified?: boolean;
  signatureError?: string | null;
  signingProvider?: string;
}

/** The optional signature fields as JSON, keeping "absent" apart from null; '' when none. */
function encodeSignature(c: Capture): string {
  const fields: SignatureFields = {};
  if (c.signatureVerified !== undefined) fields.signatureVerified = c.signatureVerified;
  if (c.signatureError !== undefined) fields.signatureError = c.signatureError;
  if (c.signingProvider !== undefined) fields.signingProvider = c.signingProvider;
  return Object.keys(fields).length === 0 ? '' : JSON.stringify(fields);
}

/** @param searchText what the store matches `q` against; see metaSearchText. */
export function captureToRow(c: Capture, searchText: string): CaptureRow {
  return {
    id: c.id,
    endpoint_id: c.endpointId,
    received_at: c.receivedAt,
    method: c.method,
    path: c.path,
    headers: JSON.stringify(c.headers),
    body: c.body,
    body_encoding: c.bodyEncoding,
    query_params: JSON.stringify(c.queryParams),
    query: c.query ?? '',
    content_type: c.contentType,
    ip: c.ip,
    size: c.size,
    detected_provider: c.detectedProvider,
    detected_event: c.detectedEvent,
    signature: encodeSignature(c),
    response_status: c.responseStatus ?? 0,
    search_text: searchText,
  };
}

class CaptureRowError extends Error {
  constructor(column: string, detail: string) {
    super(`capture row: column ${column} ${detail}`);
    this.name = 'CaptureRowError';
  }
}

function str(row: Record<string, unknown>, column: string): string {
  const v = row[column];
  if (typeof v !== 'string') throw new CaptureRowError(column, `is ${typeof v}, expected string`);
  return v;
}

// ClickHouse writes UInt64 as a quoted string in JSON output; SQLite gives numbers.
function num(row: Record<string, unknown>, column: string): number {
  const v = row[column];
  const n = typeof v === 'string' && v !== '' ? Number(v) : v;
  if (typeof n !== 'number' || !Number.isFinite(n)) throw new CaptureRowError(column, `is not a number: ${String(v)}`);
  return n;
}


/**
 * A stored map column as an object without a prototype, whatever was stored: text that is not a
 * JSON object reads as empty. Reads must never fail on a capture a stranger shaped (a row that
 * cannot be read would break every list and search that includes it).
 */
function storedMap(row: Record<string, unknown>, column: string): [string, unknown][] {
  const text = row[column];
  if (typeof text !== 'string') return [];
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    return [];
  }
  // JSON.parse defines every key as an own property, "__proto__" included.
  return isRecord(parsed) ? Object.entries(parsed) : [];
}

/** A scalar as text; null for what has no text form (null, objects). */
function scalarText(v: unknown): string | null {
  if (typeof v === 'string') return v;
  if (typeof v === 'number' || typeof v === 'boolean') return String(v);
  return null;
}

/** The text values of an array element by element, dropping what has none. */
function texts(values: unknown[]): string[] {
  const out: string[] = [];
  for (const v of values) {
    const t = scalarText(v);
    if (t !== null) out.push(t);
  }
  return out;
}

export function headersOf(row: Record<string, unknown>): Capture['headers'] {
  const out: Capture['headers'] = Object.create(null);
  for (const [k, v] of storedMap(row, 'headers')) {
    const value = Array.isArray(v) ? texts(v).join(', ') : scalarText(v);
    if (value !== null) out[k] = value;
  }
  return out;
}

function queryParamsOf(row: Record<string, unknown>): Capture['queryParams'] {
  const out: Capture['queryParams'] = Object.create(null);
  for (const [k, v] of storedMap(row, 'query_params')) {
    if (Array.isArray(v)) {
      // Captures stored before parseQuery had a null prototype hold [null, value] for names like toString.
      const values = texts(v);
      if (values.length === 1 && values[0] !== undefined) out[k] = values[0];
      else if (values.length > 1) out[k] = values;
    } else {
      const value = scalarText(v);
      if (value !== null) out[k] = value;
    }
  }
  return out;
}

function bodyEncodingOf(row: Record<string, unknown>): Capture['bodyEncoding'] {
  const v = str(row, 'body_encoding');
  if (v !== 'utf8' && v !== 'base64') throw new CaptureRowError('body_encoding', `is ${v}`);
  return v;
}

function addSignature(capture: Capture, json: string): void {
  if (json === '') return;
  let parsed: unknown;
  try {
    parsed = JSON.parse(json);
  } catch {
    return;
  }
  if (!isRecord(parsed)) return;
  const { signatureVerified, signatureError, signingProvider } = parsed;
  if (typeof signatureVerified === 'boolean') capture.signatureVerified = signatureVerified;
  if (typeof signatureError === 'string' || signatureError === null) capture.signatureError = signatureError;
  if (typeof signingProvider === 'string') capture.signingProvider = signingProvider;
}

/** Reads a row from either store back into a Capture; throws on a row of the wrong shape. */
export function rowToCapture(row: Record<string, unknown>): Capture {
  const capture: Capture = {
    id: str(row, 'id'),
    endpointId: str(row, 'endpoint_id'),
    method: str(row, 'method'),
    path: str(row, 'path'),
    headers: headersOf(row),
    body: str(row, 'body'),
    bodyEncoding: bodyEncodingOf(row),
    queryParams: queryParamsOf(row),
    contentType: str(row, 'content_type'),
    ip: str(row, 'ip'),
    size: num(row, 'size'),
    receivedAt: num(row, 'received_at'),
    detectedProvider: str(row, 'detected_provider'),
    detectedEvent: str(row, 'detected_event'),
  };
  addSignature(capture, str(row, 'signature'));
  // Rows from before the column existed read back as 0 (its default): the status is unknown.
  const responseStatus = num(row, 'response_status');
  if (responseStatus !== 0) capture.responseStatus = responseStatus;
  // '' is both "no query" and "stored before the column existed": with parameters it can only be
  // the latter, and the field stays absent (readers rebuild the query from queryParams).
  const query = row.query === undefined ? '' : str(row, 'query');
  if (query !== '' || Object.keys(capture.queryParams).length === 0) capture.query = query;
  return capture;
}
