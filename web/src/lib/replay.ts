/**
 * The replay form's pure parts (docs/dashboard.md "Replay"): header changes typed as text, the
 * target URL remembered per endpoint (nothing secret), the CLI command that sends the same from
 * the user's machine, and a status's reason phrase. Free of React; the DOM only for localStorage.
 */
import type { ErrorCode } from '../../../src/errors';
import { hasControlCharacter, typedHeaderValue } from '../../../src/model/header-bytes';
import { parseHeaderLine } from '../../../src/model/header-line';
import { isShellSafeText, shellQuote } from '../../../src/model/render';

/**
 * One line each, read as `hookcap replay -H` and `curl -H` read one (src/model/header-line.ts):
 * `Name: value` sets (or replaces) a header, `Name:` with nothing after it removes it, `Name;`
 * sends it empty. Blank lines are skipped. Values are typed text: `typed` keeps them as typed (for
 * the CLI command), `headers` is what the API takes: the record's one-character-per-byte form
 * (docs/exports.md "Header bytes"), so `café` goes out as its UTF-8 bytes, as the CLI, curl and
 * Send test send typed text.
 */
export type HeaderChanges = { typed: [string, string | null][]; headers: Record<string, string | null> } | { error: string };

export function parseHeaderChanges(text: string): HeaderChanges {
  const typed: [string, string | null][] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    if (raw.trim() === '') continue;
    const header = parseHeaderLine(raw);
    if (header === null) return { error: `Line ${i + 1} is not "Name: value", "Name:" or "Name;".` };
    if (header[1] !== null && hasControlCharacter(header[1])) return { error: `Line ${i + 1}: a header value cannot hold control characters.` };
    typed.push(header);
  }
  const headers: Record<string, string | null> = {};
  for (const [name, value] of typed) headers[name] = value === null ? null : typedHeaderValue(value);
  return { typed, headers };
}

const STORE_PREFIX = 'hookcap.replay-url.';

/**
 * What is remembered of a target URL: scheme, host, port and path. A user name, a password, the
 * query and the fragment (where tokens go: `?token=…`, `#access_token=…`) are left out, and so is a
 * URL that does not parse. Header changes and bodies are never remembered.
 */
export function urlToRemember(raw: string): string | null {
  let u: URL;
  try {
    u = new URL(raw.trim());
  } catch {
    return null;
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') return null;
  return `${u.protocol}//${u.host}${u.pathname}`;
}

export function rememberedUrl(endpointId: string): string {
  try {
    return localStorage.getItem(STORE_PREFIX + endpointId) ?? '';
  } catch {
    return '';
  }
}

export function rememberUrl(endpointId: string, raw: string): void {
  const kept = urlToRemember(raw);
  if (kept === null) return;
  try {
    localStorage.setItem(STORE_PREFIX + endpointId, kept);
  } catch {
    // Storage full or off (a private window's policy): the next replay starts empty.
  }
}

/** The CLI's default API address (docs/cli.md); any other is given with --api-url. */
const CLI_DEFAULT_API = 'http://localhost:3000';

/**
 * `hookcap replay` with the same target and changes, sent from where the CLI runs (so localhost
 * works). An edited body goes in on stdin (`--body @-`; a text starting with `@` would be read as
 * a file name), through base64 when it holds a character that must not reach a terminal.
 */
export function replayCommand(opts: { id: string; url: string; typed: readonly [string, string | null][]; body?: string; apiUrl: string }): string {
  const parts = ['hookcap', 'replay', opts.id, '--to', shellQuote(opts.url)];
  for (const [name, value] of opts.typed) parts.push('-H', shellQuote(value === null ? `${name}:` : value === '' ? `${name};` : `${name}: ${value}`));
  if (opts.apiUrl !== CLI_DEFAULT_API) parts.push('--api-url', shellQuote(opts.apiUrl));
  if (opts.body === undefined) return parts.join(' ');
  parts.push('--body', '@-');
  if (isShellSafeText(opts.body)) return `printf %s ${shellQuote(opts.body)} | ${parts.join(' ')}`;
  let binary = '';
  for (const b of new TextEncoder().encode(opts.body)) binary += String.fromCharCode(b);
  return `printf %s ${shellQuote(btoa(binary))} | base64 -d | ${parts.join(' ')}`;
}

/** Reason phrases (RFC 9110) of the statuses webhooks meet; the replay's answer gives only the number. */
const REASONS: Record<number, string> = {
  200: 'OK', 201: 'Created', 202: 'Accepted', 204: 'No Content',
  301: 'Moved Permanently', 302: 'Found', 303: 'See Other', 304: 'Not Modified', 307: 'Temporary Redirect', 308: 'Permanent Redirect',
  400: 'Bad Request', 401: 'Unauthorized', 402: 'Payment Required', 403: 'Forbidden', 404: 'Not Found', 405: 'Method Not Allowed', 406: 'Not Acceptable',
  408: 'Request Timeout', 409: 'Conflict', 410: 'Gone', 411: 'Length Required', 412: 'Precondition Failed', 413: 'Content Too Large', 414: 'URI Too Long', 415: 'Unsupported Media Type',
  418: "I'm a teapot", 422: 'Unprocessable Content', 425: 'Too Early', 429: 'Too Many Requests', 431: 'Request Header Fields Too Large',
  500: 'Internal Server Error', 501: 'Not Implemented', 502: 'Bad Gateway', 503: 'Service Unavailable', 504: 'Gateway Timeout',
};

/** `201 Created`, or the number alone for a status without a standard phrase. */
export function statusLine(status: number): string {
  const reason = REASONS[status];
  return reason ? `${status} ${reason}` : String(status);
}

/**
 * The API's code for a target the server does not send to (loopback, private, …): docs/exports.md.
 * Checked against the server's table, so a renamed code fails the typecheck, not the dialog.
 */
export const NOT_PUBLIC = 'address_not_public' satisfies ErrorCode;

/**
 * Why the server would not send to the target, said after "The server does not send to this
 * address:": the outbound guard's reason ("localhost (127.0.0.1) is a loopback address") read from
 * the message of an `address_not_public` refusal (the code decides that it is one; this only words
 * it). A message worded otherwise gives what it says without the `url:` and the CLI hint, and one
 * with nothing left a plain sentence, so the dialog never says an empty reason.
 */
export function notPublicReason(message: string): string {
  const m = /^url: (.+?); outbound requests may only reach public addresses/.exec(message);
  if (m?.[1]) return m[1];
  const rest = message
    .replace(/^url:\s*/, '')
    .replace(/\s*\(to reach your own machine.*$/s, '')
    .replace(/[.\s]+$/, '')
    .trim();
  return rest === '' ? 'it is not a public address' : rest;
}
