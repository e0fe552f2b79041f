/**
 * How the dashboard is served: index.html on the app's own paths (and nowhere else), hashed assets
 * cached for good, a strict CSP with no inline script, the shared stylesheet of the server pages,
 * and the /docs page working from this origin alone. HTTP only; the browser tests drive the app.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { startServer, stopServer, type TestServer } from '../support/server';

let s: TestServer;
beforeAll(async () => {
  s = await startServer();
});
afterAll(async () => {
  await stopServer(s);
});

const get = (path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { headers, redirect: 'manual' });

/** Every src/href in a page; none may leave this origin. */
function urlsIn(html: string): string[] {
  return [...html.matchAll(/\s(?:src|href)="([^"]+)"/g)].map((m) => m[1] ?? '');
}

describe('dashboard serving', () => {
  test('the app page: strict CSP, no inline script, revalidated, hashed same-origin assets', async () => {
    const r = await get('/');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toContain('text/html');
    expect(r.headers.get('cache-control')).toBe('no-cache');
    const csp = r.headers.get('content-security-policy') ?? '';
    // Scripts and styles from /assets/ only: not 'self', which takes in the receiver's /w/.
    expect(csp).toContain(`script-src ${s.url}/assets/;`);
    expect(csp).toContain(`style-src ${s.url}/assets/;`);
    expect(csp).toContain("frame-ancestors 'none'");
    expect(csp).not.toContain('unsafe-inline');
    expect(csp).not.toContain('unsafe-eval');
    expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    const html = await r.text();
    expect(html).toContain('<title>hookcap</title>');
    // Every script is a file: nothing inline for the CSP to allow.
    for (const m of html.matchAll(/<script\b([^>]*)>([\s\S]*?)<\/script>/g)) {
      expect(m[1]).toContain('src=');
      expect((m[2] ?? '').trim()).toBe('');
    }
    const urls = urlsIn(html);
    expect(urls.length).toBeGreaterThan(0);
    for (const u of urls) expect(u.startsWith('/')).toBe(true);
    expect(urls.some((u) => /^\/assets\/[\w-]+-[a-z0-9]{8}\.js$/.test(u))).toBe(true);
  });

  test("the script sources name the page's own host too when it is not BASE_URL's; a host CSP cannot write falls back to 'self'", async () => {
    const port = new URL(s.url).port;
    const scriptSrc = async (path: string, host: string) => {
      const r = await fetch(`${s.url}${path}`, { headers: { host } });
      return /script-src ([^;]*)/.exec(r.headers.get('content-security-policy') ?? '')?.[1];
    };
    expect(await scriptSrc('/', `localhost:${port}`)).toBe(`${s.url}/assets/ localhost:${port}/assets/`);
    expect(await scriptSrc('/docs', `LAN-Host.example:${port}`)).toBe(`${s.url}/docs/assets/ lan-host.example:${port}/docs/assets/`);
    expect(await scriptSrc('/', `[::1]:${port}`)).toBe("'self'");
  });

  test('assets: immutable, gzipped when asked, 304 on a matching ETag, 404 JSON when unknown', async () => {
    const html = await (await get('/')).text();
    const js = urlsIn(html).find((u) => u.endsWith('.js'));
    expect(js).toBeDefined();
    const plain = await get(js ?? '', { 'accept-encoding': 'identity' });
    expect(plain.status).toBe(200);
    expect(plain.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(plain.headers.get('content-type')).toContain('javascript');
    const body = new Uint8Array(await plain.arrayBuffer());
    const gz = await fetch(`${s.url}${js}`, { headers: { 'accept-encoding': 'gzip' }, decompress: false });
    expect(gz.headers.get('content-encoding')).toBe('gzip');
    const packed = new Uint8Array(await gz.arrayBuffer());
    expect(packed.length).toBeLessThan(body.length);
    expect(Bun.gunzipSync(packed)).toEqual(body);
    const again = await get(js ?? '', { 'if-none-match': plain.headers.get('etag') ?? '' });
    expect(again.status).toBe(304);
    const missing = await get('/assets/nope-12345678.js');
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ code: 'not_found' });
  });

  test('client routes get the app; API, receiver, docs, health, discovery and agent pages keep theirs', async () => {
    for (const path of ['/endpoints', '/endpoints/abc123', '/endpoints/abc123/requests/req_x', '/endpoints/abc123/settings', '/search', '/search/requests/req_x?q=a', '/account', '/teams', '/teams/t1', '/signin', '/signup']) {
      const r = await get(path);
      expect({ path, status: r.status, type: r.headers.get('content-type') }).toEqual({ path, status: 200, type: 'text/html; charset=utf-8' });
      expect(await r.text()).toContain('<div id="root">');
    }
    const json = async (path: string, status: number) => {
      const r = await get(path);
      expect({ path, status: r.status }).toEqual({ path, status });
      expect(r.headers.get('content-type')).toContain('application/json');
      return r;
    };
    await json('/api/nope', 404);
    await json('/api/endpoints', 401);
    await json('/w/nosuchslug12', 404);
    await json('/healthz', 200);
    await json('/docs/json', 200);
    await json('/.well-known/oauth-protected-resource', 200);
    await json('/endpointsx', 404);
    await json('/nothing/here', 404);
    const claim = await get('/agent/login');
    expect(claim.status).toBe(200);
    expect(await claim.text()).toContain('<h1>Sign in to continue</h1>');
  });

  test('the server-rendered pages share the dashboard stylesheet and allow no inline style', async () => {
    const r = await get('/agent/login');
    const html = await r.text();
    expect(urlsIn(html)).toContain('/assets/pages.css');
    expect(html).not.toContain('<style');
    expect(r.headers.get('content-security-policy')).toContain("style-src 'self'");
    const css = await get('/assets/pages.css');
    expect(css.status).toBe(200);
    expect(css.headers.get('content-type')).toContain('text/css');
    expect(css.headers.get('cache-control')).toBe('no-cache');
    // The same colour scheme rules as the app.
    expect(await css.text()).toContain('prefers-color-scheme:dark');
  });

  test('/docs loads Swagger UI from this origin only, with no inline script', async () => {
    const r = await get('/docs');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-security-policy')).toContain(`script-src ${s.url}/docs/assets/;`);
    const html = await r.text();
    expect(html).not.toMatch(/https?:\/\//);
    expect(html).not.toMatch(/<script>(?!<)/);
    // Besides its three assets, the page names the machine-readable document and agent discovery.
    const urls = urlsIn(html).filter((u) => u !== '/docs/json' && u !== '/.well-known/oauth-authorization-server');
    expect(urls.length).toBe(3);
    for (const u of urls) {
      expect(u.startsWith('/docs/assets/')).toBe(true);
      const a = await get(u);
      expect({ u, status: a.status }).toEqual({ u, status: 200 });
      expect(await a.text()).not.toContain('cdn.jsdelivr.net');
    }
  });
});
