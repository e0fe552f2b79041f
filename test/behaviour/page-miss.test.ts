/**
 * An address outside /api that is no route (src/http/route-miss.ts): a browser loading it (GET or
 * HEAD taking text/html) gets the dashboard's page with status 404 and the headers the dashboard's
 * own paths carry, and the app shows "Page not found" (test/browser/page-not-found.test.ts); any
 * other request gets a JSON 404 worded as an /api miss is. /api misses and the receiver keep theirs.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { startInProcess, stopInProcess, type InProcessServer } from '../support/in-process';
import { SUITE_START_MS } from '../support/server';

// What Chromium sends when a person types an address.
const BROWSER_ACCEPT = 'text/html,application/xhtml+xml,application/xml;q=0.9,image/avif,image/webp,*/*;q=0.8';
const WHERE = 'the dashboard is at /, the API at /api (described at /docs)';

let s: InProcessServer;
beforeAll(async () => {
  s = await startInProcess();
}, SUITE_START_MS);
afterAll(async () => {
  await stopInProcess(s);
});

const ask = (method: string, path: string, headers: Record<string, string> = {}) => fetch(`${s.url}${path}`, { method, headers, redirect: 'manual' });

/** A response's headers but those that differ between two answers of the same page by nature. */
function stableHeaders(r: Response): Record<string, string> {
  const out: Record<string, string> = {};
  r.headers.forEach((value, name) => {
    if (!['date', 'content-length', 'etag', 'content-encoding'].includes(name)) out[name] = value;
  });
  return out;
}

test("a browser's load of an address that is no route: the dashboard's page, status 404, with the dashboard's headers", async () => {
  const home = await ask('GET', '/', { accept: BROWSER_ACCEPT });
  expect(home.status).toBe(200);
  const homeHtml = await home.text();
  for (const path of ['/nope', '/endpointsx', '/deep/er/path?q=1', '/.well-known/nope']) {
    const r = await ask('GET', path, { accept: BROWSER_ACCEPT });
    expect({ path, status: r.status }).toEqual({ path, status: 404 });
    // The same CSP, cache-control, content type and security headers as the page at /.
    expect(stableHeaders(r)).toEqual(stableHeaders(home));
    expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
    expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
    expect(r.headers.get('etag')).toBeNull();
    expect(await r.text()).toBe(homeHtml);
  }
  // A revalidation with the page's ETag is not a 304: that would make the miss the cached 200.
  const revalidated = await ask('GET', '/nope', { accept: BROWSER_ACCEPT, 'if-none-match': home.headers.get('etag') ?? '' });
  expect(revalidated.status).toBe(404);
  const head = await ask('HEAD', '/nope', { accept: 'text/html' });
  expect(head.status).toBe(404);
  expect(head.headers.get('content-type')).toBe('text/html; charset=utf-8');
});

test('any other request for such an address: a JSON 404 saying what was asked and where the dashboard and the API are', async () => {
  const asks: [string, string, Record<string, string>][] = [
    ['GET', '/nope', {}],
    ['GET', '/nope', { accept: 'application/json' }],
    ['GET', '/nope', { accept: '*/*' }],
    ['POST', '/nope', { accept: BROWSER_ACCEPT }],
    ['DELETE', '/endpointsx', {}],
    ['GET', '/admin/api/health', {}],
  ];
  for (const [method, path, headers] of asks) {
    const r = await ask(method, path, headers);
    expect({ method, path, status: r.status, type: r.headers.get('content-type'), body: await r.json() }).toEqual({
      method,
      path,
      status: 404,
      type: 'application/json',
      body: { error: `no page ${method} ${path}; ${WHERE}`, code: 'not_found' },
    });
  }
});

test('/api misses and the receiver keep their own answers, even for a browser', async () => {
  const api = await ask('GET', '/api/nope', { accept: BROWSER_ACCEPT });
  expect(api.status).toBe(404);
  expect(await api.json()).toEqual({ error: 'no route GET /api/nope; the API is described at /docs (JSON at /docs/json)', code: 'not_found' });
  const receiver = await ask('GET', '/w/nosuchslug12', { accept: BROWSER_ACCEPT });
  expect(receiver.status).toBe(404);
  expect(receiver.headers.get('content-type')).toContain('application/json');
  expect(((await receiver.json()) as { error: string }).error).toStartWith('no endpoint with this slug');
});
