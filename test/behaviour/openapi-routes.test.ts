/**
 * The OpenAPI document (/docs/json) against the routes the server registered (the service's own
 * route table, not a list kept here): every operation it names is a route the server has, with
 * that method; every /api route is in it, except the routes that only refuse, saying where to go
 * (405 "use POST" on the agent routes, 404 for a guessed route); the operator API (/admin/api) is not. The receiver's entry lists the
 * refusals it really answers, /healthz documents its report and /metrics (METRICS_TOKEN set) its
 * text format and refusal. A route added hidden, with a
 * wildcard path (which the swagger plugin drops) or under a new method shows up here.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startInProcess, stopInProcess, type InProcessServer } from '../support/in-process';
import { SUITE_START_MS } from '../support/server';

interface Operation {
  description?: string;
  responses?: Record<string, { content?: Record<string, { schema?: { properties?: Record<string, unknown>; required?: string[] } }> }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

const METHODS = ['GET', 'PUT', 'POST', 'DELETE', 'PATCH', 'HEAD', 'OPTIONS', 'TRACE'];
/** `/api/teams/{teamId}` and `/api/teams/:teamId` alike. */
const same = (path: string) => path.replace(/\{([^}]+)\}/g, ':$1');

let s: InProcessServer;
let doc: Doc;
// ADMIN_TOKEN set, so the operator API is mounted and can be seen not to be documented;
// METRICS_TOKEN set, so /metrics is mounted and can be seen to be.
const METRICS_TOKEN = 'openapi-routes-metrics-token-0123456789';
beforeAll(async () => {
  s = await startInProcess({ env: { ADMIN_TOKEN: 'openapi-routes-admin-token-0123456789', METRICS_TOKEN } });
  doc = (await (await fetch(`${s.url}/docs/json`)).json()) as Doc;
}, SUITE_START_MS);
afterAll(async () => {
  if (s) await stopInProcess(s);
}, SUITE_START_MS);

/** Every `METHOD path` the server answers by a route of its own (ALL expanded). */
function registered(): Set<string> {
  const out = new Set<string>();
  for (const r of s.service.routes) for (const m of r.method === 'ALL' ? METHODS : [r.method]) out.add(`${m} ${r.path}`);
  return out;
}

function documented(): Set<string> {
  const out = new Set<string>();
  for (const [path, ops] of Object.entries(doc.paths)) for (const m of Object.keys(ops)) out.add(`${m.toUpperCase()} ${same(path)}`);
  return out;
}

test('every operation in /docs/json is a route the server registered, with that method', () => {
  const routes = registered();
  expect([...documented()].filter((op) => !routes.has(op))).toEqual([]);
});

test('every /api route the server registered is in /docs/json, except routes that only refuse, saying where to go (404, 405 "use POST")', async () => {
  const ops = documented();
  const missing: string[] = [];
  const pointers: string[] = [];
  for (const r of s.service.routes) {
    if (!r.path.startsWith('/api/')) continue;
    const op = `${r.method} ${r.path}`;
    if (ops.has(op)) continue;
    // A hidden route that answers only a refusal saying where to go instead (a GET or PUT to a
    // POST-only agent route, an agent's guessed route, the bare /api/): 404 or 405 with words.
    const method = r.method === 'ALL' ? 'PUT' : r.method;
    const res = await fetch(`${s.url}${r.path.replace('*', 'guessed')}`, { method, headers: { 'content-type': 'application/json' }, body: method === 'GET' ? undefined : '{}' });
    const body = (await res.json().catch(() => ({}))) as { error?: string; error_description?: string };
    const words = body.error_description ?? body.error ?? '';
    if ((res.status === 404 || res.status === 405) && words.length > 20) {
      pointers.push(op);
      continue;
    }
    missing.push(op);
  }
  expect(missing).toEqual([]);
  // The agent routes' method helpers (SPEC 4.8 agents sometimes GET them first) and /api/ itself.
  expect(pointers).toContain('ALL /api/agent/auth');
  expect(pointers).toContain('ALL /api/');
  expect(ops.size).toBeGreaterThan(60);
});

const DESCRIBED = 'the API is described at /docs (JSON at /docs/json)';

test('a path under /api that is no route: 404 saying what was asked and where the API is described', async () => {
  const asks = [
    ['GET', '/api/endpointz'],
    ['POST', '/api/endpoints/abc/nope'],
    ['DELETE', '/api//endpoints'],
    ['GET', '/api/agentx'],
    ['PATCH', '/api/search'],
  ] as const;
  for (const [method, path] of asks) {
    // Without a credential: which routes exist is in the public document anyway.
    const res = await fetch(`${s.url}${path}`, { method });
    const body = await res.json();
    expect({ method, path, status: res.status, allow: res.headers.get('allow'), body }).toEqual({
      method,
      path,
      status: 404,
      allow: null,
      body: { error: `no route ${method} ${path}; ${DESCRIBED}`, code: 'not_found' },
    });
  }
  // /api itself, whatever the method, says where the routes are (src/http/well-known.ts).
  const root = (await (await fetch(`${s.url}/api/`, { method: 'POST' })).json()) as { error: string };
  expect(root.error).toContain('/docs/json');
});

