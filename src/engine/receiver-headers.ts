/**
 * What the receiver puts in front of stranger-chosen content. Mock responses are written by any
 * account and served from `/w/<slug>`, which may share its origin with the API and the dashboard
 * (RECEIVER_URL defaults to BASE_URL): so every receiver answer is sandboxed, and a mock may not
 * set headers that act on the origin rather than on the one response (docs/security.md).
 */

/**
 * Added to every receiver answer, mocked or not, errors included. `sandbox` without
 * `allow-same-origin` gives an HTML mock an opaque origin with no scripts, forms or popups, so it
 * can neither read nor use a session; `nosniff` stops a mock typed text/plain from being run as a
 * script or style by a page that includes it.
 */
export const RECEIVER_SECURITY_HEADERS = Object.freeze({
  'content-security-policy': 'sandbox',
  'x-content-type-options': 'nosniff',
} as const);

/**
 * On the default answer and on the receiver's refusals (never on a mock: its headers are its
 * owner's). A web page on any origin may send to a receiver: without these a browser hid every
 * answer from the page, even of requests that were captured, and refused the preflight of a JSON
 * POST (only the OPTIONS was captured). Reading the answer gives a page nothing it could not get
 * with curl, and no credentials are involved (`*` is never honoured with them). Static: they cost
 * no work per capture, about 70 bytes per answer.
 */
export const RECEIVER_CORS_HEADERS = Object.freeze({
  'access-control-allow-origin': '*',
  'access-control-expose-headers': '*',
} as const);

/**
 * Added to the default answer of an OPTIONS request, which is what a browser's preflight gets:
 * any method and header may follow (`authorization` is named because `*` does not cover it). The
 * preflight is captured (and counted) like any request; `max-age` lets a browser skip repeats for
 * up to 2 hours.
 */
export const RECEIVER_PREFLIGHT_HEADERS = Object.freeze({
  ...RECEIVER_CORS_HEADERS,
  'access-control-allow-methods': '*',
  'access-control-allow-headers': '*, authorization',
  'access-control-max-age': '7200',
} as const);

/** Framing headers the HTTP server writes itself; a mock setting them would break the response. */
const HOP_BY_HOP = ['connection', 'content-length', 'transfer-encoding', 'keep-alive', 'upgrade', 'te', 'trailer', 'proxy-connection'];

/**
 * Headers that act on the whole origin (cookies, storage, service workers, transport, reporting,
 * credential prompts) or would weaken the two headers above. Refused at PATCH with a 400 and
 * dropped from mocks stored before this list existed.
 */
const ORIGIN_WIDE = [
  'set-cookie',
  'set-cookie2',
  'clear-site-data',
  'service-worker-allowed',
  'refresh',
  'strict-transport-security',
  'public-key-pins',
  'public-key-pins-report-only',
  'expect-ct',
  'alt-svc',
  'nel',
  'report-to',
  'reporting-endpoints',
  'accept-ch',
  'critical-ch',
  'origin-agent-cluster',
  'www-authenticate',
  'proxy-authenticate',
  'content-security-policy',
  'content-security-policy-report-only',
  'x-content-type-options',
];

/** Lower-case header names a mock response may not set, and why (for the 400's message). */
export const REFUSED_MOCK_HEADERS: ReadonlyMap<string, string> = new Map([
  ...HOP_BY_HOP.map((h): [string, string] => [h, 'it is set by the HTTP server']),
  ...ORIGIN_WIDE.map((h): [string, string] => [h, 'it acts on the whole origin, not on this one response']),
]);

const TOKEN = /^[!#$%&'*+.^_`|~0-9a-z-]+$/;
/** Visible Latin-1, space and tab: what an HTTP/1.1 field value may hold (RFC 9110 5.5). */
const FIELD_VALUE = /^[\t\x20-\x7e\x80-\xff]*$/;

/** Whether a header value can be sent as is: one line of Latin-1 text. */
export const isFieldValue = (value: string): boolean => FIELD_VALUE.test(value);

/**
 * The methods Bun's HTTP parser accepts, and so the receiver can capture (docs/security.md); a
 * request with any other method is dropped by the server before our code runs.
 */
export const RECEIVABLE_METHODS: ReadonlySet<string> = new Set(
  ('GET HEAD POST PUT PATCH DELETE OPTIONS TRACE CONNECT PROPFIND PROPPATCH MKCOL COPY MOVE LOCK UNLOCK PURGE SEARCH QUERY ' +
    'REPORT LINK UNLINK SOURCE M-SEARCH NOTIFY SUBSCRIBE UNSUBSCRIBE MERGE BIND REBIND UNBIND ACL MKCALENDAR MKACTIVITY CHECKOUT').split(' '),
);

/**
 * `__proto__` is a valid header token, but a JavaScript object key that sets the prototype when
 * assigned: stored or served, it would be lost without a word. A key sent exactly so is refused
 * before any route (src/unknown.ts jsonHazard); this catches `__PROTO__`, lower-cased into it.
 */
const PROTO_KEY_REFUSAL = 'a header named __proto__ cannot be kept (it is a JavaScript prototype key)';

/** A mock header value that is not one line of text. */
export const MOCK_VALUE_REFUSAL = 'its value must be one line of text (no control characters)';

/**
 * Why a mock may not carry this header (name already lower-cased, value in byte form: one
 * character per byte, as the receiver sends it), or null when it may.
 */
export function mockHeaderRefusal(name: string, value: string): string | null {
  if (!TOKEN.test(name)) return 'it is not a valid header name';
  if (name === '__proto__') return PROTO_KEY_REFUSAL;
  const refused = REFUSED_MOCK_HEADERS.get(name);
  if (refused !== undefined) return refused;
  if (!isFieldValue(value)) return MOCK_VALUE_REFUSAL;
  return null;
}
