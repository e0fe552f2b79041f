/**
 * The full URL a capture was sent to, rebuilt from the endpoint's receiver URL, its path and its
 * query (as sent); and the same URL as a person reads it (percent-escapes decoded, for display only).
 */
import type { Capture } from '../../../src/model/capture';

export function queryString(params: Capture['queryParams']): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    for (const one of Array.isArray(v) ? v : [v]) q.append(k, one);
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

/**
 * The capture's query with its `?` ('' when none): exactly as sent when the record has it, else
 * (captures stored before the raw query was kept) rebuilt from queryParams, form-encoded.
 */
export function captureQuery(c: Pick<Capture, 'query' | 'queryParams'>): string {
  if (c.query === undefined) return queryString(c.queryParams);
  return c.query === '' ? '' : `?${c.query}`;
}

/** The URL to send the request to again (cURL, HAR): path and query exactly as received. */
export function captureUrl(endpointUrl: string, c: Pick<Capture, 'path' | 'query' | 'queryParams'>): string {
  return `${endpointUrl}${c.path === '/' ? '' : c.path}${captureQuery(c)}`;
}

/** Name/value rows (query parameters, form fields) for reading: each side through readableValue. */
export function readableRows(rows: [string, string][]): [string, string][] {
  return rows.map(([k, v]) => [readableValue(k), readableValue(v)]);
}

/** Query parameters as rows, repeated keys as several rows. */
export function queryRows(params: Capture['queryParams']): [string, string][] {
  return Object.entries(params).flatMap(([k, v]) => (Array.isArray(v) ? v.map((one): [string, string] => [k, one]) : [[k, v] as [string, string]]));
}

/*
 * Reading a URL. Text a stranger chose is decoded so people can read it (`u=✓`, `arr[]`), but it
 * stays plain text (React escapes it), and whatever would mislead the reader stays escaped:
 * - invisible and direction-changing characters (controls, U+202E RIGHT-TO-LEFT OVERRIDE and the
 *   other bidi controls, zero-width and other format characters, line separators, spaces other
 *   than U+0020), which could hide text or reorder the row around them;
 * - characters that would change how the URL splits up (`/ ? #` in the path; `& # +` and `=` in
 *   a query name; `%` before two hex digits, so a decoded `%41` is not read as an escape);
 * - a malformed escape (`%zz`, bytes that are not UTF-8) is shown as it was sent.
 */
export const HIDDEN = /[\p{Cc}\p{Cf}\p{Zl}\p{Zp}\p{Zs}\p{Co}\p{Cn}]/u;

function escapeChar(ch: string): string {
  if (ch === ' ') return ch;
  try {
    return encodeURIComponent(ch);
  } catch {
    return '%EF%BF%BD'; // a lone surrogate: U+FFFD, as a decoder would read it
  }
}

const shown = (ch: string, reserved: string) => (HIDDEN.test(ch) && ch !== ' ') || reserved.includes(ch);

/**
 * Whether a character of a decoded value (a query or form field, a JSON string) is shown as its
 * escape: the hidden ones above, except the white space a value may well hold (tab, line breaks),
 * which hides or reorders nothing.
 */
export const hiddenInValue = (ch: string): boolean => ch !== '\t' && ch !== '\n' && ch !== '\r' && shown(ch, '');

/**
 * A decoded query or form value for reading: what would hide or reorder it (U+202E, a zero-width
 * space) percent-escaped, as the URL above it shows the same value. Everything else as decoded.
 */
export function readableValue(text: string): string {
  if (!HIDDEN.test(text)) return text;
  let out = '';
  for (const ch of text) out += hiddenInValue(ch) ? escapeChar(ch) : ch;
  return out;
}

const strictUtf8 = new TextDecoder('utf-8', { fatal: true });
const HEX2 = /^%[0-9A-Fa-f]{2}/;

/** UTF-8 length announced by a lead byte, 0 when it cannot start a character. */
function utf8Length(b: number): number {
  if (b < 0x80) return 1;
  if (b >= 0xc2 && b <= 0xdf) return 2;
  if (b >= 0xe0 && b <= 0xef) return 3;
  if (b >= 0xf0 && b <= 0xf4) return 4;
  return 0;
}

/** A received path (in URL form, percent-encoded as sent) with its escapes decoded where that is safe. */
export function readablePath(path: string): string {
  return readableEncoded(path, '/?#%');
}

/**
 * URL text as sent (percent-encoded) with its escapes decoded where that is safe: an escape whose
 * character is in `reserved`, hidden, or not UTF-8 stays as it was sent.
 */
function readableEncoded(path: string, reserved: string): string {
  let out = '';
  let i = 0;
  while (i < path.length) {
    if (path[i] !== '%' || !HEX2.test(path.slice(i, i + 3))) {
      const cp = path.codePointAt(i) ?? 0;
      const ch = String.fromCodePoint(cp);
      out += ch !== '%' && shown(ch, '') ? escapeChar(ch) : ch;
      i += ch.length;
      continue;
    }
    const lead = parseInt(path.slice(i + 1, i + 3), 16);
    const len = utf8Length(lead);
    const raw = path.slice(i, i + 3 * len);
    const bytes: number[] = [];
    for (let k = 0; k < len; k++) {
      const esc = raw.slice(3 * k, 3 * k + 3);
      if (!HEX2.test(esc)) break;
      bytes.push(parseInt(esc.slice(1), 16));
    }
    let ch: string | null = null;
    if (len > 0 && bytes.length === len) {
      try {
        ch = strictUtf8.decode(new Uint8Array(bytes));
      } catch {
        ch = null;
      }
    }
    if (ch === null) {
      // Not the start of a UTF-8 character: this escape stays as it was sent.
      out += path.slice(i, i + 3);
      i += 3;
    } else {
      out += shown(ch, reserved) ? raw : ch;
      i += raw.length;
    }
  }
  return out;
}

function readablePart(text: string, reserved: string): string {
  let out = '';
  let i = 0;
  for (const ch of text) {
    // A decoded `%` that would read as an escape is written as one; `%zz` stays as it came.
    if (ch === '%') out += /^[0-9A-Fa-f]{2}/.test(text.slice(i + 1, i + 3)) ? '%25' : '%';
    else out += shown(ch, reserved) ? escapeChar(ch) : ch;
    i += ch.length;
  }
  return out;
}

/** The query (with its `?`) as a person reads it: each name and value decoded, see above. */
export function readableQuery(params: Capture['queryParams']): string {
  const rows = queryRows(params);
  if (rows.length === 0) return '';
  return `?${rows.map(([k, v]) => `${readablePart(k, '&#+=')}=${readablePart(v, '&#+')}`).join('&')}`;
}

/**
 * The capture's query (with its `?`) as a person reads it: the query as sent, its escapes decoded
 * where safe (an escaped `& = + % #` stays escaped, a `+` stays as sent); captures stored before
 * the raw query was kept show their queryParams (readableQuery).
 */
export function readableCaptureQuery(c: Pick<Capture, 'query' | 'queryParams'>): string {
  if (c.query === undefined) return readableQuery(c.queryParams);
  return c.query === '' ? '' : `?${readableEncoded(c.query, '&#+=%')}`;
}

/** The capture's URL for reading (never for sending: cURL and HAR use captureUrl). */
export function readableUrl(endpointUrl: string, c: Pick<Capture, 'path' | 'query' | 'queryParams'>): string {
  return `${endpointUrl}${c.path === '/' ? '' : readablePath(c.path)}${readableCaptureQuery(c)}`;
}
