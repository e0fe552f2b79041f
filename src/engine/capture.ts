/**
 * The capture path: receiver → actor → capture log. Builds the record, makes it durable, then
 * publishes it live; the shipper worker picks it up from the log. Everything here runs per
 * captured request, so it does only what the acknowledgement needs.
 */
import { AppError } from '../errors';
import { captureId } from '../ids';
import type { Capture } from '../model/capture';
import type { Bus } from '../bus/types';
import type { SlugActors, EndpointSnapshot } from './actors';
import type { CaptureLog } from './capture-log';
import { LivePublisher } from './live-publisher';
import { detectProvider } from './providers';
import type { Shipper } from './shipper';
import { verifySignature } from './signing';

export interface IncomingRequest {
  slug: string;
  method: string;
  /** Path after the slug, starting with "/". */
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
  /** Refuses a capture before anything is stored (e.g. over quota); null admits it. */
  admit?(endpoint: EndpointSnapshot): AppError | null;
  /** Called once the capture is durable and acknowledged (usage counting, notifications). */
  captured?(capture: Capture, endpoint: EndpointSnapshot): void;
}

export interface CaptureResponse {
  status: number;
  headers: Record<string, string>;
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
    captured(capture, endpoint) {
      for (const p of parts) p.captured?.(capture, endpoint);
    },
  };
}

export interface CaptureEngineDeps {
  actors: SlugActors;
  log: CaptureLog;
  shipper: Shipper;
  bus: Bus;
  backlogLimit: number;
  /** False skips provider detection (captures get "" for both fields). */
  detectProviders?: boolean;
  hooks?: CaptureHooks;
}

const UNDETECTED = { provider: '', event: '' };

const utf8 = new TextDecoder('utf-8', { fatal: true });
const encoder = new TextEncoder();

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

export function parseQuery(query: string): Record<string, string | string[]> {
  const out: Record<string, string | string[]> = {};
  if (!query) return out;
  for (const [k, v] of new URLSearchParams(query)) {
    const prev = out[k];
    if (prev === undefined) out[k] = v;
    else if (Array.isArray(prev)) prev.push(v);
    else out[k] = [prev, v];
  }
  return out;
}

export class CaptureEngine {
  private readonly live: LivePublisher;
  private readonly detect: typeof detectProvider;

  constructor(private readonly deps: CaptureEngineDeps) {
    this.live = new LivePublisher(deps.bus);
    this.detect = deps.detectProviders === false ? () => UNDETECTED : detectProvider;
  }

  async capture(req: IncomingRequest): Promise<CaptureResponse> {
    const { actors, log, shipper } = this.deps;
    const found = actors.get(req.slug);
    const endpoint = found instanceof Promise ? await found : found;
    if (!endpoint || (endpoint.expiresAt !== null && endpoint.expiresAt <= Date.now())) {
      throw new AppError('not_found', `no endpoint with slug "${req.slug}"`);
    }
    if (shipper.backlog >= this.deps.backlogLimit) {
      // The store is not keeping up (or is down): refuse rather than hold unbounded memory.
      throw new AppError('unavailable', 'capture store is behind; retry shortly', { 'retry-after': '1' });
    }
    const refused = this.deps.hooks?.admit?.(endpoint);
    if (refused) throw refused;
    const capture = this.record(endpoint, req);
    const payload = encoder.encode(JSON.stringify(capture));
    await log.append(payload);
    this.live.add(endpoint.id, capture.id, payload);
    this.deps.hooks?.captured?.(capture, endpoint);
    return respond(endpoint, capture.id);
  }

  private record(endpoint: EndpointSnapshot, req: IncomingRequest): Capture {
    const receivedAt = Date.now();
    const headers = headersObject(req.headers);
    const { body, bodyEncoding } = decodeBody(req.body);
    const queryParams = parseQuery(req.query);
    const contentType = headers['content-type'] ?? '';
    const detected = this.detect({ headers, body: bodyEncoding === 'utf8' ? body : '', contentType, method: req.method, query: queryParams });
    const record: Capture = {
      id: captureId(receivedAt),
      endpointId: endpoint.id,
      method: req.method,
      path: req.path,
      headers,
      body,
      bodyEncoding,
      queryParams,
      contentType,
      ip: req.ip,
      size: req.body.length,
      receivedAt,
      detectedProvider: detected.provider,
      detectedEvent: detected.event,
    };
    if (endpoint.signing) {
      const url = `${req.publicBase}/w/${req.slug}${req.path === '/' ? '' : req.path}${req.query ? `?${req.query}` : ''}`;
      const v = verifySignature(endpoint.signing, { headers, rawBody: req.body, url, method: req.method, now: receivedAt });
      record.signatureVerified = v.signatureVerified;
      record.signatureError = v.signatureError;
      record.signingProvider = v.signingProvider;
    }
    return record;
  }
}

function respond(endpoint: EndpointSnapshot, id: string): CaptureResponse {
  const mock = endpoint.mockResponse;
  if (mock) return { status: mock.status, headers: { ...mock.headers, 'x-request-id': id }, body: mock.body };
  return {
    status: 200,
    headers: { 'content-type': 'application/json', 'x-request-id': id },
    body: `{"ok":true,"id":"${id}"}`,
  };
}
