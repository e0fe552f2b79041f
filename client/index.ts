/**
 * hookcap/client: a small typed client for the hookcap API, for the CLI, the dashboard and your
 * own integration tests. Types come from the server's own schemas (src/model/, the API's
 * models), so a renamed field breaks the build, not the user.
 *
 * ```ts
 * import { createClient } from 'hookcap/client';
 * const hookcap = createClient({ apiUrl: 'http://localhost:3000', key: process.env.HOOKCAP_API_KEY! });
 * const ep = await hookcap.endpoints.create('stripe-tests');
 * // … point Stripe at ep.url, trigger a payment …
 * const paid = await hookcap.waitForRequest(ep.slug, (r) => r.detectedEvent === 'invoice.paid', { timeout: 30_000 });
 * ```
 */
import type { Static } from '@sinclair/typebox';
import type { AnonymousRegistration as AnonymousRegistrationBody, RegistrationStatus as RegistrationStatusBody, SandboxEndpoint as SandboxEndpointBody } from '../src/http/api/agent-models';
import type { EndpointActivity as EndpointActivityBody, EndpointBody, MockResponseBody, RequestPage, UserBody } from '../src/http/api/models';
import type { SigningConfig } from '../src/engine/signing/types';
import { captureIdFloor, idTime } from '../src/ids';
import type { Capture } from '../src/model/capture';
import { strictUtf8Reading, typedSearchForms } from '../src/model/header-bytes';
import { bodyBytes as recordBytes } from '../src/model/render';
import type { ReplayInput, ReplayResult } from '../src/model/replay';
import type { RawSearchQuery } from '../src/services/search-params';
import type { SendTestInput, SendTestResult } from '../src/services/send-test';
import { readSse } from './sse';
import type { NewNotificationSecret } from '../src/services/notification-secret';

export { verifyNotification, type NotificationHeaders, type NotificationVerification, type VerifyNotificationOptions } from './verify-notification';
export type { NewNotificationSecret };

export type { Capture, ReplayInput, ReplayResult, SendTestResult, SigningConfig };
export type Endpoint = Static<typeof EndpointBody>;
/** `{slug, count, lastReceivedAt}`: how many captures an endpoint holds now, and when the newest came (null: none). */
export type EndpointActivity = Static<typeof EndpointActivityBody>;
export type MockResponse = Static<typeof MockResponseBody>;
export type RequestPageResult = Static<typeof RequestPage>;
export type User = Static<typeof UserBody>;
/** What `POST /api/agent/auth` returns for `{type: "anonymous"}` (SPEC 4.8), field for field. */
export type AnonymousRegistration = Static<typeof AnonymousRegistrationBody>;
/** What the poll returns: `pending` (with `user_code`), `claimed` or `denied`. */
export type RegistrationStatus = Static<typeof RegistrationStatusBody>;
/** A sandbox endpoint of an unclaimed agent key (SPEC 4.9): `{url, slug, expiresAt}`. */
export type SandboxEndpoint = Static<typeof SandboxEndpointBody>;

export const DEFAULT_API_URL = 'http://localhost:3000';

/**
 * The server's base address from what was given. The server prints its API as
 * `http://host:3000/api`, so that is what people paste; every route the client calls starts with
 * /api, so a trailing /api (and trailing slashes) is dropped rather than doubled into /api/api/…
 * and a 404. The same rule as the CLI's (cli/config.ts `baseUrl`).
 */
function baseUrl(raw: string): string {
  return raw.replace(/\/+$/, '').replace(/\/api$/, '');
}

export interface ClientOptions {
  /** Where the server is (`http://localhost:3000`, its default; `http://localhost:3000/api` too). */
  apiUrl?: string;
  /** An API key (`svc_…`) or session token. */
  key: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
}

/**
 * A refused call: `status` is the HTTP status (0 when no answer came), `code` the API's error code
 * (`not_found`, `unauthorized`, …) or one of the client's: `network`, `timeout`, `endpoint_deleted`, `credential_revoked`,
 * `session_expired`, `endpoint_expired`, `access_revoked`, `bad_response`.
 */
export class HookcapError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message);
    this.name = 'HookcapError';
  }
}

/**
 * Why no answer came, in a few words: Bun's fetch words a refused connection as "ECONNREFUSED:
 * Unable to connect. Is the computer able to access the url?", a question put to the user in
 * every "server down" line the CLI prints, and Node's says only "fetch failed" (or "terminated"
 * for a body cut off), the code in its `cause`. The common codes are said plainly; others as given.
 */
const UNREACHABLE: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ConnectionRefused: 'connection refused',
  ENOTFOUND: 'no such host',
  ECONNRESET: 'connection reset',
  ETIMEDOUT: 'timed out',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  // Node's fetch (undici): the server closed the connection mid-answer, or a connect timed out.
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'timed out',
};

/**
 * A network failure's reason in those few words, or null when `err` is not one. Node's fetch puts
 * the system error in `cause` (an AggregateError of them for a host with several addresses).
 */
export function networkReason(err: unknown): string | null {
  for (let e: unknown = err, depth = 0; e instanceof Error && depth < 4; depth++) {
    const code = 'code' in e && typeof e.code === 'string' ? e.code : '';
    const reason = UNREACHABLE[code];
    if (reason) return reason;
    e = e instanceof AggregateError && e.errors.length > 0 ? e.errors[0] : e.cause;
  }
  return null;
}

/** The innermost cause's message: Node's "fetch failed" says why only there ("bad port"). */
function deepestMessage(err: unknown): string {
  let e = err;
  for (let depth = 0; e instanceof Error && e.cause instanceof Error && depth < 4; depth++) e = e.cause;
  return e instanceof Error ? e.message : String(e);
}

function cannotReach(apiUrl: string, err: unknown): string {
  return `cannot reach ${apiUrl}: ${networkReason(err) ?? deepestMessage(err)}`;
}

/** A time bound: ms since the epoch, a Date, or what the API takes (`15m`, `7d`, ISO 8601). */
export type TimeBound = number | Date | string;

/** The search filters (as in GET /api/search/requests). */
export type SearchFilters = Omit<RawSearchQuery, 'from' | 'to' | 'limit' | 'offset' | 'order' | 'header'> & {
  from?: TimeBound;
  to?: TimeBound;
  /**
   * `name:value` (a header of exactly that name, any case, whose value holds `value` in any case),
   * or `name` (present); several must all hold. E.g. `'x-github-event:push'`.
   */
  header?: string | readonly string[];
};
export type SearchOptions = SearchFilters & { limit?: number; offset?: number; order?: 'asc' | 'desc' };

