/**
 * A capture's record as the capture log holds it (the JSON text of a Capture, as
 * `JSON.stringify` wrote it on the receiver) written as one TabSeparated row, without parsing it
 * into objects.
 *
 * Why: the shipper worker used to decode and `JSON.parse` every record, `JSON.stringify` its
 * headers and query parameters again for their columns, then escape every field for
 * TabSeparated. The decode and the parse alone were a third of the worker's samples
 * (docs/benchmarks.md, "Shipping"). Here one pass over the bytes finds each field; strings are
 * unescaped from JSON and escaped for TabSeparated byte by byte, the two maps are copied as the
 * JSON text they already are, and UTF-8 passes through as it is.
 *
 * The row is byte for byte what captureToRow and TsvWriter.row write for the parsed record (a
 * property-based test holds the two together). What this pass does not handle makes it return
 * false, and the caller writes that record the slow way: non-ASCII text in the search column
 * (lower-cased by Unicode's rules there), a lone surrogate, a key the receiver does not write, a
 * value of another type.
 */
import type { TsvWriter } from './clickhouse-tsv';
import { ROW_COLUMNS } from './row';

const TAB = 0x09;
const LINE_FEED = 0x0a;
const QUOTE = 0x22;
const COMMA = 0x2c;
const COLON = 0x3a;
const BACKSLASH = 0x5c;
const OPEN_BRACE = 0x7b;
const CLOSE_BRACE = 0x7d;
const OPEN_BRACKET = 0x5b;
const CLOSE_BRACKET = 0x5d;

/** Set by stringEnd: the string held an escape sequence / a byte of a multi-byte UTF-8 character. */
const ESCAPED = 1;
const NON_ASCII = 2;

// The record's keys (model/capture.ts), with the kind of value each must have.
const STRING = 0;
const NUMBER = 1;
const BOOLEAN = 2;
const STRING_OR_NULL = 3;
const HEADERS = 4;
const QUERY = 5;

const KEYS: readonly [string, number][] = [
  ['id', STRING],
  ['endpointId', STRING],
  ['method', STRING],
  ['path', STRING],
  ['headers', HEADERS],
  ['body', STRING],
  ['bodyEncoding', STRING],
  ['queryParams', QUERY],
  ['contentType', STRING],
  ['ip', STRING],
  ['size', NUMBER],
  ['receivedAt', NUMBER],
  ['detectedProvider', STRING],
  ['detectedEvent', STRING],
  ['responseStatus', NUMBER],
  ['query', STRING],
  ['signatureVerified', BOOLEAN],
  ['signatureError', STRING_OR_NULL],
  ['signingProvider', STRING],
];
const [ID, ENDPOINT_ID, METHOD, PATH, HEADERS_KEY, BODY, BODY_ENCODING, QUERY_KEY, CONTENT_TYPE, IP, SIZE, RECEIVED_AT, DETECTED_PROVIDER, DETECTED_EVENT, RESPONSE_STATUS, RAW_QUERY, SIGNATURE_VERIFIED, , SIGNING_PROVIDER] =
  KEYS.map((_, i) => i) as number[] as [number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number, number];
/** Every key but the optional ones (responseStatus, query: absent in records logged before it, and the signature's). */
const REQUIRED = 14;
const KEY_BYTES = KEYS.map(([name]) => Buffer.from(name, 'latin1'));
const KIND = KEYS.map(([, kind]) => kind);
const SIGNATURE_PREFIX = KEYS.slice(SIGNATURE_VERIFIED).map(([name], i) => Buffer.from(`${i === 0 ? '' : ','}"${name}":`, 'latin1'));

/** Columns built from several keys rather than copied from one. */
const SIGNATURE_COLUMN = -1;
const SEARCH_COLUMN = -2;
/** Where each column of the row comes from: a record key, or one of the two built columns. */
const COLUMN_SOURCES: Record<(typeof ROW_COLUMNS)[number], number> = {
  id: ID,
  endpoint_id: ENDPOINT_ID,
  received_at: RECEIVED_AT,
  method: METHOD,
  path: PATH,
  headers: HEADERS_KEY,
  body: BODY,
  body_encoding: BODY_ENCODING,
  query_params: QUERY_KEY,
  content_type: CONTENT_TYPE,
  ip: IP,
  size: SIZE,
  detected_provider: DETECTED_PROVIDER,
  detected_event: DETECTED_EVENT,
  signature: SIGNATURE_COLUMN,
  response_status: RESPONSE_STATUS,
  query: RAW_QUERY,
  search_text: SEARCH_COLUMN,
};
/** The row's sources in ROW_COLUMNS order, the one column order both paths share. */
const COLUMNS = ROW_COLUMNS.map((column) => COLUMN_SOURCES[column]);

