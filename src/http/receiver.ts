/**
 * ANY /w/:slug and /w/:slug/* — the public receiver. Reads the raw body (bounded), hands the
 * request to the capture engine and answers with the endpoint's mock response or 200 OK.
 */
import { Elysia } from 'elysia';
import type { Config } from '../config';
import type { CaptureEngine } from '../engine/capture';
import { AppError } from '../errors';

const EMPTY = new Uint8Array(0);

async function readBody(request: Request, max: number): Promise<Uint8Array> {
  const declared = request.headers.get('content-length');
  if (declared !== null) {
    if (Number(declared) > max) throw tooLarge(max);
    return new Uint8Array(await request.arrayBuffer());
  }
  if (!request.body) return EMPTY;
  // Chunked upload: count as we go and stop reading once it is over the limit.
  const chunks: Uint8Array[] = [];
  let total = 0;
  const reader = request.body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > max) {
      await reader.cancel();
      throw tooLarge(max);
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

const tooLarge = (max: number) => new AppError('payload_too_large', `request body exceeds the ${max}-byte limit; nothing was stored`);

/** Splits "http://host/w/<slug>/rest?x=1" into the path after the slug and the raw query. */
function pathAndQuery(url: string, slug: string): { path: string; query: string } {
  const start = url.indexOf('/w/', url.indexOf('//') + 2);
  const q = url.indexOf('?', start);
  const pathEnd = q === -1 ? url.length : q;
  const rest = url.slice(start + 3 + slug.length, pathEnd);
  return { path: rest === '' ? '/' : rest, query: q === -1 ? '' : url.slice(q + 1) };
}

export const receiverRoutes = (engine: CaptureEngine, config: Config) => {
  const handle = async ({ request, params, server }: { request: Request; params: { slug: string }; server: { requestIP(r: Request): { address: string } | null } | null }) => {
    const body = await readBody(request, config.maxBodyBytes);
    const { path, query } = pathAndQuery(request.url, params.slug);
    const forwarded = config.trustProxy ? request.headers.get('x-forwarded-for')?.split(',')[0]?.trim() : undefined;
    const out = await engine.capture({
      slug: params.slug,
      method: request.method,
      path,
      query,
      headers: request.headers,
      body,
      ip: forwarded || server?.requestIP(request)?.address || '',
      publicBase: config.receiverUrl,
    });
    return new Response(out.body, { status: out.status, headers: out.headers });
  };
  const detail = { tags: ['receiver'], summary: 'Capture any request sent to the endpoint' };
  return new Elysia().all('/w/:slug', handle, { parse: 'none', detail }).all('/w/:slug/*', handle, { parse: 'none', detail });
};