export type ExportFormat = 'har' | 'ndjson';
export type RequestExportFormat = 'curl' | 'har' | 'raw';

export interface ExportDownload {
  /** The file's bytes as they arrive. */
  body: ReadableStream<Uint8Array>;
  /** The server's name for the file (from Content-Disposition). */
  filename: string;
  contentType: string;
}

export interface StreamOptions {
  /** Resume after this capture id (sent as Last-Event-ID): every later capture comes first, oldest first. */
  after?: string;
  /**
   * Start with the captures received at this time or later (ignored when `after` is given). With
   * neither, the stream starts after the newest stored capture: what arrives from now on.
   */
  since?: TimeBound;
  /** Stops the stream; the iterator then ends. */
  signal?: AbortSignal;
  /** Reconnect after the server's time limit and network drops (default true). */
  reconnect?: boolean;
  /** With no byte for this long (the server pings every 30 s) the connection counts as dropped. Default 90 s. */
  idleTimeoutMs?: number;
  /** Called each time the stream is open and live (after any catch-up has started). */
  onOpen?(info: { after: string | null; reconnects: number }): void;
  /** Called before each reconnect, with why and how long until it. */
  onReconnect?(info: { reason: string; delayMs: number; attempt: number }): void;
  /**
   * Called before each reconnect's request (after `onReconnect`'s delay), with where the stream
   * would resume and a way to count what waits after it: a laptop back from sleep may be far
   * behind. Return a capture id to resume after that one instead (say the newest one's, from
   * `newestId`, to skip the backlog); return nothing to resume where it left off. While it runs
   * nothing is requested. A HookcapError it throws for a network error, 429 or 5xx (the server
   * still away) counts as a failed attempt: backoff, then called again; any other error ends the
   * stream with it.
   */
  onResume?(info: ResumeInfo): string | null | undefined | void | Promise<string | null | undefined | void>;
}

/** What `onResume` is told before a reconnect. */
export interface ResumeInfo {
  /** The capture id the reconnect resumes after (sent as Last-Event-ID): the last one yielded. */
  after: string;
  /**
   * When the client noticed that the last open connection was lost (ms since the epoch). A process
   * that was asleep, or a caller that stopped reading, notices only when it runs or reads again:
   * the capture id `after` tells when the last capture it got was received.
   */
  disconnectedAt: number;
  /** Why the previous attempt ended (as `onReconnect` said it). */
  reason: string;
  /** Reconnects made so far (this one is the next). */
  reconnects: number;
  /**
   * How many captures of the endpoint were received after `after`'s millisecond: one count call,
   * made only when this is called (so `onResume` costs nothing unless it asks).
   */
  waiting(): Promise<number>;
}

/** Captures as they arrive; `lastEventId` is the id of the last one yielded. */
export interface CaptureStream extends AsyncIterable<Capture> {
  readonly lastEventId: string | null;
}

export interface WaitOptions {
  /** Give up after this long (ms, 0 to 2^31 - 1); default 30 s. */
  timeout?: number;
  /**
   * Consider captures from this time on (the server's clock: a test machine's clock ahead of the
   * server's misses what came in between; `after` has no such risk). Default: `position(slug)`,
   * after the newest capture stored when the call reaches the server and never later than that
   * moment, so a request sent right after the call (or while it sets up) is not missed.
   */
  since?: TimeBound;
  /**
   * Consider captures after this capture id (e.g. `await hookcap.newestId(slug)` taken before the
   * trigger): no clock involved. Takes precedence over `since`.
   */
  after?: string;
  /** What is waited for, for the timeout's message when `predicate` is a function (a matcher names itself). */
  description?: string;
  signal?: AbortSignal;
}

/** A value a matcher field accepts: the exact string, or a RegExp tested against it. */
export type TextMatch = string | RegExp;

/**
 * A predicate written as data (every field given must hold): what most tests wait for, and it
 * names itself in a timeout's message. Any other key is refused (HookcapError `validation`).
 */
export interface RequestMatcher {
  /** The HTTP method, any case. */
  method?: string;
  /** The path after the endpoint's slug (`/` when nothing followed it); a string without its leading `/` gets one. */
  path?: TextMatch;
  /** Query parameters; a repeated name matches when any of its values does. */
  query?: Record<string, TextMatch>;
  /** Headers (names in any case); `true` only asks that the header be there. */
  headers?: Record<string, TextMatch | true>;
  /** Fields of the JSON body: objects match partially (the fields given), anything else exactly; a RegExp tests a string. */
  json?: Record<string, unknown>;
  /** The detected sender (`stripe`, `github`, …) and event (`invoice.paid`). */
  provider?: string;
  event?: string;
  /** The signature check's result (only on endpoints with signing configured). */
  signatureVerified?: boolean;
}

export type RequestPredicate = ((capture: Capture) => boolean) | RequestMatcher;

/** `timeout` from waitForRequest(s): what did arrive is attached, for the test's own report. */
export class WaitTimeoutError extends HookcapError {
  constructor(
    message: string,
    readonly slug: string,
    readonly timeoutMs: number,
    /** The captures that matched (fewer than asked for). */
    readonly matched: Capture[],
    /** Captures that arrived and did not match (the first 100). */
    readonly unmatched: Capture[],
    /** How many arrived and did not match. */
    readonly unmatchedCount: number,
  ) {
    super(0, 'timeout', message);
    this.name = 'WaitTimeoutError';
  }
}

/** The exact body bytes of a capture (a `bodyEncoding: "base64"` body decoded). */
export function bodyBytes(capture: Pick<Capture, 'body' | 'bodyEncoding'>): Uint8Array {
  return recordBytes(capture);
}

/** The body as text (UTF-8). */
export function bodyText(capture: Pick<Capture, 'body' | 'bodyEncoding'>): string {
  return capture.bodyEncoding === 'utf8' ? capture.body : new TextDecoder().decode(recordBytes(capture));
}

/** The body parsed as JSON; HookcapError `bad_response` naming the capture when it is not JSON. */
export function bodyJson<T = unknown>(capture: Pick<Capture, 'id' | 'body' | 'bodyEncoding' | 'contentType'>): T {
  try {
    return JSON.parse(bodyText(capture)) as T;
  } catch {
    const start = JSON.stringify(bodyText(capture).slice(0, 60));
    throw new HookcapError(0, 'bad_response', `the body of ${capture.id} is not JSON (content-type ${capture.contentType || 'none'}): ${start}`);
  }
}

