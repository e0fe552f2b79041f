import type { Capture } from '../../model/capture';

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
  content_type: string;
  ip: string;
  size: number;
  detected_provider: string;
  detected_event: string;
  signature: string;
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
 * The lower-cased text `q` is matched against, besides the body: path, query string and header
 * values (not names). Lower-casing happens here, in JS, for both stores and for the needle, so
 * SQLite (whose LIKE folds ASCII only) and ClickHouse agree on what matches.
 */
export function metaSearchText(c: Capture): string {
  return [c.path, queryString(c.queryParams), ...Object.values(c.headers)].join('\n').toLowerCase();
}

/** The needle for search_text: lower-cased exactly as metaSearchText lower-cases. */
export function searchNeedle(q: string): string {
  return q.toLowerCase();
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
    content_type: c.contentType,
    ip: c.ip,
    size: c.size,
    detected_provider: c.detectedProvider,
    detected_event: c.detectedEvent,
    signature: encodeSignature(c),
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

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

function jsonObject(row: Record<string, unknown>, column: string): Record<string, unknown> {
  const parsed: unknown = JSON.parse(str(row, column));
  if (!isRecord(parsed)) throw new CaptureRowError(column, 'is not a JSON object');
  return parsed;
}

function headersOf(row: Record<string, unknown>): Capture['headers'] {
  const out: Capture['headers'] = {};
  for (const [k, v] of Object.entries(jsonObject(row, 'headers'))) {
    if (typeof v !== 'string') throw new CaptureRowError('headers', `has a non-string value for ${k}`);
    out[k] = v;
  }
  return out;
}

function queryParamsOf(row: Record<string, unknown>): Capture['queryParams'] {
  const out: Capture['queryParams'] = {};
  for (const [k, v] of Object.entries(jsonObject(row, 'query_params'))) {
    if (typeof v === 'string') out[k] = v;
    else if (Array.isArray(v) && v.every((x): x is string => typeof x === 'string')) out[k] = v;
    else throw new CaptureRowError('query_params', `has a bad value for ${k}`);
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
  const parsed: unknown = JSON.parse(json);
  if (!isRecord(parsed)) throw new CaptureRowError('signature', 'is not a JSON object');
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
  return capture;
}
