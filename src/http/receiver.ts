/**
 * Everything under /w/ — the public receiver. Reads the raw body (bounded), hands the request to
 * the capture engine and answers with the endpoint's mock response or 200 OK.
 *
 * It is served as Bun routes (`/w` and `/w/*`) rather than through Elysia's router: Bun matches
 * them on the request's own path, while Elysia's fallback router reads the path at a fixed offset
 * into `request.url`, which an empty or 1–3 character Host header shifts (`/w/<slug>/api/…`
 * would reach the API). Every answer, errors included, carries the receiver's security headers.
 */
import { Elysia } from 'elysia';
import type { Config } from '../config';
import type { CaptureEngine } from '../engine/capture';
import { RECEIVER_CORS_HEADERS, RECEIVER_SECURITY_HEADERS } from '../engine/receiver-headers';
import { ReceiverRefusal, type ReceiverRefusals, type RefusalReason } from '../engine/refusals';
import { readBounded, readyRefusal } from './body-limit';
import { clientAddress, type PeerSource } from './client-ip';
import { documented, ErrorBody, ReceiverAck } from './api/models';
import { errorResponse, isStoreUnreachable } from './errors';

export type ReceiverHandler = (request: Request, server: PeerSource | null) => Promise<Response>;

const EMPTY = new Uint8Array(0);

const tooLarge = (max: number, close: boolean) =>
  new ReceiverRefusal('payload_too_large', `request body exceeds the ${max}-byte limit; nothing was stored`, close ? { connection: 'close' } : {});

/**
 * The body, bounded: a sender still gets its 413 whole (src/http/body-limit.ts). A read that fails
 * is the sender's connection ending before its body did: its refusal, not our 500 (nor, for an
 * ECONNRESET, a store "unreachable"), and nothing logged, since any sender can cause it at will.
 * One function with its try around the reads (no second async frame per capture).
 */
async function readBody(request: Request, max: number): Promise<Uint8Array> {
  try {
    const declared = request.headers.get('content-length');
    if (declared !== null) {
      // Refused unread. Within the drain limit the server discards the rest itself and keeps the
      // connection; past it, `connection: close` stops it reading a huge upload.
      const length = Number(declared);
      if (length > max) throw tooLarge(max, await readyRefusal(request, length, max));
      return new Uint8Array(await request.arrayBuffer());
    }
    if (!request.body) return EMPTY;
    // Chunked upload: count as we go; past the limit keep nothing, and stop reading at the drain limit.
    const read = await readBounded(request.body, max);
    if (read.total > max) throw tooLarge(max, !read.whole);
    return Buffer.concat(read.bytes);
  } catch (err) {
    if (err instanceof ReceiverRefusal) throw err;
    throw new ReceiverRefusal('body_incomplete', 'the connection ended before the request body did; nothing was stored');
  }
}

export interface ReceiverTarget {
  slug: string;
  /** What follows the slug exactly as sent: "" when nothing does, "/" for a trailing slash. */
  path: string;
  /** The raw query string without "?". */
  query: string;
}

/**
 * Splits a /w/ request's URL. `request.url` is absolute ("http://host/w/<slug>/rest?x=1") unless
 * the Host header is empty or unusable, when Bun gives the bare path ("/w/<slug>/rest?x=1").
 */
export function receiverTarget(url: string): ReceiverTarget {
  let start = 0;
  if (url.charCodeAt(0) !== 47) {
    const scheme = url.indexOf('://');
    start = url.indexOf('/', scheme + 3);
    if (start < 0) start = url.length;
  }
  const q = url.indexOf('?', start);
  const pathEnd = q === -1 ? url.length : q;
  // start points at "/w"; the slug runs from after "/w/" to the next "/".
  const slugStart = Math.min(start + 3, pathEnd);
  let slugEnd = url.indexOf('/', slugStart);
  if (slugEnd === -1 || slugEnd > pathEnd) slugEnd = pathEnd;
  return { slug: url.slice(slugStart, slugEnd), path: url.slice(slugEnd, pathEnd), query: q === -1 ? '' : url.slice(q + 1) };
}