/**
 * Where each key's value lies: for strings the bytes between the quotes, for the rest the value's
 * whole JSON text; -1 when the key is absent. Reused from record to record (one record at a time).
 */
const starts = new Int32Array(KEYS.length);
const ends = new Int32Array(KEYS.length);
const flags = new Int32Array(KEYS.length);
/** The string inside map values: [start, end, flags] per header value, and per query name and value. */
let headerValues = new Int32Array(3 * 64);
let headerCount = 0;
let queryPairs = new Int32Array(6 * 16);
let queryCount = 0;
let lastFlags = 0;
/**
 * Bytes the search column's map parts may take: a query name is written once per value, so the
 * record's length does not bound them (`?k=&k=&k=…` stores `k` once).
 */
let searchBytes = 0;

/** Index of the quote closing the string whose first byte is at `i`; -1 if none (or a raw control byte). */
function stringEnd(b: Uint8Array, i: number, end: number): number {
  let f = 0;
  while (i < end) {
    const c = b[i]!;
    if (c === QUOTE) {
      lastFlags = f;
      return i;
    }
    if (c === BACKSLASH) {
      f |= ESCAPED;
      i += 2;
      continue;
    }
    if (c >= 0x80) f |= NON_ASCII;
    else if (c < 0x20) return -1;
    i++;
  }
  return -1;
}

/**
 * True when every escape in the JSON string b[s, e) is one `JSON.stringify` writes: the text is
 * then what stringifying its parse gives, so a map or signature copied as text equals the slow
 * path's. Escapes of characters from U+0020 on (`\/`, `\u0041`, a surrogate) are declined.
 */
function canonicalEscapes(b: Uint8Array, s: number, e: number): boolean {
  for (let i = s; i < e; i++) {
    if (b[i] !== BACKSLASH) continue;
    const c = b[++i];
    if (c === QUOTE || c === BACKSLASH || c === 0x62 || c === 0x66 || c === 0x6e || c === 0x72 || c === 0x74) continue;
    if (c !== 0x75) return false;
    // \u00XX below U+0020, lower-case hex, and not one of the five with a short form.
    if (b[i + 1] !== 0x30 || b[i + 2] !== 0x30 || (b[i + 3] !== 0x30 && b[i + 3] !== 0x31)) return false;
    const last = b[i + 4]!;
    const low = last >= 0x30 && last <= 0x39 ? last - 0x30 : last >= 0x61 && last <= 0x66 ? last - 0x57 : -1;
    if (low < 0) return false;
    const cp = (b[i + 3] === 0x31 ? 16 : 0) + low;
    if (cp === 0x08 || cp === 0x09 || cp === 0x0a || cp === 0x0c || cp === 0x0d) return false;
    i += 4;
  }
  return true;
}

function numberEnd(b: Uint8Array, i: number, end: number): number {
  while (i < end) {
    const c = b[i]!;
    // Digits, '+', '-', '.', 'e', 'E'.
    if ((c >= 0x30 && c <= 0x39) || c === 0x2b || c === 0x2d || c === 0x2e || c === 0x65 || c === 0x45) i++;
    else break;
  }
  return i;
}

function literalAt(b: Uint8Array, i: number, word: string): boolean {
  for (let k = 0; k < word.length; k++) if (b[i + k] !== word.charCodeAt(k)) return false;
  return true;
}

function keyIndex(b: Uint8Array, start: number, end: number): number {
  const length = end - start;
  outer: for (let k = 0; k < KEY_BYTES.length; k++) {
    const name = KEY_BYTES[k]!;
    if (name.length !== length) continue;
    for (let j = 0; j < length; j++) if (b[start + j] !== name[j]) continue outer;
    return k;
  }
  return -1;
}

function pushHeader(s: number, e: number, f: number): void {
  if (3 * (headerCount + 1) > headerValues.length) {
    const grown = new Int32Array(headerValues.length * 2);
    grown.set(headerValues);
    headerValues = grown;
  }
  searchBytes += e - s + 2;
  const at = 3 * headerCount++;
  headerValues[at] = s;
  headerValues[at + 1] = e;
  headerValues[at + 2] = f;
}

