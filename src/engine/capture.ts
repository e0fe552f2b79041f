/**
 * The capture path: receiver → endpoint cache → capture log. Builds the record, makes it durable, then
 * publishes it live; the shipper worker picks it up from the log. Everything here runs per
 * captured request, so it does only what the acknowledgement needs.
 */
import { systemClock, type Clock } from '../clock';
import { captureId, isSlug } from '../ids';
import type { Capture } from '../model/capture';
import type { Bus } from '../bus/types';
import type { MockResponse } from '../stores/state/schema';
import type { EndpointCache, EndpointSnapshot } from './endpoint-cache';
import type { Appended, CaptureLog, LogPosition } from './capture-log';
import { LivePublisher } from './live-publisher';
import { ReceiverRefusal } from './refusals';
import { detectProvider } from './providers';
import { mockHeaderRefusal, RECEIVER_CORS_HEADERS, RECEIVER_PREFLIGHT_HEADERS, RECEIVER_SECURITY_HEADERS } from './receiver-headers';
import type { Shipper } from './shipper';
import { verifySignature } from './signing';

export interface IncomingRequest {
  slug: string;
  method: string;
  /**
   * Path after the slug exactly as sent ("" when nothing follows it). The record's `path` is "/"
   * for both `/w/<slug>` and `/w/<slug>/`; a URL signature (Twilio) covers the difference.
   */
  path: string;
  /** Raw query string without "?" ("" when none). */
  query: string;
  headers: Headers;
  body: Uint8Array;
  ip: string;
  /** Receiver base URL as senders see it; signature schemes that sign the URL (Twilio, Square) need it. */
  publicBase: string;
}

/**
 * Seams for features layered on the capture path. Both run synchronously on the hot path, so
 * they must be O(1) in-memory work: anything slower is queued by the hook itself.
 */
export interface CaptureHooks {
  /** Refuses a capture before anything is stored (e.g. over quota), saying why; null admits it. */
  admit?(endpoint: EndpointSnapshot): ReceiverRefusal | null;
  /**
   * Called once the capture is durable and acknowledged (usage counting, notifications), with the
   * position of its frame in the capture log.
   */
  captured?(capture: Capture, endpoint: EndpointSnapshot, at: LogPosition): void;
}

export interface CaptureResponse {
  status: number;
  /** A fresh object per answer: the caller may change it. */
  headers: Headers;
  body: string;
}

/** One hook set from many; `admit` refuses if any part refuses. */
export function combineHooks(parts: CaptureHooks[]): CaptureHooks {
  return {
    admit(endpoint) {
      for (const p of parts) {
        const refused = p.admit?.(endpoint);
        if (refused) return refused;
      }
      return null;
    },
    captured(capture, endpoint, at) {
      for (const p of parts) p.captured?.(capture, endpoint, at);
    },
  };
}

export interface CaptureEngineDeps {
  endpointCache: EndpointCache;
  log: CaptureLog;
  shipper: Shipper;
  bus: Bus;
  backlogLimit: number;
  /** Live captures: bus flushes at least this far apart (ms; src/engine/live-publisher.ts). */
  liveFlushMs?: number;
  /** False skips provider detection (captures get "" for both fields). */
  detectProviders?: boolean;
  hooks?: CaptureHooks;
  /** Stamps `receivedAt` and decides endpoint expiry (the composition root's clock). */
  clock?: Clock;
}

const UNDETECTED = { provider: '', event: '' };

// ignoreBOM keeps a leading byte-order mark in the text: a decoder strips it by default, and the
// stored body must be exactly the bytes sent (size counts the BOM's three bytes).
const utf8 = new TextDecoder('utf-8', { fatal: true, ignoreBOM: true });

/** Decodes UTF-8 strictly; anything else is kept byte for byte as base64. */
export function decodeBody(body: Uint8Array): { body: string; bodyEncoding: 'utf8' | 'base64' } {
  if (body.length === 0) return { body: '', bodyEncoding: 'utf8' };
  try {
    return { body: utf8.decode(body), bodyEncoding: 'utf8' };
  } catch {
    return { body: Buffer.from(body.buffer, body.byteOffset, body.byteLength).toString('base64'), bodyEncoding: 'base64' };
  }
}