test('an /api route under a method it lacks: 405 with Allow, the methods the route table has for that path', async () => {
  // Each registered path with its parameters filled in, and its methods (the agent API answers its own).
  const methodsOf = new Map<string, Set<string>>();
  const apiRoutes = s.service.routes.filter((r) => r.path.startsWith('/api/') && !r.path.startsWith('/api/agent/') && r.method !== 'ALL');
  for (const r of apiRoutes) methodsOf.set(r.path.replace(/:[^/]+/g, 'x1'), new Set());
  // A path answers the methods of every route whose pattern takes it: /api/endpoints/activity
  // (GET) is also /api/endpoints/:slug, whose PATCH and DELETE are routed there too.
  const takes = (pattern: string, path: string) => new RegExp(`^${pattern.replace(/:[^/]+/g, '[^/]+')}$`).test(path);
  for (const [path, methods] of methodsOf) for (const r of apiRoutes) if (takes(r.path, path)) methods.add(r.method);
  expect(methodsOf.size).toBeGreaterThan(30);
  for (const [path, methods] of methodsOf) {
    const method = ['PUT', 'PATCH', 'DELETE', 'POST', 'GET'].find((m) => !methods.has(m)) ?? 'TRACE';
    const allow = [...methods, ...(methods.has('GET') ? ['HEAD'] : [])].sort().join(', ');
    const res = await fetch(`${s.url}${path}`, { method });
    const body = await res.json();
    expect({ method, path, status: res.status, allow: res.headers.get('allow'), body }).toEqual({
      method,
      path,
      status: 405,
      allow,
      body: { error: `no route ${method} ${path}: ${path} answers ${allow}; ${DESCRIBED}`, code: 'method_not_allowed' },
    });
  }
});

test('the operator API is mounted (ADMIN_TOKEN set) and left out of /docs/json', () => {
  expect(s.service.routes.some((r) => r.path.startsWith('/admin/api/'))).toBe(true);
  expect(Object.keys(doc.paths).filter((p) => p.startsWith('/admin'))).toEqual([]);
});

test("the receiver's entry lists what it answers, each refusal with the shared error schema; any path below the slug is said", async () => {
  const entry = doc.paths['/w/{slug}'];
  expect(Object.keys(entry ?? {}).sort()).toEqual(METHODS.map((m) => m.toLowerCase()).sort());
  const post = entry?.post;
  // What a sender really gets: an unknown slug, a body over MAX_BODY_BYTES (1 MiB here).
  const unknown = await fetch(`${s.url}/w/aaaaaaaaaaaa/x`, { method: 'POST', body: 'x' });
  const large = await fetch(`${s.url}/w/aaaaaaaaaaaa`, { method: 'POST', body: new Uint8Array(1024 * 1024 + 1) });
  expect([unknown.status, large.status]).toEqual([404, 413]);
  for (const status of ['404', '413', '429', '503']) {
    const schema = post?.responses?.[status]?.content?.['application/json']?.schema;
    expect(schema?.required ?? [], `POST /w/{slug} ${status}`).toContain('error');
  }
  const ok = post?.responses?.['200']?.content?.['application/json']?.schema;
  expect(ok?.required).toEqual(expect.arrayContaining(['ok', 'id']));
  // OpenAPI has no path parameter that spans slashes: the rest of the path is said in words.
  expect(post?.description ?? '').toContain('/w/{slug}/');
});

test('/healthz documents its report: the same fields it answers', async () => {
  const schema = doc.paths['/healthz']?.get?.responses?.['200']?.content?.['application/json']?.schema;
  const report = (await (await fetch(`${s.url}/healthz`)).json()) as Record<string, unknown>;
  expect(Object.keys(schema?.properties ?? {}).sort()).toEqual(Object.keys(report).sort());
  expect(schema?.required).toEqual(expect.arrayContaining(['ok', 'status', 'roles', 'backends']));
});

test('/metrics (METRICS_TOKEN set) is documented as what it answers: the text format 0.0.4 behind the bearer token, or a JSON 401', async () => {
  const op = doc.paths['/metrics']?.get as (Operation & { security?: unknown[] }) | undefined;
  const type = 'text/plain; version=0.0.4; charset=utf-8';
  expect(Object.keys(op?.responses ?? {}).sort()).toEqual(['200', '401']);
  expect(Object.keys(op?.responses?.['200']?.content ?? {})).toEqual([type]);
  expect(op?.responses?.['401']?.content?.['application/json']?.schema?.required).toEqual(['error']);
  // Not marked public, as /healthz is: the document's bearer scheme applies.
  expect(op?.security).toBeUndefined();
  const ok = await fetch(`${s.url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
  expect([ok.status, ok.headers.get('content-type')]).toEqual([200, type]);
  expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
});
