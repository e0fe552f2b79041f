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
 * cost 5.0 µs per capture; writing the bytes 2.1 µs (docs/benchmarks.md, "Shipping"). Records
 * straight from the capture log skip the row objects altogether (record-tsv.ts).
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
 * TabSeparated rows written into one buffer that grows by doubling. `buf` and `pos` are open to the
 * writers of this folder: write at `pos` after `reserve`.
 */
export class TsvWriter {
  buf: Buffer;
  pos = 0;

  /** @param into a buffer to write over (one kept from an earlier batch), else a new one */
  constructor(into?: Buffer) {
    this.buf = into ?? Buffer.allocUnsafe(64 * 1024);
  }

  /** Room for `bytes` more bytes at `pos`. */
  reserve(bytes: number): void {
    const need = this.pos + bytes;
    if (need <= this.buf.length) return;
    const grown = Buffer.allocUnsafe(Math.max(need, this.buf.length * 2));
    this.buf.copy(grown, 0, 0, this.pos);
    this.buf = grown;
  }

  /** One row, columns in ROW_COLUMNS order, ended by a line feed. */
  row(row: CaptureRow): void {
    for (let c = 0; c < ROW_COLUMNS.length; c++) {
      const text = tsvField(row[ROW_COLUMNS[c] as keyof CaptureRow]);
      // A UTF-16 code unit is at most three bytes of UTF-8; one more for the separator.
      this.reserve(text.length * 3 + 1);
      this.pos += this.buf.write(text, this.pos, 'utf8');
      this.buf[this.pos++] = c === ROW_COLUMNS.length - 1 ? LINE_FEED : TAB;
    }
  }

  /** The part written. */
  bytes(): Buffer {
    return this.buf.subarray(0, this.pos);
  }
}

/**
 * The rows as TabSeparated UTF-8, columns in ROW_COLUMNS order, each row ended by a line feed.
 * Written into `into` when it has room (it grows by doubling otherwise): `bytes` is the part written
 * of `buffer`, which the caller may hand back for the next batch once this one is sent.
 */
export function tsvBytes(rows: readonly CaptureRow[], into?: Buffer): { bytes: Buffer; buffer: Buffer } {
  const w = new TsvWriter(into);
  for (const row of rows) w.row(row);
  return { bytes: w.bytes(), buffer: w.buf };
}
