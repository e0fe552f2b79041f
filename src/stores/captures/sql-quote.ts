/**
 * The only way a value enters ClickHouse SQL. ClickHouse 18.16 has no query parameters, so every
 * string, integer and list is rendered here as a literal; no other code builds literals.
 *
 * @example
 *   `SELECT … WHERE endpoint_id IN ${quoteStringList(ids)} AND received_at > ${quoteInt(since)}`
 */

const NAMED_ESCAPES: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '\0': '\\0',
  '\b': '\\b',
  '\f': '\\f',
  '\n': '\\n',
  '\r': '\\r',
  '\t': '\\t',
};

// Backslash and quote could end or bend the literal; control characters are escaped too so that
// a query stays one readable line in logs and system.query_log.
const NEEDS_ESCAPE = /[\\'\u0000-\u001f\u007f]/g;

function escapeChar(ch: string): string {
  return NAMED_ESCAPES[ch] ?? `\\x${ch.charCodeAt(0).toString(16).padStart(2, '0')}`;
}

/** A ClickHouse string literal, quotes included: `it's` → `'it\'s'`. */
export function quoteString(value: string): string {
  if (typeof value !== 'string') throw new TypeError(`quoteString: expected a string, got ${typeof value}`);
  // A lone UTF-16 surrogate has no UTF-8 form; make the replacement explicit rather than leave it
  // to whatever encodes the request body.
  return `'${value.toWellFormed().replace(NEEDS_ESCAPE, escapeChar)}'`;
}

/** A ClickHouse integer literal; anything but a safe integer throws (NaN, Infinity, 1.5, "1"). */
export function quoteInt(value: number): string {
  if (typeof value !== 'number' || !Number.isSafeInteger(value)) {
    throw new RangeError(`quoteInt: expected a safe integer, got ${String(value)}`);
  }
  // String(-0) is "0", so no sign surprises.
  return String(value);
}

/**
 * A parenthesised list of string literals for `IN`: `('a', 'b')`. An empty list throws, because
 * `IN ()` is a syntax error and "matches nothing" is the caller's decision to make.
 */
export function quoteStringList(values: readonly string[]): string {
  if (values.length === 0) throw new RangeError('quoteStringList: empty list');
  return `(${values.map(quoteString).join(', ')})`;
}

const IDENTIFIER = /^[A-Za-z_][A-Za-z0-9_]*$/;

/** A database or table name in backquotes; only plain identifiers are accepted. */
export function quoteIdentifier(name: string): string {
  if (typeof name !== 'string' || !IDENTIFIER.test(name)) {
    throw new RangeError(`quoteIdentifier: not a plain identifier: ${JSON.stringify(name)}`);
  }
  return `\`${name}\``;
}
