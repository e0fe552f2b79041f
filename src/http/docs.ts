/**
 * The OpenAPI page at /docs, served entirely from this origin: Swagger UI's files come from the
 * swagger-ui-dist package (read once, on first use), so the page works with no internet. The spec
 * itself stays at /docs/json (the swagger plugin). Must be registered after the plugin (see below).
 * The page names /docs/json in its text and in a `service-desc` link (RFC 8631), so a program that
 * follows `resource_documentation` from the discovery documents finds the machine-readable spec.
 */
import { readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { Elysia } from 'elysia';
import { AppError } from '../errors';
import { makeAsset, serveAsset, type Asset } from './assets';
import { ownSources } from './csp';
import { errorResponse } from './errors';

const DIST = dirname(Bun.resolveSync('swagger-ui-dist/package.json', import.meta.dir));
const VERSION = (JSON.parse(readFileSync(join(DIST, 'package.json'), 'utf8')) as { version: string }).version;

/**
 * No inline script: the page starts Swagger UI from a file of ours, and scripts come only from
 * /docs/assets/ (never the receiver's `/w/` on the same origin: src/http/csp.ts). Swagger UI sets
 * inline styles.
 */
function docsCsp(files: string): string {
  return [
    "default-src 'self'",
    `script-src ${files}`,
    `style-src ${files} 'unsafe-inline'`,
    "img-src 'self' data:",
    "connect-src 'self'",
    "object-src 'none'",
    "base-uri 'none'",
    // form-action does not fall back to default-src: without it an injected form could post to the
    // receiver's /w/ on the same origin. Swagger UI's own forms (Authorize) are handled by script.
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

const PAGE = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>hookcap API</title>
<link rel="stylesheet" href="/docs/assets/swagger-ui.css?v=${VERSION}">
<link rel="service-desc" type="application/json" href="/docs/json">
</head><body><p>The OpenAPI document (JSON, for programs and AI agents): <a href="/docs/json">/docs/json</a>. Agents register at <a href="/.well-known/oauth-authorization-server">/.well-known/oauth-authorization-server</a>.</p><div id="swagger-ui"></div>
<script src="/docs/assets/swagger-ui-bundle.js?v=${VERSION}"></script>
<script src="/docs/assets/init.js?v=${VERSION}"></script>
</body></html>`;

// validatorUrl: null, or Swagger UI would ask validator.swagger.io about the spec.
const INIT = `window.ui = SwaggerUIBundle({ url: '/docs/json', dom_id: '#swagger-ui', deepLinking: true, validatorUrl: null });\n`;

const FILES: Record<string, { type: string; read: () => Uint8Array<ArrayBuffer> }> = {
  'swagger-ui.css': { type: 'text/css; charset=utf-8', read: () => new Uint8Array(readFileSync(join(DIST, 'swagger-ui.css'))) },
  'swagger-ui-bundle.js': { type: 'text/javascript; charset=utf-8', read: () => new Uint8Array(readFileSync(join(DIST, 'swagger-ui-bundle.js'))) },
  'init.js': { type: 'text/javascript; charset=utf-8', read: () => new TextEncoder().encode(INIT) },
};

const loaded = new Map<string, Asset>();

function load(name: string): Asset | null {
  const cached = loaded.get(name);
  if (cached) return cached;
  const spec = FILES[name];
  if (!spec) return null;
  const a = makeAsset(spec.read(), spec.type);
  loaded.set(name, a);
  return a;
}

const PAGE_HEADERS = { 'content-type': 'text/html; charset=utf-8', 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff', 'x-frame-options': 'DENY', 'referrer-policy': 'same-origin', link: '</docs/json>; rel="service-desc"; type="application/json"' };

export const docsRoutes = (baseUrl: string) => {
  const own = ownSources(baseUrl);
  return (
    new Elysia({ name: 'docs-page', detail: { hide: true } })
      // Registered after the swagger plugin, whose own page at this path it replaces.
      .get('/docs', ({ request }) => new Response(PAGE, { headers: { ...PAGE_HEADERS, 'content-security-policy': docsCsp(own.sources(request, '/docs/assets/')) } }))
      .get('/docs/assets/:file', ({ request, params }) => {
        const a = load(params.file);
        // Names carry the package version (?v=), so a new release is a new URL.
        return a
          ? serveAsset(request, a, { 'cache-control': 'public, max-age=86400' })
          : errorResponse(new AppError('not_found', 'not found'));
      })
  );
};