/**
 * An error as the receiver answers it: the usual `{error, code}` JSON plus the security headers, and
 * the CORS headers so a sending page can read why (a 429's Retry-After included).
 */
function receiverError(err: unknown, refusals: ReceiverRefusals): Response {
  refusals.count(refusalReason(err));
  const res = errorResponse(err);
  for (const [name, value] of Object.entries(RECEIVER_SECURITY_HEADERS)) res.headers.set(name, value);
  for (const [name, value] of Object.entries(RECEIVER_CORS_HEADERS)) res.headers.set(name, value);
  return res;
}

/**
 * Why, for the counts: the receiver's own refusals say so; a thrown store error is the endpoint
 * lookup failing (errorResponse answers it 503), anything else our 500.
 */
function refusalReason(err: unknown): RefusalReason {
  if (err instanceof ReceiverRefusal) return err.reason;
  return isStoreUnreachable(err) ? 'state_store_unreachable' : 'internal';
}

export function receiverHandler(engine: CaptureEngine, config: Config, refusals: ReceiverRefusals): ReceiverHandler {
  return async (request, server) => {
    try {
      const { slug, path, query } = receiverTarget(request.url);
      const body = await readBody(request, config.maxBodyBytes);
      const out = await engine.capture({
        slug,
        method: request.method,
        path,
        query,
        headers: request.headers,
        body,
        ip: clientAddress(request, server, config.trustProxy),
        publicBase: config.receiverUrl,
      });
      return new Response(out.body, { status: out.status, headers: out.headers });
    } catch (err) {
      return receiverError(err, refusals);
    }
  };
}

/**
 * Bun routes for a listener (`serve.routes`): its receiver, or a 404 where there is none. A listener
 * that does not run the receiver still owns /w/: it answers 404 there, never an API route, and
 * counts it (a sender given the API's address instead of RECEIVER_URL).
 */
export function receiverBunRoutes(handler: ReceiverHandler | null, refusals: ReceiverRefusals): Record<'/w' | '/w/*', ReceiverHandler> {
  const noReceiver: ReceiverHandler = async () =>
    receiverError(new ReceiverRefusal('no_receiver', 'this address does not receive webhooks; use the receiver URL (RECEIVER_URL)'), refusals);
  const h = handler ?? noReceiver;
  return { '/w': h, '/w/*': h };
}

/**
 * The receiver in the OpenAPI page. Bun's `/w/*` route answers first, so these only describe it;
 * if they are ever reached they do the same.
 */
export const receiverDocs = (handler: ReceiverHandler) => {
  const detail = {
    tags: ['receiver'],
    summary: 'Capture any request sent to the endpoint',
    // The swagger plugin leaves wildcard paths out, and no OpenAPI path parameter spans slashes.
    description:
      'Any method, any path below the slug (/w/{slug}/any/path?x=1), any body up to MAX_BODY_BYTES. No credential. ' +
      "Answered 200 {ok, id}, or with the endpoint's mock response (its status, headers and body) when it has one; " +
      'every answer carries Content-Security-Policy: sandbox and X-Content-Type-Options: nosniff.',
    security: [],
    responses: documented({
      200: { description: "Captured: the default answer (a mock response answers with its own status and body instead)", schema: ReceiverAck },
      404: { description: 'Error: not_found (unknown, expired or malformed slug); nothing stored. Refusals are counted by reason in /healthz (refusals)', schema: ErrorBody },
      413: { description: 'Error: payload_too_large (body over MAX_BODY_BYTES); nothing stored', schema: ErrorBody },
      429: { description: "Error: quota_exceeded (the account's monthly quota; Retry-After: seconds to the month's end); nothing stored", schema: ErrorBody },
      503: { description: 'Error: unavailable (capture store behind, Retry-After: 1; capture log write failed, or the endpoint not cached and the state store unreachable, Retry-After: 5); nothing stored', schema: ErrorBody },
    }),
  };
  const run = ({ request, server }: { request: Request; server: PeerSource | null }) => handler(request, server);
  return new Elysia().all('/w/:slug', run, { parse: 'none', detail }).all('/w/:slug/*', run, { parse: 'none', detail });
};
