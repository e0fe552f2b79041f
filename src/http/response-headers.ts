/**
 * Headers every answer of the API, the pages and the docs carries unless its route sets its own
 * (Elysia keeps a response's own headers over these):
 * - `x-content-type-options: nosniff`: a browser never reads an answer as another type than it says
 *   (a JSON answer quoting a captured body as HTML);
 * - under /api/, `cache-control: no-store`: answers hold captured bodies, keys and account data, and
 *   neither a browser's cache nor a proxy should keep them. The live stream, exports and the
 *   dashboard's assets say their own.
 * The receiver (/w/) sets its own headers and is not served here (src/engine/receiver-headers.ts).
 */
import { Elysia } from 'elysia';
import { pathnameOf } from './request-path';

export const defaultResponseHeaders = new Elysia({ name: 'default-response-headers' }).onRequest(({ request, set }) => {
  set.headers['x-content-type-options'] = 'nosniff';
  if (pathnameOf(request.url).startsWith('/api/')) set.headers['cache-control'] = 'no-store';
});
