/** Static files held in memory: gzipped once, answered with an ETag (304 when the client has it). */

export interface Asset {
  body: Uint8Array<ArrayBuffer>;
  gzip: Uint8Array<ArrayBuffer> | null;
  type: string;
  etag: string;
}

const TYPES: Record<string, string> = {
  '.html': 'text/html; charset=utf-8',
  '.js': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
  '.svg': 'image/svg+xml',
  '.png': 'image/png',
  '.json': 'application/json',
  '.woff2': 'font/woff2',
};

export function typeOf(file: string): string {
  const dot = file.lastIndexOf('.');
  return TYPES[dot >= 0 ? file.slice(dot) : ''] ?? 'application/octet-stream';
}

export function makeAsset(body: Uint8Array<ArrayBuffer>, type: string): Asset {
  const compressible = /^(text\/|application\/json|image\/svg)/.test(type) && body.length > 512;
  const gzip = compressible ? Bun.gzipSync(body, { level: 9 }) : null;
  return { body, gzip: gzip && gzip.length < body.length ? gzip : null, type, etag: `"${Bun.hash(body).toString(36)}"` };
}

/** Headers every static answer of ours carries. */
const BASE_HEADERS = { 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin' };

/**
 * `a` as the answer. A `status` other than 200 (the dashboard's page as a 404) carries no ETag and
 * is never a 304: a revalidation would turn the miss into the cached 200 of another address.
 */
export function serveAsset(request: Request, a: Asset, headers: Record<string, string>, status = 200): Response {
  const common: Record<string, string> = { 'content-type': a.type, ...(status === 200 ? { etag: a.etag } : {}), vary: 'accept-encoding', ...BASE_HEADERS, ...headers };
  if (status === 200 && request.headers.get('if-none-match') === a.etag) return new Response(null, { status: 304, headers: common });
  if (a.gzip && /\bgzip\b/.test(request.headers.get('accept-encoding') ?? '')) {
    return new Response(a.gzip, { status, headers: { ...common, 'content-encoding': 'gzip' } });
  }
  return new Response(a.body, { status, headers: common });
}
