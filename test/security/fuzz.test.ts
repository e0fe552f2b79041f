/**
 * Property-based fuzz (fast-check) of every JSON route the OpenAPI document lists and of the
 * receiver, with hostile input: wrong types, huge and deeply nested values, NULs, unicode and lone
 * surrogates, prototype-named keys, odd and missing content types, junk credentials and cookies,
 * hostile path and query parameters. Properties: never a 5xx; every error is JSON of the documented
 * shape; the receiver stores what it acknowledged byte for byte; afterwards every read still
 * answers. Bounded: FUZZ_API_RUNS (300) and FUZZ_RECEIVER_RUNS (150) cases per backend; a failure
 * prints the seed and the shrunk case (replay with FUZZ_SEED).
 */
import { expect, test } from 'bun:test';
import fc from 'fast-check';
import type { Capture } from '../../src/model/capture';
import { call, eventually, newAccount, type OpenApiDoc } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import { AGENT_ENV } from '../behaviour/agent-support';
import { paidTeam, TEAMS_ENV } from '../behaviour/teams-support';
import { accountWithEndpoint, captured } from './support';

const API_RUNS = Number(process.env.FUZZ_API_RUNS ?? 300);
const RECEIVER_RUNS = Number(process.env.FUZZ_RECEIVER_RUNS ?? 150);
const SEED = process.env.FUZZ_SEED ? Number(process.env.FUZZ_SEED) : undefined;

/** Routes the fuzzer leaves alone: they would end its own session or account, not test input handling. */
const SKIPPED = new Set(['DELETE /api/account', 'POST /api/auth/logout']);

const PROTO_KEYS = ['__proto__', 'constructor', 'prototype', 'toString', 'hasOwnProperty', 'valueOf', '__defineGetter__'];
const FIELD_NAMES = [
  'name', 'email', 'password', 'mockResponse', 'notificationUrl', 'signing', 'slug', 'method', 'headers', 'body', 'bodyEncoding',
  'endpointId', 'claim_token', 'user_code', 'otp', 'type', 'identity_type', 'client_name', 'requested_credential_type', 'status',
  'provider', 'secret', 'header', 'algorithm', 'encoding', 'prefix', 'toleranceSeconds', 'url', 'limit', 'cursor', 'format', 'expiresIn',
];

const hostileText = fc.oneof(
  fc.string(),
  fc.string({ unit: 'binary', maxLength: 40 }),
  fc.string({ unit: 'grapheme-composite', maxLength: 20 }),
  fc.constantFrom(
    '', ' ', '\u0000', 'a\u0000b', '%00', '%', '%ZZ', '..', '../../api/endpoints', '\uFEFF', '\uD800', '🎉', '<script>alert(1)</script>',
    "' OR 1=1 --", '${x}', 'null', 'undefined', '-1', '0', '1e309', 'NaN', 'true', '[]', '{}', 'a'.repeat(5_000), 'é'.repeat(300),
    'svc_x', 'ses_x', 'clm_x', 'req_01M855PJXKCBPQEAPA30A0TTNJ', 'stripe', 'hmac', 'anonymous', 'verified_email', 'api_key',
    'http://127.0.0.1:1/x', 'javascript:alert(1)', 'GET', 'FOO', 'har', 'ndjson', 'curl', 'raw',
  ),
  ...PROTO_KEYS.map((k) => fc.constant(k)),
);
const hostileKey = fc.oneof(fc.constantFrom(...FIELD_NAMES, ...PROTO_KEYS), hostileText);

/** Any JSON value, with hostile strings and keys, nested a little or very deep. */
const { value: hostileJson } = fc.letrec<{ value: unknown }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    hostileText,
    fc.oneof(fc.integer(), fc.double(), fc.boolean(), fc.constant(null), fc.constantFrom(2 ** 63, -1, 1e19, Number.MAX_SAFE_INTEGER)),
    fc.array(tie('value'), { maxLength: 5 }),
    fc.dictionary(hostileKey, tie('value'), { maxKeys: 6 }),
    fc.constant(deepArray(5_000)),
  ),
}));

function deepArray(depth: number): unknown {
  let v: unknown = 'deep';
  for (let i = 0; i < depth; i++) v = [v];
  return v;
}

