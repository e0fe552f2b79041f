/**
 * Serves the dashboard (web/): index.html for the app's own paths, hashed assets cached for good,
 * and the stylesheet the server-rendered pages share. The build is made at install (or here, once,
 * when its sources changed) and held in memory.
 */
import { join } from 'node:path';
import { Elysia } from 'elysia';
import { ensureWebBuild, type WebManifest } from '../../web/build';
import { APP_PREFIXES } from '../../web/src/paths';
import { AppError } from '../errors';
import { log } from '../log';
import { makeAsset, serveAsset, typeOf, type Asset } from './assets';
import { ownSources } from './csp';
import { errorResponse } from './errors';

/**
 * The app's own pages: scripts and styles only from /assets/ of this origin (never the receiver's
 * `/w/` on the same origin: src/http/csp.ts), no inline script, never framed. Workers fall back to
 * script-src.
 */
export function appCsp(assets: string): string {
  return [
    "default-src 'self'",
    `script-src ${assets}`,
    `style-src ${assets}`,
    "img-src 'self' data: blob:",
    "connect-src 'self'",
    "font-src 'self'",
    "object-src 'none'",
    "frame-src 'none'",
    "base-uri 'none'",
    // Every dashboard form is handled by script; none posts natively. 'self' would let injected
    // markup post what a user types to /w/<slug>, a stranger's endpoint on this origin.
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

export interface WebBundle {
  manifest: WebManifest;
  assets: Map<string, Asset>;
}

/** Builds the dashboard if its sources changed since the last build, then reads it into memory. */
export async function loadWebBundle(): Promise<WebBundle> {
  const started = performance.now();
  const { dir, manifest, built } = await ensureWebBuild();
  if (built) log.info('dashboard built', { dir, ms: Math.round(performance.now() - started) });
  const assets = new Map<string, Asset>();
  for (const file of manifest.files) {
    assets.set(`/${file}`, makeAsset(new Uint8Array(await Bun.file(join(dir, file)).arrayBuffer()), typeOf(file)));
  }
  return { manifest, assets };
}

/**
 * The app's page (index.html) with its headers: 200 on the app's own paths, 404 for a browser's
 * page load of a path that is no route (src/http/route-miss.ts), where the app shows its "Page not
 * found" view under the same CSP.
 */
export function appPage(bundle: WebBundle, baseUrl: string): (request: Request, status?: number) => Response {
  const own = ownSources(baseUrl);
  const index = bundle.assets.get('/index.html');
  if (!index) throw new Error('dashboard build is missing index.html');
  return (request, status = 200) => serveAsset(request, index, { 'cache-control': 'no-cache', 'content-security-policy': appCsp(own.sources(request, '/assets/')) }, status);
}

export const webRoutes = (bundle: WebBundle, baseUrl: string) => {
  const pagesCss = bundle.assets.get(`/${bundle.manifest.pagesCss}`);
  if (!pagesCss) throw new Error('dashboard build is missing pages.css');
  // The app decides what to show on its own paths; every other path keeps its own routes (or 404).
  const serve = appPage(bundle, baseUrl);
  const page = ({ request }: { request: Request }) => serve(request);
  const app = new Elysia({ name: 'web', detail: { hide: true } })
    .get('/', page)
    // A fixed name for the server-rendered pages (claim, log-in), revalidated by ETag.
    .get('/assets/pages.css', ({ request }) => serveAsset(request, pagesCss, { 'cache-control': 'no-cache' }))
    .get('/assets/*', ({ request }) => {
      const a = bundle.assets.get(new URL(request.url).pathname);
      return a ? serveAsset(request, a, { 'cache-control': 'public, max-age=31536000, immutable' }) : errorResponse(new AppError('not_found', 'not found'));
    });
  for (const prefix of APP_PREFIXES) app.get(`/${prefix}`, page).get(`/${prefix}/*`, page);
  return app;
};
