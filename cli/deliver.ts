/**
 * Sends a rebuilt capture from this machine, with node:http(s) rather than fetch: fetch adds its
 * own accept, user-agent and accept-encoding headers and refuses a GET with a body; this sends
 * exactly the method, headers and bytes given, plus host, connection and content-length.
 */
import http from 'node:http';
import https from 'node:https';
import type { RebuiltRequest } from '../src/model/render';

export interface Delivered {
  status: number;
  headers: Record<string, string>;
  /** At most `keepBytes` of the answer's body. */
  body: Uint8Array;
  truncated: boolean;
  /** From sending to the end of the answer. */
  latencyMs: number;
}

/** A refusal, a reset or a timeout: no HTTP answer came. */
export class DeliveryError extends Error {
  constructor(
    message: string,
    /** The app's HTTPS certificate was refused (self-signed, another name): retrying will not help. */
    readonly certificate = false,
    /** Nothing listens there (ECONNREFUSED). */
    readonly refused = false,
    /** The host name does not resolve (a typo such as `locahost`): retrying will not help. */
    readonly unknownHost = false,
    /** The app took the connection but did not answer in full within the timeout: it is there, only slow. */
    readonly timedOut = false,
  ) {
    super(message);
    this.name = 'DeliveryError';
  }
}

/** What a refused certificate is told to do. */
export const INSECURE_HINT = 'add --insecure to accept a local self-signed certificate';

/** What an app that did not answer within --timeout is told (replay, listen): it is running, only slow. */
export const TIMEOUT_HINT = 'raise --timeout if it needs longer';

/** What a --forward host that does not resolve is told, at start or on a capture. */
export const UNKNOWN_HOST_HINT = 'check the host in --forward (http://localhost:PORT or http://127.0.0.1:PORT for an app on this machine)';

/** TLS verification failures (node's codes), as opposed to a connection that did not happen. */
const CERTIFICATE_CODES = /^(DEPTH_ZERO_SELF_SIGNED_CERT|SELF_SIGNED_CERT_IN_CHAIN|UNABLE_TO_(GET_ISSUER_CERT(_LOCALLY)?|VERIFY_LEAF_SIGNATURE)|CERT_\w+|ERR_TLS_CERT_ALTNAME_INVALID)$/;

interface DeliverOptions {
  timeoutMs: number;
  keepBytes?: number;
  signal?: AbortSignal;
  insecure?: boolean;
}

/**
 * Sends `req` and collects the answer. `localhost` is the loopback on either family (RFC 6761),
 * and a dev server often listens on only one of them (bound to ::1, say) while the resolver gives
 * the other: refused on 127.0.0.1, it is tried on ::1, as curl does.
 */
export async function deliver(req: RebuiltRequest, opts: DeliverOptions): Promise<Delivered> {
  const url = new URL(req.url);
  if (url.hostname !== 'localhost') return send(req, url, null, opts);
  try {
    return await send(req, url, '127.0.0.1', opts);
  } catch (e) {
    if (e instanceof DeliveryError && e.refused) return send(req, url, '::1', opts);
    throw e;
  }
}

/** One exchange with `url`, connecting to `address` instead of resolving the host when given. */
function send(req: RebuiltRequest, url: URL, address: string | null, opts: DeliverOptions): Promise<Delivered> {
  const transport = url.protocol === 'https:' ? https : http;
  const headers: Record<string, string> = { ...req.headers };
  if (req.body.length > 0 || !['GET', 'HEAD', 'DELETE', 'OPTIONS'].includes(req.method)) headers['content-length'] = String(req.body.length);
  const keep = opts.keepBytes ?? 0;
  const started = performance.now();
  let timer: ReturnType<typeof setTimeout> | undefined;
  const exchange = new Promise<Delivered>((resolve, reject) => {
    const fail = (message: string, certificate = false, refused = false, unknownHost = false, timedOut = false) =>
      reject(new DeliveryError(message, certificate, refused, unknownHost, timedOut));
    const tls = url.protocol === 'https:' && opts.insecure ? { rejectUnauthorized: false } : {};
    // The Host header and the certificate's name stay the URL's when the address is given.
    const target =
      address === null
        ? {}
        : { hostname: address, headers: { host: url.host, ...headers }, ...(url.protocol === 'https:' ? { servername: url.hostname } : {}) };
    const request = transport.request(url, { method: req.method, headers, signal: opts.signal, ...tls, ...target }, (res) => {
      const chunks: Uint8Array[] = [];
      let kept = 0;
      let truncated = false;
      res.on('data', (chunk: Uint8Array) => {
        const part = chunk.subarray(0, Math.max(0, keep - kept));
        if (part.length > 0) chunks.push(part);
        kept += part.length;
        if (keep > 0 && part.length < chunk.length) truncated = true;
      });
      res.on('end', () => {
        const answer: Record<string, string> = {};
        for (const [name, value] of Object.entries(res.headers)) if (value !== undefined) answer[name] = Array.isArray(value) ? value.join(', ') : value;
        resolve({ status: res.statusCode ?? 0, headers: answer, body: Buffer.concat(chunks), truncated, latencyMs: performance.now() - started });
      });
      res.on('error', (e) => fail(`the answer broke off: ${e.message}`));
    });
    // The whole exchange, not the socket's idleness (request.setTimeout): an app trickling its
    // answer a byte at a time would otherwise hold listen, and a Ctrl-C waiting on it, forever.
    timer = setTimeout(() => {
      request.destroy();
      fail(`the app did not answer within ${opts.timeoutMs / 1000} s`, false, false, false, true);
    }, opts.timeoutMs);
    request.on('error', (e: NodeJS.ErrnoException) => {
      if (e.code === 'ECONNREFUSED') fail(`connection refused by ${url.host}`, false, true);
      else if (CERTIFICATE_CODES.test(e.code ?? '')) fail(`${url.host}'s certificate was refused: ${e.message}`, true);
      // ENOTFOUND is the resolver's "no such name"; a resolver that cannot be asked says EAI_AGAIN.
      else if (e.code === 'ENOTFOUND') fail(`no such host ${url.hostname}`, false, false, true);
      // Node's words, "socket hang up" and "read ECONNRESET", said as what the app did.
      else if (e.code === 'ECONNRESET') fail(/hang up/i.test(e.message) ? 'the app closed the connection without answering' : 'the app reset the connection');
      else fail(e.message);
    });
    request.end(req.body.length > 0 ? req.body : undefined);
  });
  return exchange.finally(() => clearTimeout(timer));
}