/** Objects shaped like the routes' bodies (their field names) with hostile values, or anything. */
const jsonBody = fc.oneof(
  fc.dictionary(fc.constantFrom(...FIELD_NAMES, ...PROTO_KEYS), hostileJson, { maxKeys: 5 }),
  fc.record({ mockResponse: fc.record({ status: fc.oneof(fc.integer({ min: 100, max: 700 }), hostileJson), body: hostileJson, headers: fc.dictionary(hostileKey, hostileJson, { maxKeys: 4 }) }) }),
  fc.record({ signing: fc.record({ provider: fc.constantFrom('stripe', 'hmac', 'github', 'nope'), secret: hostileJson, header: hostileJson, algorithm: hostileJson, encoding: hostileJson }) }),
  fc.record({ slug: hostileJson, method: hostileJson, headers: fc.dictionary(hostileKey, hostileText, { maxKeys: 4 }), body: hostileJson }),
  hostileJson,
);

/** What travels on the wire: a JSON body, raw text under an odd content type, or nothing. */
const bodyArb = fc.oneof(
  jsonBody.map((v) => ({ type: 'application/json', text: safeStringify(v) })),
  fc.record({
    type: fc.constantFrom(
      'text/plain', 'application/x-www-form-urlencoded', 'multipart/form-data', 'multipart/form-data; boundary=x', 'application/xml',
      'application/jwt', 'application/logout+jwt', 'application/json', 'application/json; charset=utf-16', 'application/octet-stream', '',
    ),
    text: fc.oneof(hostileText, fc.constantFrom('{', '{"a":', '[1,2', 'a=1&a=2&__proto__[x]=1', '--x\r\n\r\n', '<a>&xxe;</a>', 'eyJhbGciOiJub25lIn0.e30.')),
  }),
  fc.constant(null),
);

