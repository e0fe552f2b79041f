/**
 * The capture path: receiver → actor → capture log. Builds the record, makes it durable, then
 * publishes it live and hands it to the shipper. Everything here runs per captured request, so it
 * does only what the acknowledgement needs.
 */
import { AppError } from '../errors';
import { captureId } from '../ids';
import type { Capture } from '../model/capture';
import type { Bus } from '../bus/types';
import { subjects } from '../bus/types';
import type { SlugActors, EndpointSnapshot } from './actors';
import type { CaptureLog } from './capture-log';
import type { Shipper } from './shipper';

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
}

export interface CaptureResponse {
  status: number;
  headers: Record<string, string>;
  body: string;
}

export interface CaptureEngineDeps {
  actors: SlugActors;
  log: CaptureLog;
  shipper: Shipper;
  bus: Bus;
  backlogLimit: number;
}

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
  constructor(private readonly deps: CaptureEngineDeps) {}

  async capture(req: IncomingRequest): Promise<CaptureResponse> {
    const { actors, log, shipper, bus } = this.deps;
    const found = actors.get(req.slug);
    const endpoint = found instanceof Promise ? await found : found;
    if (!endpoint || (endpoint.expiresAt !== null && endpoint.expiresAt <= Date.now())) {
      throw new AppError('not_found', `no endpoint with slug "${req.slug}"`);
    }
    if (shipper.backlog >= this.deps.backlogLimit) {
      // The store is not keeping up (or is down): refuse rather than hold unbounded memory.
      throw new AppError('unavailable', 'capture store is behind; retry shortly', { 'retry-after': '1' });
    }
    const capture = this.record(endpoint, req);
    const payload = encoder.encode(JSON.stringify(capture));
    const position = await log.append(payload);
    bus.publish(subjects.capture(endpoint.id), payload);
    shipper.enqueue(capture, position);
    return respond(endpoint, capture.id);
  }

  private record(endpoint: EndpointSnapshot, req: IncomingRequest): Capture {
    const receivedAt = Date.now();
    const headers: Record<string, string> = {};
    for (const [k, v] of req.headers) headers[k] = v;
    const { body, bodyEncoding } = decodeBody(req.body);
    return {
      id: captureId(receivedAt),
      endpointId: endpoint.id,
      method: req.method,
      path: req.path,
      headers,
      body,
      bodyEncoding,
      queryParams: parseQuery(req.query),
      contentType: headers['content-type'] ?? '',
      ip: req.ip,
      size: req.body.length,
      receivedAt,
      detectedProvider: '',
      detectedEvent: '',
    };
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
