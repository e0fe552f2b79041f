/** The one place errors become HTTP: AppError by its code, framework errors by kind. */
import { Elysia } from 'elysia';
import { AppError } from '../errors';
import { describeError, log } from '../log';
import { validationMessage } from './validation-message';

function json(status: number, body: unknown, headers: Record<string, string> = {}): Response {
  return new Response(JSON.stringify(body), {
    status,
    headers: { 'content-type': 'application/json', ...headers },
  });
}

/** Under `/api/agent/`: the agent API, whose refusals are SPEC 7.2's `{error, error_description}`. */
export function isAgentRoute(request: Request): boolean {
  // `request.url` is the bare path when the Host header is empty or unusable (src/http/receiver.ts).
  const url = request.url;
  const path = url.charCodeAt(0) === 47 ? 0 : url.indexOf('/', url.indexOf('://') + 3);
  return path >= 0 && url.startsWith('/api/agent/', path);
}

/**
 * A capture-API 429 (`rate_limited_api`) as the route answers its own refusals: under `/api/agent/`
 * the agent API's `{error: "rate_limited", error_description}` with no-store (docs/agents.md, as
 * the request guards' 413 and 411 there), elsewhere unchanged.
 */
export function rateLimitForRoute(request: Request, e: AppError): AppError {
  if (e.code !== 'rate_limited_api' || !isAgentRoute(request)) return e;
  return new AppError('rate_limited', e.message, { ...e.headers, 'cache-control': 'no-store' });
}

/**
 * Renders any thrown value as `{error}` JSON with the SPEC 7 status. Only our own 5xx is logged as
 * an error: not a store that is down (logged where it is found), nor a caller's replay target that
 * did not answer (`bad_gateway`: the caller's trouble, told to the caller, and its host is theirs),
 * nor `temporarily_unavailable`, the agent API asking to be retried: load shed on purpose
 * (AGENT_MAX_PENDING) or a mailer or an issuer's keys out of reach. That one is a warning, so an
 * operator still sees shedding without being paged for it.
 */
export function errorResponse(err: unknown, code?: string | number): Response {
  if (err instanceof AppError) {
    if (err.code === 'temporarily_unavailable') log.warn('request refused for now; the caller may retry', { code: err.code, error: err.message, ...err.logFields });
    else if (err.status >= 500 && err.code !== 'unavailable' && err.code !== 'bad_gateway') log.error('request failed', { code: err.code, error: err.message, ...err.logFields });
    return json(err.status, err.toJSON(), err.headers);
  }
  switch (code) {
    case 'VALIDATION': {
      const detail = validationMessage(err);
      return json(400, { error: detail, code: 'validation' });
    }
    case 'PARSE':
      // A parse hook's own refusal (the auth macro's 401, src/http/auth.ts), wrapped by Elysia.
      if (err instanceof Error && err.cause instanceof AppError) return errorResponse(err.cause);
      return json(400, { error: 'request body is not valid for its content type', code: 'validation' });
    case 'NOT_FOUND':
      return json(404, { error: 'not found', code: 'not_found' });
    case 'INVALID_COOKIE_SIGNATURE':
      return json(401, { error: 'invalid session cookie', code: 'unauthorized' });
  }
  if (isValidationMessageCrash(err)) {
    return json(400, { error: 'a field has the wrong type (an object where text or a number is expected)', code: 'validation' });
  }
  if (isStoreUnreachable(err)) {
    // Postgres or ClickHouse is down or restarting: the caller may retry; it is not our bug.
    log.warn('data store unreachable', { error: describeError(err) });
    return json(503, { error: 'a service this request depends on (a data store) is unavailable; retry shortly', code: 'unavailable' }, { 'retry-after': String(STORE_RETRY_AFTER_S) });
  }
  if (isUnstorableText(err)) {
    // A backstop: the request guards refuse NUL before any write (src/http/guards.ts).
    return json(400, { error: 'a value could not be stored: text must not contain NUL (\\u0000) or invalid characters', code: 'validation' });
  }
  // Never the error's SQL parameters or the request's body (src/log.ts).
  log.error('unhandled error', { error: describeError(err) });
  return json(500, { error: 'internal server error', code: 'internal' });
}

/** Seconds a caller is asked to wait when a store cannot be reached (a restart takes a few). */
const STORE_RETRY_AFTER_S = 5;

/**
 * Codes of a store that cannot be reached: socket errors (node and Bun spellings), postgres.js's
 * own connection errors, and Postgres refusing work while it shuts down or starts (57P01–57P03).
 */
const UNREACHABLE = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ConnectionRefused',
  'ConnectionClosed',
  'CONNECTION_CLOSED',
  'CONNECTION_ENDED',
  'CONNECTION_DESTROYED',
  'CONNECT_TIMEOUT',
  '57P01',
  '57P02',
  '57P03',
]);

/** A store that could not be reached (on the error or a cause, as drizzle and clients wrap it), or SQLSTATE class 08. */
export function isStoreUnreachable(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 4 && typeof e === 'object' && e !== null; depth++) {
    if ('code' in e && typeof e.code === 'string' && (UNREACHABLE.has(e.code) || /^08[0-9A-Z]{3}$/.test(e.code))) return true;
    e = 'cause' in e ? e.cause : undefined;
  }
  return false;
}

/** SQLSTATEs of text Postgres cannot store: NUL in text (22021) or in jsonb (22P05). */
const UNSTORABLE_TEXT = new Set(['22021', '22P05']);

/** A database refusal of the text itself (on the error or, wrapped by drizzle, its cause). */
function isUnstorableText(err: unknown): boolean {
  let e: unknown = err;
  for (let depth = 0; depth < 3 && typeof e === 'object' && e !== null; depth++) {
    if ('code' in e && typeof e.code === 'string' && UNSTORABLE_TEXT.has(e.code)) return true;
    e = 'cause' in e ? e.cause : undefined;
  }
  return false;
}

/**
 * Elysia 1.4 fails while wording its own validation error when the wrong value is an object whose
 * `toString` or `valueOf` is data, not a function (`{"method": {"toString": "x"}}` where text is
 * expected): turning it into text throws a TypeError inside `mapValueError`, before our handler
 * sees a ValidationError. The request was refused by validation all the same, so it is a 400.
 */
function isValidationMessageCrash(err: unknown): boolean {
  return err instanceof TypeError && typeof err.stack === 'string' && err.stack.includes('mapValueError');
}

export const errorHandler = new Elysia({ name: 'errors' }).onError({ as: 'global' }, ({ error, code }) =>
  errorResponse(error, code),
);
