/**
 * A capture rendered for other tools: the request rebuilt from its record (forwarding, replay), a
 * cURL command, the raw HTTP/1.1 message, a HAR 1.2 entry or document, an NDJSON line. Plain
 * functions over the record with no server or Node imports, so the API, the CLI and the
 * dashboard's browser bundle render a capture the same way.
 *
 * Bodies are never re-serialised: every format carries the exact bytes (base64 where text
 * cannot). The query string is the one sent (`query`), byte for byte; captures stored before it
 * was kept have none, and theirs is rebuilt from `queryParams`: the same keys and values, each
 * key's values in order, percent-encoding normalised (form encoding, as URLSearchParams writes it).
 */
import type { Cookie, Entry, Header, Log, QueryString } from 'har-format';
import type { Capture } from './capture';
import { harHeader, headerBytes, utf8Reading } from './header-bytes';

const encoder = new TextEncoder();
// ignoreBOM: a leading byte-order mark is part of the bytes and must survive the round trip.
const strictUtf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** The exact body bytes of a capture. */
export function bodyBytes(c: Pick<Capture, 'body' | 'bodyEncoding'>): Uint8Array {
  if (c.bodyEncoding === 'utf8') return encoder.encode(c.body);
  const binary = atob(c.body);
  const out = new Uint8Array(binary.length);
  for (let i = 0; i < binary.length; i++) out[i] = binary.charCodeAt(i);
  return out;
}

/** Bytes as base64 (chunked: String.fromCharCode takes a bounded number of arguments). */
export function toBase64(bytes: Uint8Array): string {
  let binary = '';
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Bytes as a record body: UTF-8 text when they are valid UTF-8, else base64. */
export function encodeBody(bytes: Uint8Array): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  try {
    return { body: strictUtf8.decode(bytes), bodyEncoding: 'utf8' };
  } catch {
    return { body: toBase64(bytes), bodyEncoding: 'base64' };
  }
}

/** `queryParams` as name/value pairs, repeated keys in their order. */
export function queryPairs(params: Capture['queryParams']): [string, string][] {
  const pairs: [string, string][] = [];
  for (const [name, value] of Object.entries(params)) {
    for (const v of Array.isArray(value) ? value : [value]) pairs.push([name, v]);
  }
  return pairs;
}

/** The query string (without "?") rebuilt from `queryParams`; "" when there is none. */
export function queryString(params: Capture['queryParams']): string {
  return new URLSearchParams(queryPairs(params)).toString();
}

/**
 * The capture's query (without "?"): as sent when the record has it, else rebuilt from
 * `queryParams` (captures stored before the raw query was kept).
 */
export function captureQuery(c: Pick<Capture, 'query' | 'queryParams'>): string {
  return c.query ?? queryString(c.queryParams);
}

/**
 * `base` + the captured path + the captured query: how forwarding maps a capture onto another
 * server (`http://127.0.0.1:4000/hooks` and a capture at `/w/<slug>/stripe?x=1` give
 * `http://127.0.0.1:4000/hooks/stripe?x=1`). A query already in `base` is kept, first.
 */
export function targetUrl(base: string, c: Pick<Capture, 'path' | 'query' | 'queryParams'>): string {
  const u = new URL(base);
  const basePath = u.pathname.replace(/\/+$/, '');
  // The captured path is already in URL form (percent-encoded as sent): appended, not re-encoded.
  const path = c.path === '/' ? basePath || '/' : `${basePath}${c.path}`;
  const query = [u.search.slice(1), captureQuery(c)].filter((q) => q !== '').join('&');
  return `${u.origin}${path}${query ? `?${query}` : ''}`;
}

/**
 * Headers that describe one connection, not the request (RFC 9110 §7.6.1), and the ones the HTTP
 * client computes itself: they are never copied from a capture onto a new request.
 */
export const NOT_FORWARDED = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'proxy-authenticate',
  'proxy-authorization',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'expect',
  'host',
  'content-length',
]);

/** The captured headers a re-sent request carries: all but NOT_FORWARDED and any the `connection` header names. */
export function forwardHeaders(headers: Capture['headers']): Record<string, string> {
  const named = new Set((headers.connection ?? '').split(',').map((h) => h.trim().toLowerCase()));
  const out: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers)) {
    if (!NOT_FORWARDED.has(name) && !named.has(name)) out[name] = value;
  }
  return out;
}

export interface RebuiltRequest {
  url: string;
  method: string;
  /** Lower-case names; no host, content-length or hop-by-hop headers (the client sets those). */
  headers: Record<string, string>;
  body: Uint8Array;
}

/** The capture as a request to `url` (use targetUrl to map it onto another server). */
export function rebuildRequest(c: Capture, url: string): RebuiltRequest {
  return { url, method: c.method, headers: forwardHeaders(c.headers), body: bodyBytes(c) };
}