function safeStringify(v: unknown): string {
  try {
    return JSON.stringify(v) ?? 'null';
  } catch {
    // Too deep for JSON.stringify's stack: send it as a string of brackets instead.
    return `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
  }
}

type Auth = 'key' | 'bearer-session' | 'cookie' | 'none' | 'junk-bearer' | 'junk-cookie' | 'agent-key';

interface Case {
  route: { method: string; path: string };
  params: Record<string, string>;
  query: [string, string][];
  body: { type: string; text: string } | null;
  auth: Auth;
}

interface Known {
  /** Valid values for each path parameter name (the fuzzer's own resources and someone else's). */
  params: Record<string, string[]>;
  key: string;
  session: string;
  agentKey: string;
}

function caseArb(routes: { method: string; path: string }[], known: Known): fc.Arbitrary<Case> {
  return fc.record({
    route: fc.constantFrom(...routes),
    params: fc.record({
      slug: fc.oneof(fc.constantFrom(...(known.params.slug ?? ['x'])), hostileText),
      id: fc.oneof(fc.constantFrom(...(known.params.id ?? ['x'])), hostileText),
      teamId: fc.oneof(fc.constantFrom(...(known.params.teamId ?? ['x'])), hostileText),
      endpointId: fc.oneof(fc.constantFrom(...(known.params.endpointId ?? ['x'])), hostileText),
      inviteId: hostileText,
      userId: fc.oneof(fc.constantFrom(...(known.params.userId ?? ['x'])), hostileText),
    }),
    query: fc.array(fc.tuple(fc.oneof(fc.constantFrom('limit', 'cursor', 'slug', 'q', 'from', 'to', 'offset', 'order', 'method', 'format', 'id'), hostileKey), hostileText), { maxLength: 4 }),
    body: bodyArb,
    auth: fc.constantFrom<Auth>('key', 'key', 'key', 'bearer-session', 'cookie', 'none', 'junk-bearer', 'junk-cookie', 'agent-key'),
  });
}

/** Percent-encodes text as UTF-8; a lone surrogate (which encodeURIComponent refuses) becomes U+FFFD. */
function pct(text: string): string {
  return Array.from(new TextEncoder().encode(text), (b) => (/[A-Za-z0-9_.~-]/.test(String.fromCharCode(b)) ? String.fromCharCode(b) : `%${b.toString(16).toUpperCase().padStart(2, '0')}`)).join('');
}

function pathOf(template: string, params: Record<string, string>): string {
  return template.replace(/\{(\w+)\}/g, (_, name: string) => pct(params[name] ?? 'x'));
}

function headersFor(c: Case, known: Known, base: string): Record<string, string> {
  const headers: Record<string, string> = {};
  if (c.auth === 'key') headers.authorization = `Bearer ${known.key}`;
  if (c.auth === 'bearer-session') headers.authorization = `Bearer ${known.session}`;
  if (c.auth === 'agent-key') headers.authorization = `Bearer ${known.agentKey}`;
  if (c.auth === 'junk-bearer') headers.authorization = 'Bearer svc_AAAA%ZZ';
  if (c.auth === 'cookie') Object.assign(headers, { cookie: `session=${known.session}`, origin: base, 'sec-fetch-site': 'same-origin' });
  if (c.auth === 'junk-cookie') headers.cookie = 'session=%ZZ%; a=%E0';
  if (c.body && c.body.type !== '') headers['content-type'] = c.body.type;
  return headers;
}

interface Outcome {
  status: number;
  contentType: string;
  text: string;
}

async function send(base: string, c: Case, known: Known): Promise<Outcome> {
  const qs = c.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&');
  const url = `${base}${pathOf(c.route.path, c.params)}${qs ? `?${qs}` : ''}`;
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), 20_000);
  try {
    const hasBody = c.body !== null && c.route.method !== 'GET' && c.route.method !== 'HEAD';
    const res = await fetch(url, { method: c.route.method, headers: headersFor(c, known, base), body: hasBody ? c.body?.text : undefined, signal: abort.signal, redirect: 'manual' });
    const contentType = res.headers.get('content-type') ?? '';
    // A live stream that opened: its headers are the answer.
    if (contentType.startsWith('text/event-stream')) {
      abort.abort();
      return { status: res.status, contentType, text: '' };
    }
    return { status: res.status, contentType, text: await res.text() };
  } finally {
    clearTimeout(timer);
  }
}

/** The documented error shapes: `{error, code}` (capture API), `{error, error_description}` (agent API, SPEC 7.2). */
function errorShapeProblem(o: Outcome, path: string): string | null {
  if (o.status < 400) return null;
  if (!o.contentType.startsWith('application/json')) return `error ${o.status} is not JSON (${o.contentType || 'no content type'}): ${o.text.slice(0, 80)}`;
  let body: unknown;
  try {
    body = JSON.parse(o.text);
  } catch {
    return `error ${o.status} body is not valid JSON`;
  }
  if (typeof body !== 'object' || body === null) return 'error body is not an object';
  const b = body as Record<string, unknown>;
  if (typeof b.error !== 'string' || b.error === '') return 'error body has no error string';
  if (typeof b.code === 'string') return null;
  if (path.startsWith('/api/agent/') && typeof b.error_description === 'string') return null;
  return `error body has neither code nor (agent route) error_description: ${o.text.slice(0, 120)}`;
}

// Methods the receiver's HTTP server accepts and fetch will send (CONNECT and TRACE it refuses).
const RECEIVER_METHODS = ['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'PROPFIND', 'PURGE', 'QUERY', 'REPORT', 'M-SEARCH', 'NOTIFY'];
const headerName = fc.oneof(
  fc.constantFrom('x-a', 'x-proto', '__proto__', 'constructor', 'tostring', 'content-type', 'x-hookcap-hop', 'cookie', 'stripe-signature', 'x-github-event'),
  fc.stringMatching(/^[a-z][a-z0-9-]{0,20}$/),
);
const headerValue = fc.oneof(fc.stringMatching(/^[\x21-\x7e]([\x20-\x7e]{0,40}[\x21-\x7e])?$/), fc.constantFrom('ses_abc', 'session=ses_abc', 'é', 'a;b=c', '1e19'));
const receiverCase = fc.record({
  method: fc.constantFrom(...RECEIVER_METHODS),
  path: fc.array(fc.oneof(hostileText, fc.constantFrom('api', 'endpoints', '..', '.', '%2e%2e', 'w')), { maxLength: 4 }),
  query: fc.array(fc.tuple(hostileKey, hostileText), { maxLength: 5 }),
  headers: fc.uniqueArray(fc.tuple(headerName, headerValue), { maxLength: 6, selector: ([k]) => k }),
  body: fc.oneof(
    fc.uint8Array({ maxLength: 2_000 }),
    fc.uint8Array({ maxLength: 200 }).map((b) => new Uint8Array([0xef, 0xbb, 0xbf, ...b])),
    hostileText.map((t) => new TextEncoder().encode(t)),
    fc.constant(new Uint8Array([0x00, 0xff, 0xfe, 0xc3, 0x28])),
  ),
});

describeBackends(
  'security: fuzz',
  (h) => {
    let known: Known;
    let reader: Awaited<ReturnType<typeof accountWithEndpoint>>;

    test('every JSON route: hostile input never gets a 5xx, and every error is JSON of the documented shape', async () => {
      const fuzzer = await newAccount(h.url);
      reader = await accountWithEndpoint(h.url);
      const mine = await Promise.all([1, 2, 3].map(() => call(h.url, 'POST', '/api/endpoints', { token: fuzzer.key, body: { name: 'fuzz' } })));
      const team = await paidTeam(h.url, fuzzer);
      await fetch(`${h.url}/w/${mine[0]?.body.slug}`, { method: 'POST', body: 'seed' });
      await fetch(`${h.url}/w/${reader.endpoint.slug}`, { method: 'POST', body: 'seed' });
      const [seedCapture] = await captured(h.url, fuzzer.key, mine[0]?.body.slug ?? '', 1);
      const [readerCapture] = await captured(h.url, reader.account.key, reader.endpoint.slug, 1);
      const agent = await call<{ credential: string }>(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', requested_credential_type: 'api_key', client_name: 'fuzz' } });
      known = {
        key: fuzzer.key,
        session: fuzzer.session,
        agentKey: agent.body.credential,
        params: {
          slug: [...mine.map((m) => m.body.slug ?? ''), reader.endpoint.slug],
          id: [seedCapture?.id ?? '', readerCapture?.id ?? ''],
          teamId: [team.id],
          endpointId: [mine[1]?.body.id ?? '', reader.endpoint.id],
          userId: [fuzzer.userId, reader.account.userId],
        },
      };
      const doc = (await call<OpenApiDoc>(h.url, 'GET', '/docs/json')).body;
      const routes = Object.entries(doc.paths)
        .filter(([path]) => path.startsWith('/api/'))
        .flatMap(([path, methods]) => Object.keys(methods).map((m) => ({ method: m.toUpperCase(), path })))
        .filter((r) => !SKIPPED.has(`${r.method} ${r.path}`));
      expect(routes.length).toBeGreaterThan(40);

      const seen = new Map<string, number>();
      const check = async (c: Case) => {
        const o = await send(h.url, c, known);
        const key = `${c.route.method} ${c.route.path}`;
        seen.set(key, (seen.get(key) ?? 0) + 1);
        if (o.status >= 500) throw new Error(`${key} answered ${o.status}: ${o.text.slice(0, 200)}`);
        const problem = errorShapeProblem(o, c.route.path);
        if (problem) throw new Error(`${key}: ${problem}`);
      };
      await fc.assert(fc.asyncProperty(caseArb(routes, known), check), { numRuns: API_RUNS, seed: SEED, endOnFailure: true });
      // Every route is tried: the ones the random pick missed get a few cases of their own.
      for (const route of routes.filter((r) => !seen.has(`${r.method} ${r.path}`))) {
        await fc.assert(fc.asyncProperty(caseArb([route], known), check), { numRuns: 3, seed: SEED, endOnFailure: true });
      }
      expect(routes.filter((r) => !seen.has(`${r.method} ${r.path}`))).toEqual([]);
    });

    test('the receiver: hostile requests are answered without a 5xx and stored byte for byte', async () => {
      const sent = new Map<string, { body: Uint8Array; headers: [string, string][]; query: URLSearchParams }>();
      await fc.assert(
        fc.asyncProperty(receiverCase, fc.boolean(), async (r, junkSlug) => {
          const slug = junkSlug ? `${reader.endpoint.slug}x` : reader.endpoint.slug;
          const qs = r.query.map(([k, v]) => `${pct(k)}=${pct(v)}`).join('&');
          const path = r.path.map(pct).join('/');
          const url = `${h.url}/w/${slug}/${path}${qs ? `?${qs}` : ''}`;
          const withBody = r.method !== 'GET' && r.method !== 'HEAD';
          const res = await fetch(url, { method: r.method, headers: r.headers, body: withBody ? r.body : undefined, redirect: 'manual' });
          const text = await res.text();
          if (res.status >= 500) throw new Error(`receiver answered ${res.status}: ${text.slice(0, 200)}`);
          // fetch resolves dot segments as a browser would: "/w/<slug>/../.." may leave /w/ altogether.
          const pathname = new URL(url).pathname;
          if (pathname.startsWith('/w/') && res.headers.get('content-security-policy') !== 'sandbox') throw new Error('receiver answer without its sandbox header');
          const id = res.headers.get('x-request-id');
          const reachesEndpoint = !junkSlug && pathname.split('/')[2] === slug;
          if (res.status === 200 && id) sent.set(id, { body: withBody ? r.body : new Uint8Array(), headers: r.headers, query: new URL(url).searchParams });
          else if (reachesEndpoint) throw new Error(`a well-formed capture was refused: ${res.status} ${text.slice(0, 200)}`);
        }),
        { numRuns: RECEIVER_RUNS, seed: SEED, endOnFailure: true },
      );
      expect(sent.size).toBeGreaterThan(RECEIVER_RUNS / 4);
      const stored = await eventually(async () => {
        const r = await call<Capture[]>(h.url, 'GET', `/api/endpoints/${reader.endpoint.slug}/requests?limit=1000`, { token: reader.account.key });
        return r.status === 200 && r.body.length >= sent.size + 1 ? r.body : null;
      }, 20_000);
      const byId = new Map<string, Capture>(stored.map((c) => [c.id, c]));
      for (const [id, s] of sent) {
        const rec = byId.get(id);
        if (!rec) throw new Error(`acknowledged capture ${id} is missing`);
        const bytes = rec.bodyEncoding === 'base64' ? Buffer.from(rec.body, 'base64') : Buffer.from(rec.body, 'utf8');
        expect({ id, bytes: [...bytes] }).toEqual({ id, bytes: [...s.body] });
        expect(rec.size).toBe(s.body.length);
        for (const [k, v] of s.headers) {
          if (k === 'cookie' || k === 'content-type') continue;
          expect({ id, k, v: rec.headers[k] }).toEqual({ id, k, v });
        }
        const expected = new Map<string, string[]>();
        for (const [k, v] of s.query) expected.set(k, [...(expected.get(k) ?? []), v]);
        for (const [k, vs] of expected) {
          const got = rec.queryParams[k];
          expect({ id, k, got: Array.isArray(got) ? got : [got] }).toEqual({ id, k, got: vs });
        }
      }
    });

    test('afterwards every read still answers: list, pages, search, count, one, stream catch-up, health', async () => {
      const key = reader.account.key;
      const slug = reader.endpoint.slug;
      const list = await call(h.url, 'GET', `/api/endpoints/${slug}/requests?limit=1000`, { token: key });
      expect(list.status).toBe(200);
      let cursor: string | null = null;
      let paged = 0;
      do {
        const p: { status: number; body: { items: Capture[]; cursor: string | null } } = await call(
          h.url,
          'GET',
          `/api/endpoints/${slug}/requests/paginated?limit=50${cursor ? `&cursor=${encodeURIComponent(cursor)}` : ''}`,
          { token: key },
        );
        expect(p.status).toBe(200);
        paged += p.body.items.length;
        cursor = p.body.cursor;
      } while (cursor);
      // Nothing arrives meanwhile, but a capture acknowledged last may still be shipping.
      expect(paged).toBeGreaterThanOrEqual(list.body.length);
      for (const q of ['', 'q=a', 'q=%00x', 'q=__proto__', 'method=PROPFIND', 'order=asc&limit=5']) {
        expect((await call(h.url, 'GET', `/api/search/requests${q ? `?${q}` : ''}`, { token: key })).status).toBeLessThan(500);
        expect((await call(h.url, 'GET', `/api/search/requests/count${q ? `?${q}` : ''}`, { token: key })).status).toBeLessThan(500);
      }
      const oldest = list.body.at(-1);
      expect((await call(h.url, 'GET', `/api/requests/${oldest?.id}`, { token: key })).status).toBe(200);
      const sse = await SseClient.open(`${h.url}/api/stream/${slug}`, { token: key, lastEventId: oldest?.id });
      try {
        expect(sse.response.status).toBe(200);
        await sse.until(() => sse.events.length >= Math.min(5, list.body.length - 1), 20_000);
        expect(sse.ended).toBe(false);
      } finally {
        sse.close();
      }
      expect((await call(h.url, 'GET', '/healthz')).status).toBe(200);
    });
  },
  { ...AGENT_ENV, ...TEAMS_ENV },
);
