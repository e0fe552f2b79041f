/**
 * One header as a person types it after `-H`, with curl's meanings: `Name: value` sets it,
 * `Name:` with nothing after removes it, `Name;` sends it empty. Read the same by the CLI
 * (`hookcap replay -H`, `send -H`) and the dashboard's Replay, so a line means one thing in both.
 */

/** A header name (RFC 9110 token), lower case. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;

/**
 * `[name, value]`: the name lower-cased, the value as typed (trimmed), `''` for `Name;`, null for
 * `Name:` (remove it). null when the line is none of the three forms or the name is no token.
 * The value is text; checking it for control characters and turning it into bytes is the caller's
 * (`hasControlCharacter`, `typedHeaderValue` in header-bytes.ts).
 */
export function parseHeaderLine(raw: string): [string, string | null] | null {
  const empty = raw.includes(':') ? null : /^([^;]*);\s*$/.exec(raw);
  const colon = raw.indexOf(':');
  const name = (empty ? (empty[1] ?? '') : colon < 0 ? '' : raw.slice(0, colon)).trim().toLowerCase();
  if (!TOKEN.test(name)) return null;
  if (empty) return [name, ''];
  const value = raw.slice(colon + 1).trim();
  return [name, value === '' ? null : value];
}