const textMatches = (want: TextMatch, got: string | undefined): boolean =>
  got !== undefined && (typeof want === 'string' ? got === want : new RegExp(want.source, want.flags.replace(/[gy]/g, '')).test(got));

/**
 * A header value against what a person typed (docs/client.md): records hold header values one
 * character per byte, so a UTF-8 `café` is stored `cafÃ©`. A string matches the stored form or its
 * typed text's UTF-8 bytes (`typedSearchForms`, as search reads typed text); a RegExp tests the
 * stored form or, when the bytes are UTF-8, their reading.
 */
function headerMatches(want: TextMatch, got: string | undefined): boolean {
  if (got === undefined) return false;
  if (typeof want === 'string') return typedSearchForms(want).includes(got);
  if (textMatches(want, got)) return true;
  const text = strictUtf8Reading(got);
  return text !== null && textMatches(want, text);
}

function jsonMatches(want: unknown, got: unknown): boolean {
  if (want instanceof RegExp) return typeof got === 'string' && textMatches(want, got);
  if (Array.isArray(want)) return Array.isArray(got) && got.length === want.length && want.every((w, i) => jsonMatches(w, got[i]));
  if (typeof want === 'object' && want !== null) {
    if (typeof got !== 'object' || got === null || Array.isArray(got)) return false;
    return Object.entries(want).every(([k, w]) => Object.hasOwn(got, k) && jsonMatches(w, (got as Record<string, unknown>)[k]));
  }
  return Object.is(want, got);
}

const MATCHER_KEYS = ['method', 'path', 'query', 'headers', 'json', 'provider', 'event', 'signatureVerified'] as const;

const isRecord = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v) && !(v instanceof RegExp);
const isText = (v: unknown): v is TextMatch => typeof v === 'string' || v instanceof RegExp;
const invalid = (message: string) => new HookcapError(0, 'validation', message);
/** A wrong value as written in code: strings quoted, NaN and undefined by name. */
const given = (v: unknown): string =>
  v instanceof RegExp ? String(v) : typeof v === 'function' ? 'a function' : typeof v === 'number' || v === undefined ? String(v) : typeof v === 'bigint' ? `${v}n` : JSON.stringify(v);

/**
 * Throws HookcapError `validation` for a key that is not one of `known`: plain-JS callers get no
 * type check, and a misspelt key (`evnt`, `Method`) would otherwise be ignored, so that a matcher
 * matches everything or an option does nothing, and a test passes that should not.
 */
function checkKeys(what: string, obj: object, known: readonly string[]): void {
  for (const key of Object.keys(obj)) {
    if (!known.includes(key)) throw invalid(`unknown ${what} key ${JSON.stringify(key)} (known: ${known.join(', ')})`);
  }
}

/**
 * A matcher checked before any waiting (HookcapError `validation`): known keys only, and each
 * field of the type it takes, so a wrong one fails at the call, not as a match of everything (or
 * of nothing) after the timeout.
 */
function checkMatcher(m: unknown): asserts m is RequestMatcher {
  if (!isRecord(m)) throw invalid(`a matcher is an object such as {path: '/stripe'} (or pass a function), got ${m === null ? 'null' : Array.isArray(m) ? 'an array' : typeof m}`);
  checkKeys('matcher', m, MATCHER_KEYS);
  const field = (name: string, ok: boolean, takes: string) => {
    if (!ok) throw invalid(`matcher ${name} takes ${takes}, got ${given(m[name])}`);
  };
  for (const name of ['method', 'provider', 'event'] as const) if (m[name] !== undefined) field(name, typeof m[name] === 'string', 'a string');
  if (m.path !== undefined) field('path', isText(m.path), 'a string or a RegExp');
  if (m.signatureVerified !== undefined) field('signatureVerified', typeof m.signatureVerified === 'boolean', 'true or false');
  // An array too: jsonMatches compares one element by element (a body that is a JSON array).
  if (m.json !== undefined) field('json', isRecord(m.json) || Array.isArray(m.json), 'an object of body fields');
  if (m.query !== undefined) field('query', isRecord(m.query) && Object.values(m.query).every(isText), 'an object of names to a string or a RegExp');
  if (m.headers !== undefined) field('headers', isRecord(m.headers) && Object.values(m.headers).every((v) => isText(v) || v === true), 'an object of names to a string, a RegExp or true');
}

/** The longest a timer can be: setTimeout fires at once for more than 2^31 - 1 ms. */
const MAX_TIMER_MS = 2_147_483_647;

/**
 * A duration option in ms: HookcapError `validation` unless a finite number from `min` to ~24.8
 * days (a string such as '2s' would otherwise wait NaN ms, that is not at all).
 */
function checkMs(name: string, v: unknown, min = 0): void {
  if (v === undefined) return;
  if (typeof v !== 'number' || !Number.isFinite(v) || v < min || v > MAX_TIMER_MS) {
    throw invalid(`${name} takes a number of milliseconds from ${min} to ${MAX_TIMER_MS} (e.g. 30000 for 30 s), got ${given(v)}`);
  }
}

/** A path as a matcher reads it: a string without its leading `/` gets one (`stripe` is `/stripe`), as the CLI's --path. */
const matcherPath = (path: TextMatch): TextMatch => (typeof path === 'string' && !path.startsWith('/') ? `/${path}` : path);

const WAIT_KEYS = ['timeout', 'since', 'after', 'description', 'signal'] as const;
const EXPECT_NONE_KEYS = ['within', 'since', 'after', 'description', 'signal'] as const;
const STREAM_KEYS = ['after', 'since', 'signal', 'reconnect', 'idleTimeoutMs', 'onOpen', 'onReconnect', 'onResume'] as const;
const CLAIM_KEYS = ['apiUrl', 'fetch', 'signal', 'claimToken', 'intervalMs', 'timeout'] as const;

/** What every waiting call checks before it waits: the predicate, and the options' keys. */
function checkWait(call: string, predicate: unknown, opts: unknown, known: readonly string[]): void {
  if (typeof predicate !== 'function') checkMatcher(predicate);
  if (!isRecord(opts)) throw invalid(`${call}'s options are an object such as {timeout: 30000}, got ${given(opts)}`);
  checkKeys(`${call} option`, opts, known);
}