function pushQuery(ks: number, ke: number, kf: number, vs: number, ve: number, vf: number): void {
  if (6 * (queryCount + 1) > queryPairs.length) {
    const grown = new Int32Array(queryPairs.length * 2);
    grown.set(queryPairs);
    queryPairs = grown;
  }
  searchBytes += ke - ks + (ve - vs) + 2;
  const at = 6 * queryCount++;
  queryPairs[at] = ks;
  queryPairs[at + 1] = ke;
  queryPairs[at + 2] = kf;
  queryPairs[at + 3] = vs;
  queryPairs[at + 4] = ve;
  queryPairs[at + 5] = vf;
}

/**
 * Scans the map whose `{` is at `i` (headers: string values; query: string or array-of-string
 * values), recording the strings the search column needs. Returns the index past its `}`, or -1.
 */
function scanMap(b: Uint8Array, i: number, end: number, query: boolean): number {
  if (b[i] !== OPEN_BRACE) return -1;
  i++;
  if (b[i] === CLOSE_BRACE) return i + 1;
  for (;;) {
    if (b[i] !== QUOTE) return -1;
    const ks = i + 1;
    const ke = stringEnd(b, ks, end);
    if (ke < 0) return -1;
    const kf = lastFlags;
    if ((kf & ESCAPED) !== 0 && !canonicalEscapes(b, ks, ke)) return -1;
    i = ke + 1;
    if (b[i] !== COLON) return -1;
    i++;
    if (b[i] === QUOTE) {
      const vs = i + 1;
      const ve = stringEnd(b, vs, end);
      if (ve < 0 || ((lastFlags & ESCAPED) !== 0 && !canonicalEscapes(b, vs, ve))) return -1;
      if (query) pushQuery(ks, ke, kf, vs, ve, lastFlags);
      else pushHeader(vs, ve, lastFlags);
      i = ve + 1;
    } else if (query && b[i] === OPEN_BRACKET) {
      i++;
      if (b[i] === CLOSE_BRACKET) i++;
      else {
        for (;;) {
          if (b[i] !== QUOTE) return -1;
          const vs = i + 1;
          const ve = stringEnd(b, vs, end);
          if (ve < 0 || ((lastFlags & ESCAPED) !== 0 && !canonicalEscapes(b, vs, ve))) return -1;
          pushQuery(ks, ke, kf, vs, ve, lastFlags);
          i = ve + 1;
          if (b[i] === COMMA) i++;
          else if (b[i] === CLOSE_BRACKET) {
            i++;
            break;
          } else return -1;
        }
      }
    } else return -1;
    if (b[i] === COMMA) i++;
    else if (b[i] === CLOSE_BRACE) return i + 1;
    else return -1;
  }
}

/** Finds every field of the record in b[start, end); false if it is not a record this pass handles. */
function scanRecord(b: Uint8Array, start: number, end: number): boolean {
  for (let k = 0; k < starts.length; k++) starts[k] = -1;
  headerCount = 0;
  queryCount = 0;
  searchBytes = 0;
  let i = start;
  if (b[i] !== OPEN_BRACE) return false;
  i++;
  for (;;) {
    if (b[i] !== QUOTE) return false;
    const keyEnd = stringEnd(b, i + 1, end);
    if (keyEnd < 0) return false;
    const k = keyIndex(b, i + 1, keyEnd);
    if (k < 0 || starts[k] !== -1 || b[keyEnd + 1] !== COLON) return false;
    i = keyEnd + 2;
    const kind = KIND[k];
    const c = b[i];
    let valueEnd: number;
    if (c === QUOTE && (kind === STRING || kind === STRING_OR_NULL)) {
      valueEnd = stringEnd(b, i + 1, end);
      if (valueEnd < 0) return false;
      // The signature's strings are copied as JSON text.
      if (k >= SIGNATURE_VERIFIED && (lastFlags & ESCAPED) !== 0 && !canonicalEscapes(b, i + 1, valueEnd)) return false;
      starts[k] = i + 1;
      ends[k] = valueEnd;
      flags[k] = lastFlags;
      i = valueEnd + 1;
    } else {
      if (kind === NUMBER) valueEnd = numberEnd(b, i, end);
      else if (kind === BOOLEAN) valueEnd = literalAt(b, i, 'true') ? i + 4 : literalAt(b, i, 'false') ? i + 5 : -1;
      else if (kind === STRING_OR_NULL) valueEnd = literalAt(b, i, 'null') ? i + 4 : -1;
      else if (kind === HEADERS || kind === QUERY) valueEnd = scanMap(b, i, end, kind === QUERY);
      else valueEnd = -1;
      if (valueEnd <= i) return false;
      starts[k] = i;
      ends[k] = valueEnd;
      flags[k] = 0;
      i = valueEnd;
    }
    if (b[i] === COMMA) i++;
    else if (b[i] === CLOSE_BRACE && i === end - 1) break;
    else return false;
  }
  for (let k = 0; k < REQUIRED; k++) if (starts[k] === -1) return false;
  return true;
}