/**
 * Lower-cased header names to values. Bun's native Headers#toJSON is ~3x faster than iterating;
 * it gives set-cookie as an array, which the record joins like any repeated header.
 */
export function headersObject(h: Headers): Record<string, string> {
  const out = (h as unknown as { toJSON(): Record<string, string | string[]> }).toJSON();
  const cookies = out['set-cookie'];
  if (Array.isArray(cookies)) out['set-cookie'] = cookies.join(', ');
  return out as Record<string, string>;
}

/**
 * Our own `session` cookie (http/auth.ts) as a browser sends it to a receiver on the API's host: a
 * link to someone's /w/<slug> would otherwise hand them the visitor's session in the capture.
 */
const SESSION_PAIR = /(^|;\s*)session=ses_[^;]*/g;

/** The cookie header with the value of our session cookie replaced; other cookies are kept as sent. */
export function redactSessionCookie(cookie: string): string {
  return cookie.includes('ses_') ? cookie.replace(SESSION_PAIR, '$1session=[redacted]') : cookie;
}

/**
 * Query parameters as sent. The map has no prototype, so `toString`, `constructor` or `__proto__`
 * are keys like any other rather than inherited members (which once turned `?toString=x` into a
 * record no read could load).
 */
export function parseQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = Object.create(null);
  if (!query) return out;
  for (const [k, v] of new URLSearchParams(query)) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

/**
 * The 404 for a slug that cannot exist. A slug in capitals (a URL retyped or upper-cased by a
 * sender's settings page) is named in lower case, since paths are case-sensitive and slugs are
 * lower case; worked out only on this refusal, never on a capture.
 */
function notASlug(slug: string): ReceiverRefusal {
  const lower = slug.toLowerCase();
  return new ReceiverRefusal('invalid_slug', lower !== slug && isSlug(lower) ? `no endpoint with this slug; slugs are lower case: /w/${lower}` : 'no endpoint with this slug');
}

export class CaptureEngine {
  private readonly live: LivePublisher;
  private readonly detect: typeof detectProvider;
  private readonly clock: Clock;

  constructor(private readonly deps: CaptureEngineDeps) {
    this.clock = deps.clock ?? systemClock;
    this.live = new LivePublisher(deps.bus, deps.liveFlushMs ?? 0);
    this.detect = deps.detectProviders === false ? () => UNDETECTED : detectProvider;
  }

  /** Publishes the live captures still waiting for their flush (shutdown, before the bus closes). */
  flushLive(): void {
    this.live.flush(true);
  }

  async capture(req: IncomingRequest): Promise<CaptureResponse> {
    const { endpointCache, log, shipper } = this.deps;
    // A slug that cannot exist is not looked up, nor remembered as missing.
    if (!isSlug(req.slug)) throw notASlug(req.slug);
    const found = endpointCache.get(req.slug);
    const endpoint = found instanceof Promise ? await found : found;
    if (!endpoint || (endpoint.expiresAt !== null && endpoint.expiresAt <= this.clock.now())) {
      // One answer for both (expiry is not the sender's business); the reason is the operator's.
      throw new ReceiverRefusal(endpoint ? 'expired_endpoint' : 'unknown_endpoint', `no endpoint with slug "${req.slug}"`);
    }
    if (shipper.backlog >= this.deps.backlogLimit) {
      // The store is not keeping up (or is down): refuse rather than hold unbounded memory.
      throw new ReceiverRefusal('capture_store_behind', 'capture store is behind; retry shortly', { 'retry-after': '1' });
    }
    const refused = this.deps.hooks?.admit?.(endpoint);
    if (refused) throw refused;
    const capture = this.record(endpoint, req);
    let appended: Appended;
    try {
      appended = await log.appendText(JSON.stringify(capture));
    } catch {
      // Not on disk, so not acknowledged (disk full, I/O error); the log reports the cause once.
      throw new ReceiverRefusal('capture_log_failed', 'the capture could not be stored (capture log write failed); nothing was stored, retry shortly', { 'retry-after': '5' });
    }
    this.live.add(endpoint.id, capture.id, appended.frame);
    this.deps.hooks?.captured?.(capture, endpoint, appended.at);
    return respond(endpoint, capture.id, req.method);
  }

