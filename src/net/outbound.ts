/**
 * The one way the service makes HTTP requests to URLs it does not control (notifications, and
 * send-test when the receiver is remote). Each hop: resolve the host, refuse if ANY address is not
 * public (unless allowed), then connect to the vetted address itself, with the original Host header
 * and TLS server name, so a DNS answer that changes between the check and the connection (DNS
 * rebinding) cannot redirect the request. Redirects are followed by hand and re-checked per hop.
 *
 * Residual risk, stated plainly: an HTTP(S)_PROXY in the environment makes fetch connect through
 * that proxy; the vetted address is still the one the proxy is asked for.
 */
import { lookup as dnsLookup } from 'node:dns/promises';
import { classifyAddress, isIpLiteral, parseIp } from './address';
import { normalizeHost, type AllowList } from './allow';
import { errorMessage } from '../unknown';

/** Resolves a host name to every address it has. */
export type Lookup = (hostname: string) => Promise<string[]>;

export const systemLookup: Lookup = async (hostname) =>
  (await dnsLookup(hostname, { all: true, verbatim: true })).map((a) => a.address);

export interface OutboundPolicy {
  allow: AllowList;
  /** Covers the whole exchange: lookups, every hop, and reading the response body. */
  timeoutMs: number;
  /** Redirects to follow; with 0 a 3xx is returned to the caller as it is. */
  maxRedirects: number;
  lookup?: Lookup;
  /** Extra trusted CA certificates (PEM), for a private CA or a test server. */
  ca?: string;
}

export interface OutboundRequest {
  url: string;
  method: string;
  /** Header names in lower case. */
  headers: Record<string, string>;
  body?: string | Uint8Array;
}

export type OutboundFailure = 'invalid_url' | 'blocked' | 'dns' | 'network' | 'timeout' | 'redirects';

export class OutboundError extends Error {
  constructor(
    readonly kind: OutboundFailure,
    message: string,
  ) {
    super(message);
    this.name = 'OutboundError';
  }
}

export interface OutboundResult {
  response: Response;
  /** The URL that answered (after redirects). */
  url: string;
}

const REDIRECTS = new Set([301, 302, 303, 307, 308]);
const DEFAULT_PORT: Record<string, number> = { 'http:': 80, 'https:': 443 };

function parseTarget(raw: string): URL {
  let u: URL;
  try {
    u = new URL(raw);
  } catch {
    throw new OutboundError('invalid_url', `not a URL: ${raw.slice(0, 200)}`);
  }
  if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new OutboundError('invalid_url', `only http and https URLs are allowed, not ${u.protocol}`);
  return u;
}

/** `p`, or a rejection with the signal's reason once it aborts (dns.lookup takes no signal). */
function raceAbort<T>(p: Promise<T>, signal: AbortSignal): Promise<T> {
  if (signal.aborted) return Promise.reject(signal.reason);
  return new Promise<T>((resolve, reject) => {
    const onAbort = () => reject(signal.reason);
    signal.addEventListener('abort', onAbort, { once: true });
    p.then(
      (v) => {
        signal.removeEventListener('abort', onAbort);
        resolve(v);
      },
      (e: unknown) => {
        signal.removeEventListener('abort', onAbort);
        reject(e);
      },
    );
  });
}

const portOf = (u: URL): number => (u.port ? Number(u.port) : (DEFAULT_PORT[u.protocol] ?? 0));

/**
 * Why `address`, reached through the URL host `host` on `port`, may not be reached ("127.0.0.1
 * is a loopback address"), or null when it may: allowed by the operator, or public. The one rule,
 * for sends and for judging a URL ahead of them.
 */
function addressRefusal(host: string, port: number, address: string, allow: AllowList): string | null {
  if (allow.allows(host, port, address)) return null;
  const cls = classifyAddress(address);
  if (cls === 'public') return null;
  const via = address === host ? host : `${host} (${address})`;
  return `${via} is a ${cls ?? 'invalid'} address`;
}

/** Every address of the URL's host, each allowed or public; the first is the one to connect to. */
async function vet(u: URL, policy: OutboundPolicy, signal: AbortSignal): Promise<string> {
  const host = normalizeHost(u.hostname);
  const port = portOf(u);
  let addresses: string[];
  if (isIpLiteral(host)) {
    addresses = [host];
  } else {
    try {
      addresses = await raceAbort((policy.lookup ?? systemLookup)(host), signal);
    } catch (err) {
      if (signal.aborted) throw err;
      throw new OutboundError('dns', `could not resolve ${host}: ${errorMessage(err)}`);
    }
    if (addresses.length === 0) throw new OutboundError('dns', `${host} has no addresses`);
  }
  for (const address of addresses) {
    const refused = addressRefusal(host, port, address, policy.allow);
    if (refused !== null) throw new OutboundError('blocked', `${refused}; outbound requests may only reach public addresses`);
  }
  // IPv4 first: hosts without an IPv6 route are common, the reverse is rare.
  const v4 = addresses.find((a) => parseIp(a)?.family === 4);
  return v4 ?? addresses[0] ?? host;
}