/**
 * Writes the JSON string b[s, e) (between its quotes) unescaped, then escaped for TabSeparated;
 * with `lower`, ASCII letters lower-cased, and false for any other letter (Unicode's lower-casing
 * is left to the slow path) and for a lone surrogate.
 */
function writeString(w: TsvWriter, b: Uint8Array, s: number, e: number, f: number, lower: boolean): boolean {
  const out = w.buf;
  let pos = w.pos;
  if (f === 0 && !lower) {
    w.pos = copyBytes(out, pos, b, s, e);
    return true;
  }
  if (lower && (f & NON_ASCII) !== 0) return false;
  for (let i = s; i < e; i++) {
    let c = b[i]!;
    if (c !== BACKSLASH) {
      out[pos++] = lower && c >= 0x41 && c <= 0x5a ? c | 0x20 : c;
      continue;
    }
    c = b[++i]!;
    switch (c) {
      case 0x22: // \"
      case 0x2f: // \/
        out[pos++] = c;
        break;
      case BACKSLASH:
        out[pos++] = BACKSLASH;
        out[pos++] = BACKSLASH;
        break;
      case 0x62: // \b
        out[pos++] = 0x08;
        break;
      case 0x66: // \f
        out[pos++] = 0x0c;
        break;
      case 0x6e: // \n
      case 0x72: // \r
      case 0x74: // \t
        out[pos++] = BACKSLASH;
        out[pos++] = c;
        break;
      case 0x75: {
        // \uXXXX
        const cp = hex(b, i + 1);
        if (cp < 0 || (cp >= 0xd800 && cp <= 0xdfff)) return false;
        i += 4;
        if (cp === 0) {
          out[pos++] = BACKSLASH;
          out[pos++] = 0x30;
        } else if (cp === TAB || cp === LINE_FEED || cp === 0x0d || cp === BACKSLASH) {
          out[pos++] = BACKSLASH;
          out[pos++] = cp === TAB ? 0x74 : cp === LINE_FEED ? 0x6e : cp === 0x0d ? 0x72 : BACKSLASH;
        } else if (cp < 0x80) {
          out[pos++] = lower && cp >= 0x41 && cp <= 0x5a ? cp | 0x20 : cp;
        } else if (lower) {
          return false;
        } else if (cp < 0x800) {
          out[pos++] = 0xc0 | (cp >> 6);
          out[pos++] = 0x80 | (cp & 0x3f);
        } else {
          out[pos++] = 0xe0 | (cp >> 12);
          out[pos++] = 0x80 | ((cp >> 6) & 0x3f);
          out[pos++] = 0x80 | (cp & 0x3f);
        }
        break;
      }
      default:
        return false;
    }
  }
  w.pos = pos;
  return true;
}

function hex(b: Uint8Array, i: number): number {
  let v = 0;
  for (let k = 0; k < 4; k++) {
    const c = b[i + k]!;
    const d = c >= 0x30 && c <= 0x39 ? c - 0x30 : c >= 0x61 && c <= 0x66 ? c - 0x57 : c >= 0x41 && c <= 0x46 ? c - 0x37 : -1;
    if (d < 0) return -1;
    v = v * 16 + d;
  }
  return v;
}

/** JSON text copied as it is, its backslashes escaped for TabSeparated (it holds no raw control byte). */
function writeJson(w: TsvWriter, b: Uint8Array, s: number, e: number): void {
  const out = w.buf;
  let pos = w.pos;
  for (let i = s; i < e; i++) {
    const c = b[i]!;
    out[pos++] = c;
    if (c === BACKSLASH) out[pos++] = BACKSLASH;
  }
  w.pos = pos;
}

/**
 * Copies b[s, e) to out at pos; returns the position after it. Short runs (most fields) go byte by
 * byte: a `subarray` for `set` is an allocation, which cost more than the copy.
 */
function copyBytes(out: Uint8Array, pos: number, b: Uint8Array, s: number, e: number): number {
  if (e - s > 64) {
    out.set(b.subarray(s, e), pos);
    return pos + e - s;
  }
  for (let i = s; i < e; i++) out[pos++] = b[i]!;
  return pos;
}

function writeBytes(w: TsvWriter, b: Uint8Array, s: number, e: number): void {
  w.pos = copyBytes(w.buf, w.pos, b, s, e);
}