  private record(endpoint: EndpointSnapshot, req: IncomingRequest): Capture {
    const receivedAt = this.clock.now();
    const headers = headersObject(req.headers);
    const cookie = headers.cookie;
    if (cookie !== undefined) headers.cookie = redactSessionCookie(cookie);
    const { body, bodyEncoding } = decodeBody(req.body);
    const queryParams = parseQuery(req.query);
    const contentType = headers['content-type'] ?? '';
    const detected = this.detect({ headers, body: bodyEncoding === 'utf8' ? body : '', contentType, method: req.method, query: queryParams });
    const record: Capture = {
      id: captureId(receivedAt),
      endpointId: endpoint.id,
      method: req.method,
      path: req.path || '/',
      headers,
      body,
      bodyEncoding,
      queryParams,
      // The raw query as sent, so forwarding and exports re-send it byte for byte (signed URLs).
      query: req.query,
      contentType,
      ip: req.ip,
      size: req.body.length,
      receivedAt,
      detectedProvider: detected.provider,
      detectedEvent: detected.event,
      // Known before the append, so the record says what the sender was answered (HAR exports show it).
      responseStatus: endpoint.mockResponse?.status ?? 200,
    };
    if (endpoint.signing) {
      const url = `${req.publicBase}/w/${req.slug}${req.path}${req.query ? `?${req.query}` : ''}`;
      const v = verifySignature(endpoint.signing, { headers, rawBody: req.body, url, method: req.method, now: receivedAt });
      record.signatureVerified = v.signatureVerified;
      record.signatureError = v.signatureError;
      record.signingProvider = v.signingProvider;
    }
    return record;
  }
}

/**
 * A mock's headers with the receiver's security headers, built once per snapshot (the snapshot's
 * mock object is kept until the endpoint changes). Headers a mock may no longer set (stored before
 * the refuse-list, or not sendable) are dropped rather than failing every capture.
 *
 * Each answer copies a prepared Headers and sets its request id: building Headers from an object
 * literal per capture cost ~2.7 µs, a copy and one set ~0.5 µs (Bun 1.4).
 */
const mockHeaders = new WeakMap<MockResponse, Headers>();

function mockHeadersOf(mock: MockResponse): Headers {
  let headers = mockHeaders.get(mock);
  if (!headers) {
    headers = new Headers();
    // wireHeaders: the typed values' bytes, converted when the mock was saved (services/endpoints.ts).
    for (const [name, value] of Object.entries(mock.wireHeaders ?? mock.headers ?? {})) {
      const lower = name.toLowerCase();
      if (typeof value === 'string' && mockHeaderRefusal(lower, value) === null) headers.set(lower, value);
    }
    for (const [name, value] of Object.entries(RECEIVER_SECURITY_HEADERS)) headers.set(name, value);
    mockHeaders.set(mock, headers);
  }
  return headers;
}

/** What a capture is answered when the endpoint has no mock response (receiver-headers.ts). */
const OK_HEADERS = new Headers({ 'content-type': 'application/json', ...RECEIVER_SECURITY_HEADERS, ...RECEIVER_CORS_HEADERS });
const OK_PREFLIGHT_HEADERS = new Headers({ 'content-type': 'application/json', ...RECEIVER_SECURITY_HEADERS, ...RECEIVER_PREFLIGHT_HEADERS });

function respond(endpoint: EndpointSnapshot, id: string, method: string): CaptureResponse {
  const mock = endpoint.mockResponse;
  const headers = new Headers(mock ? mockHeadersOf(mock) : method === 'OPTIONS' ? OK_PREFLIGHT_HEADERS : OK_HEADERS);
  headers.set('x-request-id', id);
  if (mock) return { status: mock.status, headers, body: mock.body };
  return { status: 200, headers, body: `{"ok":true,"id":"${id}"}` };
}