/** What `localhost` is, whatever DNS says (RFC 6761 6.3): this machine, over either family. */
const LOCALHOST_ADDRESSES = ['127.0.0.1', '::1'] as const;

/**
 * Why sends to `url` will be refused, judged now without a lookup, or null. Only a host whose
 * addresses cannot change is judged: an IP literal, or exactly `localhost` (both of its
 * addresses; an allow entry naming `localhost[:port]` covers both, as at a send). A host name
 * (subdomains of `localhost` too, which many resolvers do not answer) gives null: what it
 * resolves to can change, so only the send's own lookup counts.
 *
 * @example literalTargetRefusal('http://127.0.0.1:8080/hook', AllowList.none) // '127.0.0.1 is a loopback address'
 */
export function literalTargetRefusal(url: string, allow: AllowList): string | null {
  let u: URL;
  try {
    u = parseTarget(url);
  } catch {
    return null;
  }
  const host = normalizeHost(u.hostname);
  const addresses = isIpLiteral(host) ? [host] : host === 'localhost' ? LOCALHOST_ADDRESSES : [];
  for (const address of addresses) {
    const refused = addressRefusal(host, portOf(u), address, allow);
    if (refused !== null) return refused;
  }
  return null;
}

function pinned(u: URL, address: string): URL {
  const target = new URL(u.href);
  target.hostname = parseIp(address)?.family === 6 ? `[${address}]` : address;
  return target;
}

/** What a redirect does to the method and body (the fetch standard's rules). */
function afterRedirect(status: number, req: OutboundRequest, next: URL, prev: URL): OutboundRequest {
  const headers = { ...req.headers };
  let { method, body } = req;
  if ((status === 303 && method !== 'HEAD') || ((status === 301 || status === 302) && method === 'POST')) {
    method = 'GET';
    body = undefined;
    delete headers['content-type'];
  }
  if (next.origin !== prev.origin) {
    delete headers.authorization;
    delete headers.cookie;
  }
  return { url: next.href, method, headers, body };
}

/**
 * Sends `req` within the policy. Throws OutboundError (kind says whether a retry can help);
 * the caller reads or cancels the response body.
 */
export async function sendOutbound(req: OutboundRequest, policy: OutboundPolicy): Promise<OutboundResult> {
  const signal = AbortSignal.timeout(policy.timeoutMs);
  let current = req;
  for (let hop = 0; ; hop++) {
    const u = parseTarget(current.url);
    let response: Response;
    try {
      const address = await vet(u, policy, signal);
      const serverName = isIpLiteral(normalizeHost(u.hostname)) ? undefined : normalizeHost(u.hostname);
      response = await fetch(pinned(u, address), {
        method: current.method,
        headers: { ...current.headers, host: u.host },
        // Bun takes any Uint8Array; the DOM library's BodyInit (the dashboard's typecheck reads this file) wants ArrayBuffer-backed ones.
        body: current.body as RequestInit['body'],
        redirect: 'manual',
        // Callers want the bytes the receiver sent (send-test shows them); nothing here needs them decoded.
        decompress: false,
        signal,
        tls: u.protocol === 'https:' ? { serverName, ca: policy.ca } : undefined,
      });
    } catch (err) {
      if (err instanceof OutboundError) throw err;
      if (signal.aborted) throw new OutboundError('timeout', `no answer from ${u.host} within ${policy.timeoutMs} ms`);
      throw new OutboundError('network', `request to ${u.host} failed: ${errorMessage(err)}`);
    }
    const location = response.headers.get('location');
    if (!REDIRECTS.has(response.status) || location === null || policy.maxRedirects === 0) {
      return { response, url: u.href };
    }
    await response.body?.cancel().catch(() => {});
    if (hop >= policy.maxRedirects) throw new OutboundError('redirects', `more than ${policy.maxRedirects} redirects`);
    let next: URL;
    try {
      next = new URL(location, u);
    } catch {
      throw new OutboundError('invalid_url', `redirect to an invalid URL: ${location.slice(0, 200)}`);
    }
    current = afterRedirect(response.status, current, next, u);
  }
}