/** `s` inside single quotes for a POSIX shell: safe for any text without NUL. */
export function shellQuote(s: string): string {
  return `'${s.replaceAll("'", `'\\''`)}'`;
}

/**
 * One header line (`name: value`, the value as stored, one character per byte) as a shell word
 * that gives curl the captured bytes. A command is UTF-8 text, so a non-ASCII value cannot go in
 * as stored (`cafÃ©` would be sent as 4 bytes for the 2 of `é`): valid UTF-8 is written as the
 * text it reads (`café`, whose UTF-8 is those bytes); anything else (Latin-1 bytes, or a reading
 * with invisible or bidi characters) as octal escapes through POSIX printf.
 */
export function headerWord(line: string): string {
  // eslint-disable-next-line no-control-regex
  if (!/[^\x00-\x7f]/.test(line) || /[^\x00-\xff]/.test(line)) return shellQuote(line);
  const reading = utf8Reading(line);
  if (reading !== null) return shellQuote(reading);
  let format = '';
  for (let i = 0; i < line.length; i++) {
    const b = line.charCodeAt(i);
    const ch = line[i] ?? '';
    if (ch === '\\') format += '\\\\';
    else if (ch === '%') format += '%%';
    else if (b < 0x20 || b >= 0x7f || (i === 0 && ch === '-')) format += `\\${b.toString(8).padStart(3, '0')}`;
    else format += ch;
  }
  return `"$(printf ${shellQuote(format)})"`;
}

/**
 * A printf format that writes exactly `bytes`: printable ASCII as itself, everything else (and
 * the characters printf or the quotes would read) as a 3-digit octal escape, which POSIX printf
 * turns back into that byte, NUL included.
 */
function printfFormat(bytes: Uint8Array): string {
  let out = '';
  for (const b of bytes) {
    const keep = b >= 0x20 && b <= 0x7e && b !== 0x25 /* % */ && b !== 0x5c /* \ */ && b !== 0x27; /* ' */
    out += keep ? String.fromCharCode(b) : `\\${b.toString(8).padStart(3, '0')}`;
  }
  return `'${out}'`;
}

/**
 * Control characters other than tab and line breaks (NUL included; a CR alone, which would print
 * over its line), C1, and the bidi overrides.
 */
// eslint-disable-next-line no-control-regex
const UNPRINTABLE_TEXT = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u009f\u202a-\u202e\u2066-\u2069]|\r(?!\n)/;

/**
 * Whether a text body can go into a shell command as itself: no NUL (no shell argument carries
 * one), and nothing that would drive a terminal or disguise the command when it is printed or
 * pasted (UNPRINTABLE_TEXT). The server's cURL export and the dashboard's Copy as cURL both ask.
 */
export const isShellSafeText = (text: string): boolean => !UNPRINTABLE_TEXT.test(text);

// Headers curl adds by itself unless told otherwise; an empty `-H 'Name:'` removes one.
const CURL_DEFAULTS = ['user-agent', 'accept'];

/**
 * One shell command that sends the capture to `url` with curl: same method, the forwardable
 * headers, and the exact body bytes on stdin (`--data-binary @-`, fed by printf so that binary
 * bodies and NULs survive). `--globoff` and `--path-as-is` keep the URL as it is. `script`: one
 * command of `hookcap export --format curl`'s script.
 */
export function toCurl(c: Capture, url: string, opts: { script?: boolean } = {}): string {
  const headers = forwardHeaders(c.headers);
  const body = bodyBytes(c);
  const args = ['curl', '--globoff', '--path-as-is'];
  // In a script of many commands run with its output piped: no progress meters (errors still
  // shown), and each answer on a line of its own rather than run into the next.
  if (opts.script) args.push('--silent', '--show-error', '--write-out', shellQuote('\\n'));
  if (c.method === 'HEAD' && body.length === 0) args.push('--head');
  else args.push('-X', shellQuote(c.method));
  args.push(shellQuote(url));
  for (const [name, value] of Object.entries(headers)) args.push('-H', headerWord(value === '' ? `${name};` : `${name}: ${value}`));
  for (const name of CURL_DEFAULTS) if (!(name in headers)) args.push('-H', shellQuote(`${name}:`));
  if (body.length === 0) return args.join(' ');
  // curl would add a form content type to a body sent without one.
  if (!('content-type' in headers)) args.push('-H', shellQuote('content-type:'));
  args.push('--data-binary', '@-');
  // Text goes in as itself, but not a control character (ESC, BEL: a body a sender chose) or a
  // bidi override: written raw into a script, printing it (`hookcap export … --format curl`, `cat`)
  // would drive the terminal, or disguise the command. Those bodies go as octal escapes too.
  const text = c.bodyEncoding === 'utf8' && isShellSafeText(c.body);
  const feed = text ? `printf '%s' ${shellQuote(c.body)}` : `printf ${printfFormat(body)}`;
  return `${feed} | ${args.join(' ')}`;
}

/**
 * The capture as an HTTP/1.1 message (`message/http`) to `url`: request line, the captured headers
 * (host as captured), a content-length for the body instead of any transfer-encoding, the body.
 */
export function toRawHttp(c: Capture, url: string): Uint8Array {
  const u = new URL(url);
  const body = bodyBytes(c);
  // The request target as written in `url` (URL's serialiser could re-encode the query).
  const target = url.startsWith(u.origin) && url.length > u.origin.length ? url.slice(u.origin.length) : `${u.pathname}${u.search}`;
  const lines = [`${c.method} ${target} HTTP/1.1`];
  if (!('host' in c.headers)) lines.push(`host: ${u.host}`);
  for (const [name, value] of Object.entries(c.headers)) {
    if (name !== 'content-length' && name !== 'transfer-encoding') lines.push(`${name}: ${value}`);
  }
  if (body.length > 0 || 'content-length' in c.headers) lines.push(`content-length: ${body.length}`);
  const [requestLine = '', ...headerLines] = lines;
  const start = encoder.encode(`${requestLine}\r\n`);
  // Header values are stored one character per byte: written back as those bytes, not as UTF-8.
  const head = headerBytes(`${headerLines.map((l) => `${l}\r\n`).join('')}\r\n`);
  const out = new Uint8Array(start.length + head.length + body.length);
  out.set(start, 0);
  out.set(head, start.length);
  out.set(body, start.length + head.length);
  return out;
}

function cookiesOf(header: string | undefined): Cookie[] {
  if (!header) return [];
  return header
    .split(';')
    .map((part) => part.trim())
    .filter((part) => part !== '')
    .map((part) => {
      const eq = part.indexOf('=');
      return eq === -1 ? { name: part, value: '' } : { name: part.slice(0, eq), value: part.slice(eq + 1) };
    });
}

/**
 * One HAR 1.2 entry. The request is the capture; a body that is not UTF-8 is base64 in
 * `postData.text` with `_encoding: "base64"` (HAR has no request encoding field; custom fields
 * start with "_"). The response is the status the sender was answered (0 when the capture
 * predates that being recorded); its headers and body are not kept. `_hookcap` carries the ids.
 */
export function toHarEntry(c: Capture, url: string): Entry {
  const headers: Header[] = Object.entries(c.headers).map(([name, value]) => harHeader(name, value));
  const queryString: QueryString[] = queryPairs(c.queryParams).map(([name, value]) => ({ name, value }));
  const request: Entry['request'] = {
    method: c.method,
    url,
    httpVersion: 'HTTP/1.1',
    cookies: cookiesOf(c.headers.cookie === undefined ? undefined : harHeader('cookie', c.headers.cookie).value),
    headers,
    queryString,
    headersSize: -1,
    bodySize: c.size,
  };
  if (c.size > 0 || c.body !== '') {
    request.postData = { mimeType: c.contentType, text: c.body, ...(c.bodyEncoding === 'base64' ? { _encoding: 'base64' } : {}) };
  }
  return {
    startedDateTime: new Date(c.receivedAt).toISOString(),
    time: 0,
    request,
    response: {
      status: c.responseStatus ?? 0,
      statusText: '',
      httpVersion: 'HTTP/1.1',
      cookies: [],
      headers: [],
      content: { size: 0, mimeType: '' },
      redirectURL: '',
      headersSize: -1,
      bodySize: -1,
    },
    cache: {},
    timings: { send: 0, wait: 0, receive: 0 },
    _hookcap: { id: c.id, endpointId: c.endpointId, ip: c.ip, detectedProvider: c.detectedProvider, detectedEvent: c.detectedEvent },
  };
}

const CREATOR = { name: 'hookcap', version: '1' };

/** A whole HAR 1.2 document. For many captures, stream harHead / harEntryText / HAR_TAIL instead. */
export function toHar(entries: readonly { capture: Capture; url: string }[]): { log: Log } {
  return { log: { version: '1.2', creator: CREATOR, entries: entries.map((e) => toHarEntry(e.capture, e.url)) } };
}

/**
 * A HAR document written piece by piece: HAR_HEAD, then each entry from harEntryText (one line
 * each, so a reader can count entries by lines), then HAR_TAIL. Together they parse as toHar's
 * document.
 */
export const HAR_HEAD = `{"log":{"version":"1.2","creator":${JSON.stringify(CREATOR)},"entries":[\n`;
export const HAR_TAIL = '\n]}}\n';

/** The `index`-th entry (0-based) of a streamed HAR document, with its separator. */
export function harEntryText(c: Capture, url: string, index: number): string {
  return `${index === 0 ? '' : ',\n'}${JSON.stringify(toHarEntry(c, url))}`;
}

/** The record as one NDJSON line (newline included). */
export function toNdjsonLine(c: Capture): string {
  return `${JSON.stringify(c)}\n`;
}
