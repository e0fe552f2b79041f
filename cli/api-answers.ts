/**
 * The CLI's boundary with the API: every answer is checked to be one hookcap gives before the
 * client reads it. An API address where something else answers (the developer's own app on
 * localhost:3000, the default address; a proxy's error page) gave `Logged in … as undefined`
 * (and a saved config), `(intermediate value).map is not a function`, or a whole HTML page as the
 * error. Here such an answer becomes hookcap's error shape with the code `not_hookcap`, so every
 * command says `<url> does not answer as a hookcap API (…)` (cli/errors.ts), and `login` saves
 * nothing. The client (client/index.ts) is given this as its fetch; it is not changed.
 */

type Json = unknown;
type Check = (v: Json) => boolean;

const isObject = (v: Json): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);
const strings = (v: Json, ...keys: string[]): boolean => isObject(v) && keys.every((k) => typeof v[k] === 'string');
const listOf = (check: Check): Check => (v) => Array.isArray(v) && v.every(check);

/** What the CLI reads of an endpoint and of a capture: the fields without which it prints `undefined` or throws. */
const endpoint: Check = (v) => strings(v, 'slug', 'name', 'url');
const capture: Check = (v) => strings(v, 'id', 'method', 'path') && isObject((v as Record<string, unknown>).headers);

/**
 * The answers the CLI reads, by method and route (after the API address's own path): each must
 * have what the CLI uses of it. Other routes' answers must be JSON (an event stream for
 * /api/stream/, anything for the exports, which the count before them has already checked).
 */
const ROUTES: [string, RegExp, Check][] = [
  ['GET', /^\/api\/auth\/me$/, (v) => strings(v, 'email')],
  ['GET', /^\/api\/endpoints\/activity$/, listOf((a) => strings(a, 'slug') && typeof (a as Record<string, unknown>).count === 'number')],
  ['GET', /^\/api\/endpoints$/, listOf(endpoint)],
  ['POST', /^\/api\/endpoints$/, endpoint],
  ['GET', /^\/api\/endpoints\/[^/]+$/, endpoint],
  ['GET', /^\/api\/endpoints\/[^/]+\/requests$/, listOf(capture)],
  // Where tail and a wait start (hookcap/client's position()): a capture id.
  ['GET', /^\/api\/endpoints\/[^/]+\/position$/, (v) => strings(v, 'position')],
  ['GET', /^\/api\/requests\/[^/]+$/, capture],
  ['GET', /^\/api\/search\/requests\/count$/, (v) => isObject(v) && typeof v.count === 'number'],
  ['GET', /^\/api\/search\/requests$/, listOf(capture)],
  ['POST', /^\/api\/send-test$/, (v) => isObject(v) && isObject(v.response) && typeof v.response.status === 'number'],
];

/** A short account of what answered, for the message: `500 with an HTML page`. */
function whatCame(status: number, type: string, text: string): string {
  const kind = /html/.test(type) || /^\s*</.test(text) ? 'an HTML page' : /json/.test(type) ? 'JSON hookcap does not send there' : type === '' ? 'a body without a type' : type.split(';')[0];
  return `it answered ${status} with ${kind}`;
}

/** A proxy's own answer when what is behind it does not answer (hookcap down or restarting, say). */
const GATEWAY_STATUS = new Set([502, 503, 504]);

/**
 * The answer as hookcap's error, code `not_hookcap`; a failure keeps its status (a 5xx stream is
 * reconnected), a success becomes 421 Misdirected Request. A gateway status (502, 503, 504) from a
 * proxy is `proxy_error` instead: the proxy may stand in front of a hookcap that is restarting,
 * and "does not answer as a hookcap API" would send its user to change a right address.
 */
function notHookcap(apiUrl: string, res: Response, detail: string): Response {
  if (!res.ok && GATEWAY_STATUS.has(res.status)) {
    return Response.json({ error: `${apiUrl} answered through a proxy, not from hookcap (${detail})`, code: 'proxy_error' }, { status: res.status });
  }
  return Response.json({ error: `${apiUrl} does not answer as a hookcap API (${detail})`, code: 'not_hookcap' }, { status: res.ok ? 421 : res.status });
}

function parse(text: string): { ok: true; value: Json } | { ok: false } {
  try {
    return { ok: true, value: JSON.parse(text) };
  } catch {
    return { ok: false };
  }
}

/** Judges one answer to `method route`; returns it (rebuilt when its body was read) or the `not_hookcap` error. */
async function judge(apiUrl: string, method: string, route: string, res: Response): Promise<Response> {
  const type = (res.headers.get('content-type') ?? '').toLowerCase();
  if (res.ok && route.startsWith('/api/stream/')) {
    if (type.startsWith('text/event-stream')) return res;
    await res.body?.cancel().catch(() => {});
    return notHookcap(apiUrl, res, `it answered ${method} ${route} ${res.status} with ${type.split(';')[0] || 'no content type'}, not an event stream`);
  }
  if ((res.ok && /\/export$/.test(route)) || res.status === 204) return res;
  const text = await res.text().catch(() => '');
  const body = parse(text);
  const rebuilt = () => new Response(text, { status: res.status, statusText: res.statusText, headers: res.headers });
  if (!res.ok) {
    // hookcap refuses with `{error}` JSON (the agent API with `{error, error_description}`) everywhere.
    if (body.ok && isObject(body.value) && typeof body.value.error === 'string') return rebuilt();
    return notHookcap(apiUrl, res, whatCame(res.status, type, text));
  }
  if (!body.ok) return notHookcap(apiUrl, res, whatCame(res.status, type, text));
  const check = ROUTES.find(([m, path]) => m === method && path.test(route))?.[2];
  if (check && !check(body.value)) return notHookcap(apiUrl, res, `it answered ${method} ${route} ${res.status} with JSON that is not what hookcap sends`);
  return rebuilt();
}

/** A fetch for the client of the API at `apiUrl` that lets through only answers hookcap gives. */
export function checkedFetch(apiUrl: string, inner: typeof fetch = fetch): typeof fetch {
  const prefix = new URL(apiUrl).pathname.replace(/\/+$/, '');
  const checked = async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    const res = await inner(input, init);
    const url = new URL(typeof input === 'string' ? input : input instanceof URL ? input.href : input.url);
    const route = url.pathname.startsWith(prefix) ? url.pathname.slice(prefix.length) : url.pathname;
    return judge(apiUrl, (init?.method ?? (input instanceof Request ? input.method : 'GET')).toUpperCase(), route, res);
  };
  return Object.assign(checked, { preconnect: inner.preconnect }) as typeof fetch;
}