/** A matcher as a predicate: `hookcap.search(…).filter(matches({ method: 'POST' }))`. */
export function matches(matcher: RequestMatcher): (capture: Capture) => boolean {
  checkMatcher(matcher);
  const path = matcher.path === undefined ? undefined : matcherPath(matcher.path);
  return (c) => {
    if (matcher.method !== undefined && c.method.toUpperCase() !== matcher.method.toUpperCase()) return false;
    if (path !== undefined && !textMatches(path, c.path)) return false;
    if (matcher.provider !== undefined && c.detectedProvider !== matcher.provider) return false;
    if (matcher.event !== undefined && c.detectedEvent !== matcher.event) return false;
    if (matcher.signatureVerified !== undefined && c.signatureVerified !== matcher.signatureVerified) return false;
    for (const [name, want] of Object.entries(matcher.query ?? {})) {
      const got = c.queryParams[name];
      const values = got === undefined ? [] : Array.isArray(got) ? got : [got];
      if (!values.some((v) => textMatches(want, v))) return false;
    }
    if (matcher.headers) {
      const headers = new Map(Object.entries(c.headers).map(([k, v]) => [k.toLowerCase(), v]));
      for (const [name, want] of Object.entries(matcher.headers)) {
        const got = headers.get(name.toLowerCase());
        if (want === true ? got === undefined : !headerMatches(want, got)) return false;
      }
    }
    if (matcher.json !== undefined) {
      let body: unknown;
      try {
        body = JSON.parse(bodyText(c));
      } catch {
        return false;
      }
      if (!jsonMatches(matcher.json, body)) return false;
    }
    return true;
  };
}

const shown = (v: unknown): string => (v instanceof RegExp ? String(v) : typeof v === 'string' ? v : JSON.stringify(v, (_k, x: unknown) => (x instanceof RegExp ? String(x) : x)));

/** A matcher in words: `POST /orders, header x-app: shop, json {"type":"order.paid"}`. */
export function describeMatcher(m: RequestMatcher): string {
  checkMatcher(m);
  const parts: string[] = [];
  if (m.method !== undefined || m.path !== undefined) parts.push([m.method?.toUpperCase(), m.path === undefined ? undefined : shown(matcherPath(m.path))].filter(Boolean).join(' '));
  for (const [k, v] of Object.entries(m.query ?? {})) parts.push(`query ${k}=${shown(v)}`);
  for (const [k, v] of Object.entries(m.headers ?? {})) parts.push(v === true ? `header ${k}` : `header ${k}: ${shown(v)}`);
  if (m.json !== undefined) parts.push(`json ${shown(m.json)}`);
  if (m.provider !== undefined) parts.push(`provider ${m.provider}`);
  if (m.event !== undefined) parts.push(`event ${m.event}`);
  if (m.signatureVerified !== undefined) parts.push(`signatureVerified ${m.signatureVerified}`);
  return parts.length === 0 ? 'any request' : parts.join(', ');
}

const summary = (c: Capture) => `${c.method} ${c.path}${c.query ? `?${c.query}` : ''}${c.detectedEvent ? ` (${c.detectedEvent})` : ''} ${c.id}`;
const seconds = (ms: number) => `${Math.round(ms) / 1000} s`;

function toMs(t: TimeBound): number {
  if (typeof t === 'number') {
    if (!Number.isFinite(t)) throw invalid(`not a time: ${t} (use 15m, 7d, ms or ISO 8601)`);
    return t;
  }
  if (t instanceof Date) return t.getTime();
  const relative = /^(\d+)(s|m|h|d|w)$/.exec(t.trim());
  if (relative) {
    const unit = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 }[relative[2] as 's' | 'm' | 'h' | 'd' | 'w'];
    return Date.now() - Number(relative[1]) * unit;
  }
  if (/^\d+$/.test(t.trim())) return Number(t);
  const ms = Date.parse(t);
  if (Number.isNaN(ms)) throw new HookcapError(0, 'validation', `not a time: ${JSON.stringify(t)} (use 15m, 7d, ms or ISO 8601)`);
  return ms;
}

const timeParam = (t: TimeBound) => (typeof t === 'string' ? t : String(toMs(t)));

type QueryValue = string | number | readonly string[] | undefined;

function query(params: Record<string, QueryValue>): string {
  const q = new URLSearchParams();
  for (const [k, v] of Object.entries(params)) {
    if (Array.isArray(v)) for (const each of v) q.append(k, each);
    else if (v !== undefined && v !== '') q.set(k, String(v));
  }
  const s = q.toString();
  return s ? `?${s}` : '';
}

function filterParams(f: SearchFilters): Record<string, QueryValue> {
  return {
    slug: f.slug,
    method: f.method,
    q: f.q,
    header: typeof f.header === 'string' ? [f.header] : f.header,
    from: f.from === undefined ? undefined : timeParam(f.from),
    to: f.to === undefined ? undefined : timeParam(f.to),
  };
}

const sleep = (ms: number, signal?: AbortSignal) =>
  new Promise<void>((resolve) => {
    if (signal?.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
    signal?.addEventListener('abort', done, { once: true });
  });

/** Reconnect delays: 0.5 s doubling to 30 s, with ±20% jitter. */
export function backoffMs(attempt: number): number {
  const base = Math.min(30_000, 500 * 2 ** Math.max(0, attempt - 1));
  return Math.round(base * (0.8 + Math.random() * 0.4));
}

async function errorOf(res: Response): Promise<HookcapError> {
  const text = await res.text().catch(() => '');
  try {
    const body: unknown = JSON.parse(text);
    if (typeof body === 'object' && body !== null) {
      const { error, code, error_description: description } = body as Record<string, unknown>;
      const message = typeof description === 'string' ? description : typeof error === 'string' ? error : text;
      const c = typeof code === 'string' ? code : typeof error === 'string' && typeof description === 'string' ? error : `http_${res.status}`;
      return new HookcapError(res.status, c, message);
    }
  } catch {
    // not JSON
  }
  return new HookcapError(res.status, `http_${res.status}`, text.slice(0, 200) || res.statusText || `HTTP ${res.status}`);
}

function filenameOf(disposition: string | null, fallback: string): string {
  return /filename="([^"]+)"/.exec(disposition ?? '')?.[1] ?? fallback;
}

/** How one stream connection ended. */
type StreamOutcome = { kind: 'ended' } | { kind: 'aborted' } | { kind: 'failed'; reason: string; retryAfterMs?: number };

export class HookcapClient {
  readonly apiUrl: string;
  private readonly key: string;
  private readonly fetchFn: typeof fetch;

  constructor(opts: ClientOptions) {
    this.apiUrl = baseUrl(opts.apiUrl ?? DEFAULT_API_URL);
    this.key = opts.key;
    this.fetchFn = opts.fetch ?? fetch;
  }