function separator(w: TsvWriter, byte: number): void {
  w.buf[w.pos++] = byte;
}

/**
 * Writes the record b[start, end) as one row (columns in ROW_COLUMNS order, ended by a line feed).
 * Returns false, having written nothing, for a record to be written the slow way.
 */
export function writeRecordRow(w: TsvWriter, b: Uint8Array, start: number, end: number): boolean {
  if (!scanRecord(b, start, end)) return false;
  // A string is written in at most as many bytes as its JSON text (an escape is never longer
  // unescaped and re-escaped), a map's JSON in at most twice (backslashes doubled): a record's
  // columns take at most twice its length. The search column takes the path, the maps' parts
  // (searchBytes) and its separators; the rest is separators, the signature's keys and a status.
  w.reserve(2 * (end - start) + (ends[PATH]! - starts[PATH]!) + searchBytes + 256);
  const rowStart = w.pos;
  if (!writeColumns(w, b)) {
    w.pos = rowStart;
    return false;
  }
  // A typed array drops writes past its end without a word: a bound above that is wrong must fail loudly.
  if (w.pos > w.buf.length) throw new Error('record-tsv: a row outgrew the room reserved for it');
  return true;
}

function writeColumns(w: TsvWriter, b: Uint8Array): boolean {
  for (let c = 0; c < COLUMNS.length; c++) {
    const k = COLUMNS[c]!;
    if (k === SIGNATURE_COLUMN) writeSignature(w, b);
    else if (k === SEARCH_COLUMN) {
      if (!writeSearchText(w, b)) return false;
    } else if (k === RESPONSE_STATUS && starts[k] === -1) separator(w, 0x30); // absent: 0, as captureToRow writes
    else if (k === RAW_QUERY && starts[k] === -1) {
      // absent (logged before the raw query was kept): '', as captureToRow writes
    } else if (KIND[k] === STRING) {
      if (!writeString(w, b, starts[k]!, ends[k]!, flags[k]!, false)) return false;
    } else if (KIND[k] === NUMBER) writeBytes(w, b, starts[k]!, ends[k]!);
    else writeJson(w, b, starts[k]!, ends[k]!); // the maps, copied as their JSON text
    separator(w, c === COLUMNS.length - 1 ? LINE_FEED : TAB);
  }
  return true;
}

/** `{"signatureVerified":…,"signatureError":…,"signingProvider":…}` with the fields present, '' when none. */
function writeSignature(w: TsvWriter, b: Uint8Array): void {
  let written = 0;
  for (let k = SIGNATURE_VERIFIED; k <= SIGNING_PROVIDER; k++) {
    const s = starts[k]!;
    if (s === -1) continue;
    if (written === 0) separator(w, OPEN_BRACE);
    const prefix = SIGNATURE_PREFIX[k - SIGNATURE_VERIFIED]!;
    // The first field present has no comma before it.
    writeBytes(w, prefix, written === 0 && prefix[0] === COMMA ? 1 : 0, prefix.length);
    // A string's span is inside its quotes: copy them too.
    if (KIND[k] !== BOOLEAN && b[s - 1] === QUOTE) writeJson(w, b, s - 1, ends[k]! + 1);
    else writeJson(w, b, s, ends[k]!);
    written++;
  }
  if (written > 0) separator(w, CLOSE_BRACE);
}

/**
 * What row.ts metaSearchText gives, escaped: path, the query string (`a=1&a=2&b=x`) and each
 * header value, joined by line feeds and lower-cased.
 */
function writeSearchText(w: TsvWriter, b: Uint8Array): boolean {
  if (!writeString(w, b, starts[PATH]!, ends[PATH]!, flags[PATH]!, true)) return false;
  separator(w, BACKSLASH);
  separator(w, 0x6e);
  for (let p = 0; p < queryCount; p++) {
    const at = 6 * p;
    if (p > 0) separator(w, 0x26); // &
    if (!writeString(w, b, queryPairs[at]!, queryPairs[at + 1]!, queryPairs[at + 2]!, true)) return false;
    separator(w, 0x3d); // =
    if (!writeString(w, b, queryPairs[at + 3]!, queryPairs[at + 4]!, queryPairs[at + 5]!, true)) return false;
  }
  for (let h = 0; h < headerCount; h++) {
    separator(w, BACKSLASH);
    separator(w, 0x6e);
    if (!writeString(w, b, headerValues[3 * h]!, headerValues[3 * h + 1]!, headerValues[3 * h + 2]!, true)) return false;
  }
  return true;
}
