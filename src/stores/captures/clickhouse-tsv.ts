/**
 * Capture rows in ClickHouse's TabSeparated input format, the insert format of the shipper.
 *
 * Why not JSONEachRow (used before): every body was escaped as JSON a second time by the client
 * and parsed as JSON again by ClickHouse, the most expensive input format it has. TabSeparated
 * sends each string as it is, with only backslash, tab, line feed, carriage return and NUL escaped,
 * so most rows are copied as they are on both sides (bench/shipping: docs/benchmarks.md).
 *
 * Every backslash is escaped, so the sequences ClickHouse decodes (`\x41`, `\N`, `\'`) can only
 * come from here, and what is read back is exactly the string written (the property-based
 * round trip in test/stores/captures.test.ts).
 *
 * Fields are written as UTF-8 straight into one buffer. Building the batch as one string first
 * (a concatenation per field, a join per batch, then the client's encoding of the whole text)
 * cost 5.0 µs per capture; writing the bytes 2.1 µs (docs/benchmarks.md, "Shipping").
 */
import { ROW_COLUMNS, type CaptureRow } from './row';

const SPECIAL = /[\\\t\n\r\0]/;
const SPECIALS = /[\\\t\n\r\0]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const escapeOne = (ch: string): string => ESCAPES[ch] ?? ch;
const TAB = 0x09;
const LINE_FEED = 0x0a;

/** A field's text: a string escaped for TabSeparated, a number in decimal. */
function tsvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  return SPECIAL.test(value) ? value.replace(SPECIALS, escapeOne) : value;
}

/**
 * The rows as TabSeparated UTF-8, columns in ROW_COLUMNS order, each row ended by a line feed.
 * Written into `into` when it has room (it grows by doubling otherwise): `bytes` is the part written
 * of `buffer`, which the caller may hand back for the next batch once this one is sent.
 */
export function tsvBytes(rows: readonly CaptureRow[], into?: Buffer): { bytes: Buffer; buffer: Buffer } {
  let buf = into ?? Buffer.allocUnsafe(64 * 1024);
  let pos = 0;
  for (const row of rows) {
    for (let c = 0; c < ROW_COLUMNS.length; c++) {
      const text = tsvField(row[ROW_COLUMNS[c] as keyof CaptureRow]);
      // A UTF-16 code unit is at most three bytes of UTF-8; one more for the separator.
      const need = pos + text.length * 3 + 1;
      if (need > buf.length) {
        const grown = Buffer.allocUnsafe(Math.max(need, buf.length * 2));
        buf.copy(grown, 0, 0, pos);
        buf = grown;
      }
      pos += buf.write(text, pos, 'utf8');
      buf[pos++] = c === ROW_COLUMNS.length - 1 ? LINE_FEED : TAB;
    }
  }
  return { bytes: buf.subarray(0, pos), buffer: buf };
}
