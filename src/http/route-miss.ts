/**
 * A request under /api that no route answers (the agent API's own, under /api/agent/, say where
 * agents start instead: src/http/api/agent.ts). A path that is a route under other methods is 405
 * with `Allow`; any other is 404. Both say what was asked and where the API is described, so a
 * caller with a typo or a wrong method (a person with curl, an agent guessing) can put it right
 * from the answer alone: `no route GET /api/endpointz; the API is described at /docs (JSON at
 * /docs/json)`. Worked out from the routes the server registered, so it cannot drift from them.
 * Outside /api, a page miss: a browser gets the dashboard's "Page not found" (status 404), anything
 * else `no page GET /nope; the dashboard is at /, the API at /api (described at /docs)`.
 *
 * @example
 * app.all('*', routeMiss(() => app.routes))
 */
import { AppError } from '../errors';
import { errorResponse } from './errors';
import { pathnameOf, shortPath } from './request-path';

export interface RouteEntry {
  readonly method: string;
  readonly path: string;
}

const DESCRIBED = 'the API is described at /docs (JSON at /docs/json)';

/** Whether `path` is an /api path, where a miss is a route miss (elsewhere, a page miss). */
export function isApiPath(path: string): boolean {
  return path === '/api' || path.startsWith('/api/');
}

/**
 * Whether an Elysia route pattern matches `path`: `:name` is one non-empty segment, a final `*`
 * any rest. A trailing slash is ignored, as Elysia's router ignores it.
 */
export function patternMatches(pattern: string, path: string): boolean {
  const want = trimSlash(pattern).split('/');
  const got = trimSlash(path).split('/');
  for (let i = 0; i < want.length; i++) {
    const w = want[i] ?? '';
    if (w === '*' && i === want.length - 1) return true;
    const g = got[i];
    if (g === undefined) return false;
    if (w.startsWith(':') ? g === '' : w !== g) return false;
  }
  return want.length === got.length;
}

function trimSlash(p: string): string {
  return p.length > 1 && p.endsWith('/') ? p.slice(0, -1) : p;
}

/**
 * The methods some route answers `path` with, in order, HEAD with GET (Bun answers a HEAD with the
 * GET route). `ALL` routes are left out: one that matched would have answered already, so one seen
 * here is a catch-all, which answers nothing of its own.
 */
export function allowedMethods(routes: readonly RouteEntry[], path: string): string[] {
  const methods = new Set<string>();
  for (const r of routes) {
    if (r.method === 'ALL' || !patternMatches(r.path, path)) continue;
    methods.add(r.method);
    if (r.method === 'GET') methods.add('HEAD');
  }
  return [...methods].sort();
}

/** The refusal for a request no route answered, or null when it is not under /api. */
export function routeMissError(routes: readonly RouteEntry[], method: string, path: string): AppError | null {
  if (!isApiPath(path)) return null;
  const asked = `${method} ${shortPath(path)}`;
  const allow = allowedMethods(routes, path);
  if (allow.length === 0) return new AppError('not_found', `no route ${asked}; ${DESCRIBED}`);
  return new AppError('method_not_allowed', `no route ${asked}: ${shortPath(path)} answers ${allow.join(', ')}; ${DESCRIBED}`, { allow: allow.join(', ') });
}

/** The bare 404 of a receiver-only listener's non-/w paths: that listener has no pages and no API to point at. */
export const notFound = (): Response => errorResponse(new AppError('not_found', 'not found'));

/**
 * The refusal for a path outside /api that is no route on the API listener, worded as an /api miss
 * is: what was asked, and where the dashboard (when this node serves it) and the API are.
 *
 * @example pageMissError('GET', '/nope', true).message // "no page GET /nope; the dashboard is at /, the API at /api (described at /docs)"
 */
export function pageMissError(method: string, path: string, dashboard: boolean): AppError {
  const where = dashboard ? 'the dashboard is at /, the API at /api (described at /docs)' : 'the API is at /api (described at /docs)';
  return new AppError('not_found', `no page ${method} ${shortPath(path)}; ${where}`);
}

/** Whether a request is a browser's page load: a GET or HEAD that takes HTML. */
export function wantsPage(request: Request): boolean {
  return (request.method === 'GET' || request.method === 'HEAD') && /\btext\/html\b/i.test(request.headers.get('accept') ?? '');
}

/**
 * The catch-all handler: `routes` is read at the first miss, once every route is registered. Not
 * under /api: a browser's page load gets `page(request)` (the dashboard's own page, status 404, so
 * a mistyped dashboard address shows its "Page not found" view), anything else `pageMissError`.
 * `page` is null on a node that serves no dashboard.
 */
export function routeMiss(routes: () => readonly RouteEntry[], page: ((request: Request) => Response) | null = null): (c: { request: Request }) => Response {
  let table: readonly RouteEntry[] | null = null;
  return ({ request }) => {
    table ??= routes().map((r) => ({ method: r.method, path: r.path }));
    const path = pathnameOf(request.url);
    const e = routeMissError(table, request.method, path);
    if (e) return errorResponse(e);
    if (page && wantsPage(request)) return page(request);
    return errorResponse(pageMissError(request.method, path, page !== null));
  };
}