  /** One API call; throws HookcapError unless the answer is 2xx. */
  async raw(method: string, path: string, init: { body?: unknown; headers?: Record<string, string>; signal?: AbortSignal } = {}): Promise<Response> {
    const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, ...init.headers };
    let body: string | undefined;
    if (init.body !== undefined) {
      headers['content-type'] = 'application/json';
      body = JSON.stringify(init.body);
    }
    let res: Response;
    try {
      res = await this.fetchFn(`${this.apiUrl}${path}`, { method, headers, body, signal: init.signal });
    } catch (err) {
      if (init.signal?.aborted) throw err;
      throw new HookcapError(0, 'network', cannotReach(this.apiUrl, err));
    }
    if (!res.ok) throw await errorOf(res);
    return res;
  }

  private async json<T>(method: string, path: string, body?: unknown): Promise<T> {
    const res = await this.raw(method, path, { body });
    if (res.status === 204) return undefined as T;
    return (await res.json()) as T;
  }

  /** The account the key belongs to. */
  me(): Promise<User> {
    return this.json('GET', '/api/auth/me');
  }

  readonly endpoints = {
    list: (): Promise<Endpoint[]> => this.json('GET', '/api/endpoints'),
    /**
     * For every endpoint you can read (own, then shared with you), how many captures it holds and
     * the newest one's receivedAt (null: none), in one call; at most 1,000 endpoints (docs/api.md).
     */
    activity: (): Promise<EndpointActivity[]> => this.json('GET', '/api/endpoints/activity'),
    /**
     * A new endpoint. `expiresIn` (seconds, 60 to 2,592,000 = 30 days): it and its captures are
     * deleted then, so a crashed test run leaves nothing behind; `expiresAt` says when (ms).
     */
    create: (name: string, opts: { expiresIn?: number } = {}): Promise<Endpoint> => this.json('POST', '/api/endpoints', { name, expiresIn: opts.expiresIn }),
    get: (slug: string): Promise<Endpoint> => this.json('GET', `/api/endpoints/${encodeURIComponent(slug)}`),
    /** `expiresIn`: a new expiry counted from now, or null to keep the endpoint until deleted. */
    update: (
      slug: string,
      patch: { name?: string; mockResponse?: MockResponse | null; notificationUrl?: string | null; signing?: SigningConfig | null; expiresIn?: number | null },
    ): Promise<Endpoint> => this.json('PATCH', `/api/endpoints/${encodeURIComponent(slug)}`, patch),
    delete: (slug: string): Promise<void> => this.json('DELETE', `/api/endpoints/${encodeURIComponent(slug)}`),
    /**
     * A new secret that signs the endpoint's notifications from now on, replacing any other
     * (which stops signing at once). `secret` is returned this once: keep it where your app reads it.
     */
    rotateNotificationSecret: (slug: string): Promise<NewNotificationSecret> => this.json('POST', `/api/endpoints/${encodeURIComponent(slug)}/notification-secret`),
    /** Notifications go out unsigned again. */
    removeNotificationSecret: (slug: string): Promise<void> => this.json('DELETE', `/api/endpoints/${encodeURIComponent(slug)}/notification-secret`),
  };

  /**
   * The sandbox of an unclaimed agent key (SPEC 4.9): a few ephemeral, capture-only endpoints.
   * Any other credential gets HookcapError 403 `forbidden`; once claimed, use `endpoints`.
   */
  readonly sandbox = {
    /** A new endpoint at `url` (`{receiver_url}/w/<slug>`) that expires at `expiresAt` (ms). */
    create: (): Promise<SandboxEndpoint> => this.json('POST', '/api/agent/sandbox/endpoints'),
    /** This key's live sandbox endpoints. */
    list: (): Promise<SandboxEndpoint[]> => this.json('GET', '/api/agent/sandbox/endpoints'),
    /** The requests `slug` captured, newest first (limit default 50). */
    captures: (slug: string, opts: { limit?: number } = {}): Promise<Capture[]> =>
      this.json('GET', `/api/agent/sandbox/endpoints${query({ slug, limit: opts.limit })}`),
  };

  readonly requests = {
    /** The newest captures (limit default 50, max 1000). */
    list: (slug: string, opts: { limit?: number } = {}): Promise<Capture[]> =>
      this.json('GET', `/api/endpoints/${encodeURIComponent(slug)}/requests${query({ limit: opts.limit })}`),
    /** One page, newest first; pass `cursor` back for the next. */
    page: (slug: string, opts: { limit?: number; cursor?: string } = {}): Promise<RequestPageResult> =>
      this.json('GET', `/api/endpoints/${encodeURIComponent(slug)}/requests/paginated${query(opts)}`),
    get: (id: string): Promise<Capture> => this.json('GET', `/api/requests/${encodeURIComponent(id)}`),
    /** Hides every capture received so far. */
    clear: (slug: string): Promise<void> => this.json('DELETE', `/api/endpoints/${encodeURIComponent(slug)}/requests`),
    /** One capture as a cURL command, a HAR document or the raw HTTP message. */
    export: async (id: string, format: RequestExportFormat): Promise<Uint8Array> =>
      new Uint8Array(await (await this.raw('GET', `/api/requests/${encodeURIComponent(id)}/export${query({ format })}`)).arrayBuffer()),
  };

  /** Captures across your endpoints (or `slug`'s) matching the filters. */
  search(opts: SearchOptions = {}): Promise<Capture[]> {
    return this.json('GET', `/api/search/requests${query({ ...filterParams(opts), limit: opts.limit, offset: opts.offset, order: opts.order })}`);
  }

  async count(filters: SearchFilters = {}): Promise<number> {
    return (await this.json<{ count: number }>('GET', `/api/search/requests/count${query(filterParams(filters))}`)).count;
  }

  /** Every capture of `slug` matching the filters, oldest first, as a HAR or NDJSON file streamed from the server. */
  async export(slug: string, opts: Omit<SearchFilters, 'slug'> & { format: ExportFormat; signal?: AbortSignal }): Promise<ExportDownload> {
    const res = await this.raw('GET', `/api/endpoints/${encodeURIComponent(slug)}/requests/export${query({ format: opts.format, ...filterParams(opts), slug: undefined })}`, {
      signal: opts.signal,
    });
    if (!res.body) throw new HookcapError(res.status, 'bad_response', 'the export came without a body');
    return {
      body: res.body,
      filename: filenameOf(res.headers.get('content-disposition'), `hookcap-${slug}.${opts.format}`),
      contentType: res.headers.get('content-type') ?? '',
    };
  }

  /** The records of an NDJSON export, one by one, oldest first; memory stays flat. */
  async *exportRecords(slug: string, filters: Omit<SearchFilters, 'slug'> & { signal?: AbortSignal } = {}): AsyncGenerator<Capture> {
    const { body } = await this.export(slug, { ...filters, format: 'ndjson' });
    const decoder = new TextDecoder();
    let buf = '';
    for await (const chunk of body) {
      buf += decoder.decode(chunk, { stream: true });
      let nl = buf.indexOf('\n');
      while (nl >= 0) {
        const line = buf.slice(0, nl);
        buf = buf.slice(nl + 1);
        if (line !== '') yield JSON.parse(line) as Capture;
        nl = buf.indexOf('\n');
      }
    }
    if (buf.trim() !== '') throw new HookcapError(0, 'bad_response', 'the export ended in the middle of a record');
  }

  /** The server sends the capture again to `input.url` (public addresses only) and reports the answer. */
  replay(id: string, input: ReplayInput): Promise<ReplayResult> {
    return this.json('POST', `/api/requests/${encodeURIComponent(id)}/replay`, input);
  }

  /** A test request to your endpoint through the receiver (POST /api/send-test). */
  sendTest(slug: string, input: Omit<SendTestInput, 'slug'> = {}): Promise<SendTestResult> {
    return this.json('POST', '/api/send-test', { ...input, slug });
  }

  /**
   * The id of the newest stored capture of `slug`, or the lowest possible id
   * (`req_00000000000000000000000000`) when it has none: a position for `after` and the stream
   * (which the CLI's listen and backlog take it as), never null. Whether there is any capture:
   * `requests.list(slug, {limit: 1})`.
   */
  async newestId(slug: string): Promise<string> {
    const [newest] = await this.requests.list(slug, { limit: 1 });
    return newest?.id ?? captureIdFloor(0);
  }

  /**
   * A position for `after` standing for now (`GET /api/endpoints/{slug}/position`): after the
   * newest stored capture, and never later than the moment the call reached the server, so every
   * capture received from then on is after it. What a wait or a stream starts from when given
   * neither `after` nor `since`; unlike `newestId()`, a webhook sent right after the call is not
   * taken for older because a slow server stored it before answering. A server without the route:
   * `newestId()`.
   */
  async position(slug: string): Promise<string> {
    try {
      return (await this.json<{ position: string }>('GET', `/api/endpoints/${encodeURIComponent(slug)}/position`)).position;
    } catch (err) {
      if (err instanceof HookcapError && err.status === 404) return this.newestId(slug);
      throw err;
    }
  }

  /**
   * The live captures of `slug` (SSE), resuming with Last-Event-ID: after `after`, or from `since`,
   * or live. Reconnects by itself after the server's 30-minute limit and after network drops,
   * each capture yielded once (unless `onResume` chooses to skip ahead). Ends when `signal` aborts; throws HookcapError on 401/403/404 and
   * when the endpoint is deleted or expires (`endpoint_deleted`, `endpoint_expired`), the key is
   * revoked meanwhile (`credential_revoked`), the session token used reaches its expiry
   * (`session_expired`), or an endpoint read through a team may no longer be read (`access_revoked`).
   */
  stream(slug: string, opts: StreamOptions = {}): CaptureStream {
    if (!isRecord(opts as unknown)) throw invalid(`stream's options are an object such as {after: id}, got ${given(opts)}`);
    checkKeys('stream option', opts, STREAM_KEYS);
    // At least 1 ms: 0 would count every connection as dropped at once and reconnect forever.
    checkMs('idleTimeoutMs', opts.idleTimeoutMs, 1);
    const client = this;
    let last: string | null = opts.after ?? (opts.since !== undefined ? captureIdFloor(toMs(opts.since)) : null);
    const generator = async function* (): AsyncGenerator<Capture> {
      let attempt = 0;
      let reconnects = 0;
      /** When the last open connection was lost; null while one is open. */
      let lostAt: number | null = null;
      let reason = '';
      // Always resume from somewhere, so a reconnect before the first capture misses nothing either.
      last ??= await client.position(slug);
      for (;;) {
        if (opts.signal?.aborted) return;
        let outcome: StreamOutcome | null = null;
        if (reconnects > 0 && opts.onResume) {
          const after: string = last;
          try {
            const chosen = await opts.onResume({
              after,
              disconnectedAt: lostAt ?? Date.now(),
              reason,
              reconnects,
              waiting: () => client.count({ slug, from: idTime(after) + 1 }),
            });
            if (typeof chosen === 'string' && chosen !== '') last = chosen;
          } catch (err) {
            if (opts.signal?.aborted) return;
            if (!(err instanceof HookcapError) || !(err.status === 0 || err.status === 429 || err.status >= 500) || err.code === 'validation') throw err;
            outcome = { kind: 'failed', reason: err.message };
          }
          if (opts.signal?.aborted) return;
        }
        outcome ??= yield* client.streamOnce(slug, last, opts, reconnects, {
          opened: () => {
            attempt = 0;
            lostAt = null;
          },
          handled: (id) => {
            last = id;
          },
        });
        if (opts.signal?.aborted || outcome.kind === 'aborted') return;
        lostAt ??= Date.now();
        if (opts.reconnect === false) {
          if (outcome.kind === 'failed') throw new HookcapError(0, 'network', outcome.reason);
          return;
        }
        attempt++;
        // The server's time limit is routine: straight back. Anything else backs off.
        const delayMs = outcome.kind === 'failed' ? (outcome.retryAfterMs ?? backoffMs(attempt)) : 0;
        reason = outcome.kind === 'failed' ? outcome.reason : 'the server ended the stream';
        opts.onReconnect?.({ reason, delayMs, attempt });
        await sleep(delayMs, opts.signal);
        reconnects++;
      }
    };
    const iterable = generator();
    return {
      get lastEventId() {
        return last;
      },
      [Symbol.asyncIterator]: () => iterable,
    };
  }

  /** One connection of a stream. Returns how it ended; throws for what a reconnect cannot fix. */
  private async *streamOnce(
    slug: string,
    after: string | null,
    opts: StreamOptions,
    reconnects: number,
    on: { opened(): void; handled(id: string): void },
  ): AsyncGenerator<Capture, StreamOutcome> {
    const abort = new AbortController();
    const onAbort = () => abort.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const idleMs = opts.idleTimeoutMs ?? 90_000;
    let idle: ReturnType<typeof setTimeout> | undefined;
    let idleFired = false;
    const touch = () => {
      clearTimeout(idle);
      idle = setTimeout(() => {
        idleFired = true;
        abort.abort();
      }, idleMs);
    };
    try {
      touch();
      const headers: Record<string, string> = { authorization: `Bearer ${this.key}`, accept: 'text/event-stream' };
      if (after) headers['last-event-id'] = after;
      let res: Response;
      try {
        res = await this.fetchFn(`${this.apiUrl}/api/stream/${encodeURIComponent(slug)}`, { headers, signal: abort.signal });
      } catch (err) {
        if (opts.signal?.aborted) return { kind: 'aborted' };
        return { kind: 'failed', reason: idleFired ? `no answer within ${idleMs / 1000} s` : cannotReach(this.apiUrl, err) };
      }
      if (!res.ok) {
        const error = await errorOf(res);
        if (res.status === 429 || res.status >= 500) {
          const retryAfter = Number(res.headers.get('retry-after'));
          return { kind: 'failed', reason: `${res.status}: ${error.message}`, retryAfterMs: retryAfter > 0 ? retryAfter * 1000 : undefined };
        }
        throw error;
      }
      if (!res.body) return { kind: 'failed', reason: 'the stream came without a body' };
      const chunks = (async function* (body: ReadableStream<Uint8Array>) {
        for await (const chunk of body) {
          touch();
          yield chunk;
        }
      })(res.body);
      try {
        for await (const item of readSse(chunks)) {
          if (item.kind === 'comment') {
            if (item.text === 'ok') {
              on.opened();
              opts.onOpen?.({ after, reconnects });
            }
            continue;
          }
          if (item.event === 'end') {
            const reason = (JSON.parse(item.data) as { reason?: string }).reason ?? 'endpoint_deleted';
            if (reason === 'credential_revoked') throw new HookcapError(401, reason, `the API key was revoked; the stream of ${slug} ended`);
            if (reason === 'session_expired') throw new HookcapError(401, reason, `the session expired; the stream of ${slug} ended`);
            if (reason === 'access_revoked') {
              throw new HookcapError(404, reason, `your access to ${slug} through a team ended (removed or left, unshared, team deleted, or its subscription is not active)`);
            }
            throw new HookcapError(410, reason, reason === 'endpoint_expired' ? `endpoint ${slug} expired` : `endpoint ${slug} was deleted`);
          }
          if (item.event !== 'request') continue;
          const capture = JSON.parse(item.data) as Capture;
          on.handled(item.id ?? capture.id);
          yield capture;
        }
      } catch (err) {
        if (err instanceof HookcapError) throw err;
        if (opts.signal?.aborted) return { kind: 'aborted' };
        return { kind: 'failed', reason: idleFired ? `no data for ${idleMs / 1000} s` : `connection lost: ${err instanceof Error ? err.message : String(err)}` };
      }
      return { kind: 'ended' };
    } finally {
      clearTimeout(idle);
      opts.signal?.removeEventListener('abort', onAbort);
      abort.abort();
    }
  }

  /**
   * The first capture of `slug` for which `predicate` (a function or a RequestMatcher) holds. By
   * default it considers captures that arrive after the call starts (and any already acknowledged
   * but not yet listed); pass `after` (a capture id) or `since` to look back. Throws
   * WaitTimeoutError (a HookcapError, code `timeout`) after `timeout` ms (default 30 s), naming
   * what it waited for and what arrived instead.
   */
  async waitForRequest(slug: string, predicate: RequestPredicate, opts: WaitOptions = {}): Promise<Capture> {
    checkWait('waitForRequest', predicate, opts, WAIT_KEYS);
    const [first] = await this.waitForRequests(slug, predicate, { ...opts, count: 1 });
    if (!first) throw new HookcapError(0, 'bad_response', 'no capture');
    return first;
  }

  /** The first `count` captures of `slug` for which `predicate` holds, oldest first; as waitForRequest. */
  async waitForRequests(slug: string, predicate: RequestPredicate, opts: WaitOptions & { count: number }): Promise<Capture[]> {
    checkWait('waitForRequests', predicate, opts, [...WAIT_KEYS, 'count']);
    if (!Number.isInteger(opts.count) || opts.count < 1) throw invalid(`count must be a whole number of at least 1, got ${given(opts.count)}`);
    checkMs('timeout', opts.timeout);
    const timeout = opts.timeout ?? 30_000;
    const watch = await this.watch(slug, predicate, opts, timeout, opts.count);
    if (watch.matched.length >= opts.count) return watch.matched;
    if (opts.signal?.aborted) throw new HookcapError(0, 'aborted', 'waitForRequest was aborted');
    const matching = watch.what === 'any request' ? '' : ` matching ${watch.what}`;
    const wanted = opts.count === 1 ? `no request${matching}` : `${watch.matched.length} of ${opts.count} requests${matching}`;
    const others =
      watch.unmatchedCount === 0
        ? 'no other request arrived'
        : `${watch.unmatchedCount} other${watch.unmatchedCount === 1 ? '' : 's'} arrived: ${watch.unmatched.slice(0, 5).map(summary).join('; ')}${watch.unmatchedCount > 5 ? '; …' : ''}`;
    const neverOpen = watch.opened || watch.failure === '' ? '' : `; the stream never connected (${watch.failure})`;
    throw new WaitTimeoutError(
      `${wanted} on ${slug} within ${seconds(timeout)}; ${others}${neverOpen}`,
      slug,
      timeout,
      watch.matched,
      watch.unmatched,
      watch.unmatchedCount,
    );
  }

  /**
   * Resolves when no capture of `slug` matching `predicate` (any, by default) arrives within
   * `within` ms (default 2 s) from the call (or from `after`/`since`); throws HookcapError
   * `unexpected_request` as soon as one does, naming it (the capture is the error's `capture`).
   */
  async expectNoRequest(slug: string, predicate: RequestPredicate = {}, opts: Omit<WaitOptions, 'timeout'> & { within?: number } = {}): Promise<void> {
    checkWait('expectNoRequest', predicate, opts, EXPECT_NONE_KEYS);
    checkMs('within', opts.within);
    const within = opts.within ?? 2_000;
    const watch = await this.watch(slug, predicate, opts, within, 1);
    const [hit] = watch.matched;
    if (opts.signal?.aborted) throw new HookcapError(0, 'aborted', 'expectNoRequest was aborted');
    if (hit) {
      throw Object.assign(new HookcapError(0, 'unexpected_request', `expected no ${watch.what === 'any request' ? 'request' : `request matching ${watch.what}`} on ${slug} within ${seconds(within)}, got ${summary(hit)}`), {
        capture: hit,
      });
    }
    if (!watch.opened && watch.failure !== '') throw new HookcapError(0, 'network', `could not watch ${slug}: ${watch.failure}`);
  }

  /** Reads the stream until `count` captures matched or `ms` passed; what matched and what did not. */
  private async watch(slug: string, predicate: RequestPredicate, opts: WaitOptions, ms: number, count: number) {
    const test = typeof predicate === 'function' ? predicate : matches(predicate);
    const what = typeof predicate === 'function' ? (opts.description ?? 'the predicate') : (opts.description ?? describeMatcher(predicate));
    const stop = new AbortController();
    const timer = setTimeout(() => stop.abort(), ms);
    const onAbort = () => stop.abort();
    opts.signal?.addEventListener('abort', onAbort, { once: true });
    const got = { what, matched: [] as Capture[], unmatched: [] as Capture[], unmatchedCount: 0, opened: false, failure: '' };
    try {
      const stream = this.stream(slug, {
        after: opts.after,
        since: opts.since,
        signal: stop.signal,
        onOpen: () => {
          got.opened = true;
        },
        onReconnect: ({ reason }) => {
          got.failure = reason;
        },
      });
      for await (const capture of stream) {
        if (test(capture)) {
          got.matched.push(capture);
          if (got.matched.length >= count) break;
        } else {
          got.unmatchedCount++;
          if (got.unmatched.length < 100) got.unmatched.push(capture);
        }
      }
      return got;
    } catch (err) {
      throw await this.sandboxRefusal(err, slug);
    } finally {
      clearTimeout(timer);
      opts.signal?.removeEventListener('abort', onAbort);
    }
  }

  /**
   * An unclaimed agent key has no stream (docs/agents.md), so waiting is refused with 403; the
   * server's words name its sandbox route, not this client's call. When the key reads the sandbox
   * (one call, made only after a 403), the refusal says what to use instead; any other error as is.
   */
  private async sandboxRefusal(err: unknown, slug: string): Promise<unknown> {
    if (!(err instanceof HookcapError) || err.status !== 403) return err;
    const sandbox = await this.sandbox.list().then(
      () => true,
      () => false,
    );
    if (!sandbox) return err;
    return new HookcapError(
      403,
      err.code,
      `this agent key is not claimed yet, and an unclaimed key has no stream to wait on: poll sandbox.captures(${JSON.stringify(slug)}) (newest first) for what its sandbox endpoint captured, or wait until a person claims the key (waitForClaim) and wait then`,
    );
  }
}

