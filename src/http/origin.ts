/**
 * Cross-site request refusal for requests a browser authenticates by itself (the `session`
 * cookie) and for the two routes that set it (sign-up, log-in). A bearer key is never sent by a
 * browser on its own, so bearer calls (scripts, the CLI) are not checked.
 *
 * Policy (docs/security.md): a state-changing request (not GET, HEAD or OPTIONS) is refused when
 * the browser says it comes from another site — `Sec-Fetch-Site` other than `same-origin` (or
 * `none`, a user's own action) — or, from a browser that does not send Sec-Fetch-Site, when
 * `Origin` is neither BASE_URL's origin nor the origin the request was addressed to. A request
 * with neither header is not from a browser and passes. A body must be JSON: HTML forms cannot
 * send `application/json` across sites, and a `text/plain` form can be made to look like JSON.
 */
import { AppError } from '../errors';

const SAFE_METHODS = new Set(['GET', 'HEAD', 'OPTIONS']);

export const isSafeMethod = (method: string): boolean => SAFE_METHODS.has(method);

const origins = new Map<string, string>();

/** BASE_URL's origin ("https://host[:port]"), parsed once per distinct BASE_URL. */
function originOf(baseUrl: string): string {
  let origin = origins.get(baseUrl);
  if (origin === undefined) {
    origin = new URL(baseUrl).origin;
    origins.set(baseUrl, origin);
  }
  return origin;
}

/** Whether a browser sent this request from a page of this same site (see the policy above). */
export function isSameOrigin(request: Request, baseUrl: string): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null) return site === 'same-origin' || site === 'none';
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  if (origin === originOf(baseUrl)) return true;
  // The origin the browser addressed: same host as the Host header (DNS rebinding gains nothing
  // here, since the browser keeps our cookies for our own host name only).
  const host = request.headers.get('host');
  try {
    return host !== null && new URL(origin).host === host;
  } catch {
    // "null" (sandboxed documents, such as a mock response) and anything unparsable.
    return false;
  }
}

/** The body's media type, lower-cased without parameters; "" when there is none. */
export function mediaTypeOf(request: Request): string {
  return (request.headers.get('content-type') ?? '').split(';')[0]?.trim().toLowerCase() ?? '';
}

/** Whether the request carries a body (declared or chunked). */
export function hasBody(request: Request): boolean {
  const length = request.headers.get('content-length');
  if (length !== null) return length.trim() !== '0';
  return request.headers.has('transfer-encoding');
}

/**
 * Throws unless a browser-authenticated request may change state: same origin, and any body is
 * JSON. Safe methods pass.
 */
export function assertSameOriginJson(request: Request, baseUrl: string, opts: { bodyRequired?: boolean } = {}): void {
  if (isSafeMethod(request.method)) return;
  if (!isSameOrigin(request, baseUrl)) {
    throw new AppError('forbidden', 'cross-site request refused: a browser session may only be used from this site (use an API key from scripts)');
  }
  if ((opts.bodyRequired || hasBody(request)) && mediaTypeOf(request) !== 'application/json') {
    throw new AppError('unsupported_media_type', 'send the body as JSON (Content-Type: application/json)');
  }
}
