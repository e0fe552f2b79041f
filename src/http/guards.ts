/**
 * Checks every request to the API, the pages and the docs gets before a route sees it (the
 * receiver has its own: src/http/receiver.ts). Each refusal is the usual `{error, code}` JSON,
 * except on the claim and log-in pages (an HTML page) and under `/api/agent/` (the agent API's
 * `{error: "invalid_request", error_description}`, same status).
 *
 * - A declared body over the API's limit is a JSON 413, refused unread; a body without a declared
 *   length is a 411. Up to the drain limit the refused body is still discarded, so a client that
 *   writes it all before reading gets the answer (src/http/body-limit.ts). Bun's own size limit
 *   is set out of reach (app.ts), so no client ever gets its empty 413 instead.
 * - NUL (U+0000) in the URL or in any string or key of a parsed body is a 400: Postgres cannot
 *   store it, and a failed write must not become a 500 (docs/security.md). So is a body nested
 *   deeper than MAX_BODY_DEPTH.
 * - A JSON body that is not an object (`"x"`, `[]`, `5`, `null`) is a 400: every JSON body the API
 *   takes is an object, and Elysia lets the others through (below).
 */
import { Elysia } from 'elysia';
import type { Config } from '../config';
import { AppError } from '../errors';
import { hazardMessage, jsonHazard } from '../unknown';
import { drainLimit, readBounded, readyRefusal } from './body-limit';
import { isAgentRoute } from './errors';
import { pathnameOf } from './request-path';
import { html, page } from './pages/html';

/**
 * The largest body an API route reads: room for a send-test or mock body of MAX_BODY_BYTES in
 * JSON, and never less than 2 MiB.
 */
export const apiBodyLimit = (config: Config): number => Math.max(config.maxBodyBytes * 2, config.maxBodyBytes + 1024 * 1024);

/**
 * A declared length over the limit is refused unread: within the drain limit Bun discards the rest
 * and the connection stays open, past it the connection is closed. A body without a declared
 * length (chunked) would be read whole before any size check could run: it is read and thrown
 * away up to the drain limit, then refused. Either way a sender that writes its whole body before
 * reading the answer gets the refusal, not a broken pipe (src/http/body-limit.ts).
 */
async function refuseUnboundedBody(request: Request, max: number): Promise<void> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    const length = Number(declared);
    if (length > max) throw new AppError('payload_too_large', `request body exceeds the ${max}-byte limit`, (await readyRefusal(request, length, max)) ? { connection: 'close' } : {});
    return;
  }
  if (request.headers.has('transfer-encoding')) {
    throw new AppError('length_required', 'send the body with a Content-Length header (only the receiver takes chunked bodies)', (await drained(request, max)) ? {} : { connection: 'close' });
  }
}

/**
 * Reads a refused chunked body to its end, within the drain limit; false when the connection must
 * close instead: past the limit or on a read error. (Bun answers `Expect: 100-continue` itself, so
 * such a client sends its body too.)
 */
async function drained(request: Request, max: number): Promise<boolean> {
  if (!request.body) return false;
  try {
    return (await readBounded(request.body, 0, drainLimit(max))).whole;
  } catch {
    return false;
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

const JSON_TYPE = /^application\/(?:[\w.+-]*\+)?json\s*(?:;|$)/i;

/**
 * Every JSON body the API takes is an object. Elysia does not refuse the others by itself: it
 * merges a schema's defaults into whatever arrived (`Object.assign({}, "nope")` is an object) and
 * checks an optional body only when it is a non-empty object, so `"nope"`, `[]` or `5` passed as
 * `{}`: a PATCH that changed nothing answered 200, and a key was made. Raw-text routes (the agent
 * API and its pages) read and refuse their bodies themselves, in their own shapes.
 */
function refuseNonObjectJson(request: Request, body: unknown): void {
  if (body === undefined || (typeof body === 'object' && body !== null && !Array.isArray(body))) return;
  if (!JSON_TYPE.test(request.headers.get('content-type') ?? '')) return;
  const got = body === null ? 'null' : Array.isArray(body) ? 'an array' : `a ${typeof body}`;
  throw new AppError('validation', `the request body must be a JSON object, got ${got}`);
}

/** The server-rendered pages people open (src/http/pages/): their refusals are HTML pages. */
const isHumanPage = (pathname: string): boolean => /^\/agent\/(?:claim|login|signup)(?:\/|$)/.test(pathname);


/**
 * A guard's refusal in the shape of the route it stopped: an HTML page for a person's page, the
 * SPEC 7.2 `{error: "invalid_request", error_description}` (same status) under `/api/agent/`,
 * and the usual `{error, code}` everywhere else (thrown to the error handler).
 */
function refusal(request: Request, e: AppError): Response {
  if (isHumanPage(pathnameOf(request.url))) {
    return page('Bad request', html`<h1>This address cannot be opened</h1><p class="error" role="alert" data-code="${e.code}">${e.message}.</p>
<p><a href="/agent/claim">Enter an agent's code</a></p>`, e.status, e.headers);
  }
  if (isAgentRoute(request)) {
    return new Response(JSON.stringify({ error: 'invalid_request', error_description: e.message }), {
      status: e.status,
      headers: { 'content-type': 'application/json', 'cache-control': 'no-store', ...e.headers },
    });
  }
  throw e;
}

export const requestGuards = (config: Config) => {
  const maxBody = apiBodyLimit(config);
  return new Elysia({ name: 'request-guards' })
    .onRequest(async ({ request }) => {
      try {
        await refuseUnboundedBody(request, maxBody);
        refuseNulInUrl(request);
      } catch (e) {
        if (!(e instanceof AppError)) throw e;
        return refusal(request, e);
      }
    })
    // After parsing, before validation and every handler.
    .onTransform({ as: 'global' }, ({ request, body }) => {
      if (body !== undefined && !isAgentRoute(request) && !isHumanPage(pathnameOf(request.url))) refuseNonObjectJson(request, body);
      refuseHazardsInBody(body);
    });
};