/** Where an agent registration call goes; no key is needed (the registration issues it). */
export interface AgentCallOptions {
  /** Where the server is, as `createClient`'s `apiUrl`; default http://localhost:3000. */
  apiUrl?: string;
  /** A fetch to use instead of the global one. */
  fetch?: typeof fetch;
  signal?: AbortSignal;
}

async function agentPost<T>(opts: AgentCallOptions, path: string, body: unknown): Promise<T> {
  const apiUrl = baseUrl(opts.apiUrl ?? DEFAULT_API_URL);
  let res: Response;
  try {
    res = await (opts.fetch ?? fetch)(`${apiUrl}${path}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(body),
      signal: opts.signal,
    });
  } catch (err) {
    if (opts.signal?.aborted) throw err;
    throw new HookcapError(0, 'network', cannotReach(apiUrl, err));
  }
  if (!res.ok) throw await errorOf(res);
  return (await res.json()) as T;
}

/**
 * Registers an agent anonymously (`POST /api/agent/auth`): the key (`credential`) works at once in
 * the sandbox (`createClient({key: reg.credential}).sandbox`); show your person `claim_url` (or
 * `user_code` to type at `/agent/claim`) and wait with `waitForClaim`. Refusals throw HookcapError
 * with the agent API's code (`invalid_request`, `rate_limited`, `temporarily_unavailable`, …).
 */
export function registerAnonymous(opts: AgentCallOptions & { clientName: string }): Promise<AnonymousRegistration> {
  return agentPost(opts, '/api/agent/auth', { type: 'anonymous', requested_credential_type: 'api_key', client_name: opts.clientName });
}

/** One poll of a registration (`POST /api/agent/auth/poll`): `pending`, `claimed` or `denied`. */
export function pollRegistration(opts: AgentCallOptions & { claimToken: string }): Promise<RegistrationStatus> {
  return agentPost(opts, '/api/agent/auth/poll', { claim_token: opts.claimToken });
}

/**
 * Polls every `intervalMs` (default 5 s) until a person decides: resolves with the `claimed`
 * status (the same key now uses the full API), throws HookcapError `claim_denied` (status 409)
 * when they refuse (the key is revoked), `claim_expired` (410) when the window closes first,
 * and `timeout` after `timeout` ms (default: none; the claim window bounds it).
 */
export async function waitForClaim(
  opts: AgentCallOptions & { claimToken: string; intervalMs?: number; timeout?: number },
): Promise<Extract<RegistrationStatus, { status: 'claimed' }>> {
  if (!isRecord(opts as unknown)) throw invalid(`waitForClaim's options are an object such as {claimToken, apiUrl}, got ${given(opts)}`);
  checkKeys('waitForClaim option', opts, CLAIM_KEYS);
  // At least 1 ms: 0 would poll in a tight loop.
  checkMs('intervalMs', opts.intervalMs, 1);
  checkMs('timeout', opts.timeout);
  const deadline = opts.timeout === undefined ? Infinity : Date.now() + opts.timeout;
  for (;;) {
    const status = await pollRegistration(opts);
    if (status.status === 'claimed') return status;
    if (status.status === 'denied') throw new HookcapError(409, 'claim_denied', 'a person denied this registration; its key is revoked: register again');
    if (opts.signal?.aborted) throw new HookcapError(0, 'aborted', 'waitForClaim was aborted');
    const wait = Math.min(opts.intervalMs ?? 5_000, deadline - Date.now());
    if (wait <= 0) throw new HookcapError(0, 'timeout', `the registration was not claimed within ${opts.timeout} ms`);
    await sleep(wait, opts.signal);
    if (opts.signal?.aborted) throw new HookcapError(0, 'aborted', 'waitForClaim was aborted');
  }
}

/** A client for the API at `apiUrl` with `key`. */
export function createClient(opts: ClientOptions): HookcapClient {
  return new HookcapClient(opts);
}
