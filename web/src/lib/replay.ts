/**
 * The replay form's pure parts (docs/dashboard.md "Replay"): header changes typed as text, the
 * target URL remembered per endpoint (nothing secret), the CLI command that sends the same from
 * the user's machine, and a status's reason phrase. Free of React; the DOM only for localStorage.
 */
import { isShellSafeText, shellQuote } from '../../../src/model/render';

/** A header name (RFC 9110 token), as the API checks it. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/**
 * One line each, as `hookcap replay -H` and `curl -H` take them: `Name: value` sets (or replaces)
 * a header, `Name:` with nothing after it removes it, `Name;` sends it empty. Blank lines are
 * skipped. Values are typed text: `typed` keeps them as typed (for the CLI command),
 * `headers` is what the API takes (see `asStoredForm`).
 */
export type HeaderChanges = { typed: [string, string | null][]; headers: Record<string, string | null> } | { error: string };

export function parseHeaderChanges(text: string): HeaderChanges {
  const typed: [string, string | null][] = [];
  const lines = text.split(/\r?\n/);
  for (const [i, raw] of lines.entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const semi = /^([^:;\s]+)\s*;$/.exec(line);
    if (semi?.[1]) {
      typed.push([semi[1], '']);
      continue;
    }
    const colon = line.indexOf(':');
    const name = colon > 0 ? line.slice(0, colon).trim() : '';
    if (name === '') return { error: `Line ${i + 1} is not "Name: value", "Name:" or "Name;".` };
    if (!TOKEN.test(name)) return { error: `Line ${i + 1}: "${name}" is not a header name.` };
    const value = line.slice(colon + 1).trim();
    // eslint-disable-next-line no-control-regex
    if (/[\u0000-\u0008\u000a-\u001f\u007f]/.test(value)) return { error: `Line ${i + 1}: a header value cannot hold control characters.` };
    typed.push([name, value === '' ? null : value]);
  }
  const headers: Record<string, string | null> = {};
  for (const [name, value] of typed) headers[name] = value === null ? null : asStoredForm(value);
  return { typed, headers };
}

/**
 * The API's replay takes header values in the record's form, one character per byte
 * (docs/exports.md "Header bytes"); a value typed here is text, sent as its UTF-8 bytes, as the
 * CLI, curl and Send test send typed text: `café` becomes `cafÃ©`, which goes out as C3 A9.
 */
export function asStoredForm(text: string): string {
  let out = '';
  for (const b of new TextEncoder().encode(text)) out += String.fromCharCode(b);
  return out;
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
 * The outbound guard's refusal (a 400 whose message ends by pointing at the CLI): the reason
 * ("localhost (127.0.0.1) is a loopback address"), or null for any other error.
 */
export function blockedReason(message: string): string | null {
  if (!message.includes('replay with the CLI')) return null;
  const m = /^url: (.*?); outbound requests may only reach public addresses/.exec(message);
  return m?.[1] ?? message.replace(/^url:\s*/, '').replace(/\s*\(to reach your own machine.*$/, '');
}
