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
 */
import { ROW_COLUMNS, type CaptureRow } from './row';

const SPECIALS = /[\\\t\n\r\0]/g;
const ESCAPES: Readonly<Record<string, string>> = { '\\': '\\\\', '\t': '\\t', '\n': '\\n', '\r': '\\r', '\0': '\\0' };
const escapeOne = (ch: string): string => ESCAPES[ch] ?? ch;

/** One field: a string escaped for TabSeparated, a number in decimal. */
function tsvField(value: string | number): string {
  if (typeof value === 'number') return String(value);
  // Five scans for characters that are rarely there cost less than one regular expression test.
  const special = value.includes('\\') || value.includes('\n') || value.includes('\t') || value.includes('\r') || value.includes('\0');
  return special ? value.replace(SPECIALS, escapeOne) : value;
}

/** The rows as one TabSeparated text, columns in ROW_COLUMNS order, each row ended by a line feed. */
export function tsvRows(rows: readonly CaptureRow[]): string {
  const lines: string[] = new Array(rows.length + 1);
  for (let i = 0; i < rows.length; i++) {
    const row = rows[i] as CaptureRow;
    let line = tsvField(row[ROW_COLUMNS[0]]);
    for (let c = 1; c < ROW_COLUMNS.length; c++) line += `\t${tsvField(row[ROW_COLUMNS[c] as keyof CaptureRow])}`;
    lines[i] = line;
  }
  lines[rows.length] = '';
  return lines.join('\n');
}
