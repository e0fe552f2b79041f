/**
 * Checks every request to the API, the pages and the docs gets before a route sees it (the
 * receiver has its own: src/http/receiver.ts). Each refusal is the usual `{error, code}` JSON.
 *
 * - A declared body over the API's limit is a JSON 413, refused unread (the connection is then
 *   closed rather than drained); a body without a declared length is a 411. Bun's own size limit
 *   is set out of reach (app.ts), so no client ever gets its empty 413 instead.
 * - NUL (U+0000) in the URL or in any string or key of a parsed body is a 400: Postgres cannot
 *   store it, and a failed write must not become a 500 (docs/security.md). So is a body nested
 *   deeper than MAX_BODY_DEPTH.
 */
import { Elysia } from 'elysia';
import type { Config } from '../config';
import { AppError } from '../errors';
import { hazardMessage, jsonHazard } from '../unknown';

/**
 * The largest body an API route reads: room for a send-test or mock body of MAX_BODY_BYTES in
 * JSON, and never less than 2 MiB.
 */
export const apiBodyLimit = (config: Config): number => Math.max(config.maxBodyBytes * 2, config.maxBodyBytes + 1024 * 1024);

function refuseUnboundedBody(request: Request, max: number): void {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > max) throw new AppError('payload_too_large', `request body exceeds the ${max}-byte limit`, { connection: 'close' });
    return;
  }
  // A chunked body would be read whole before any size check could run.
  if (request.headers.has('transfer-encoding')) {
    throw new AppError('length_required', 'send the body with a Content-Length header (only the receiver takes chunked bodies)', { connection: 'close' });
  }
}

function refuseNulInUrl(request: Request): void {
  // Path and query are still percent-encoded here; a raw NUL byte never passes Bun's parser.
  if (request.url.includes('%00')) throw new AppError('validation', 'the URL must not contain NUL (%00)');
}

/** Deeper than any body the API takes; past it, validation's error report could overflow the stack. */
export const MAX_BODY_DEPTH = 32;

function refuseHazardsInBody(body: unknown): void {
  // Raw-text bodies (agent flows, pages, the Stripe webhook) are checked where they are parsed,
  // so each answers in its own error shape (services/agent/input.ts, services/auth.ts).
  if (typeof body !== 'object' || body === null) return;
  const hazard = jsonHazard(body, MAX_BODY_DEPTH);
  if (hazard) throw new AppError('validation', hazardMessage(hazard, MAX_BODY_DEPTH));
}

export const requestGuards = (config: Config) => {
  const maxBody = apiBodyLimit(config);
  return new Elysia({ name: 'request-guards' })
    .onRequest(({ request }) => {
      refuseUnboundedBody(request, maxBody);
      refuseNulInUrl(request);
    })
    // After parsing, before validation and every handler.
    .onTransform({ as: 'global' }, ({ body }) => refuseHazardsInBody(body));
};
