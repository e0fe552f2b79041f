/**
 * Every answer under /api/ says `cache-control: no-store` (captured bodies, keys and account data
 * are kept by no browser cache or proxy) and every answer of the API, pages and docs says
 * `x-content-type-options: nosniff`; a route that says its own cache-control keeps it
 * (src/http/response-headers.ts).
 */
import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint } from './support';

const NO_STORE = { 'cache-control': 'no-store', 'x-content-type-options': 'nosniff' };
const pick = (h: Headers) => ({ 'cache-control': h.get('cache-control'), 'x-content-type-options': h.get('x-content-type-options') });

describeBackends('security: default response headers', (h) => {
  test('API answers, successes and refusals alike, are no-store and nosniff', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    await fetch(`${h.url}/w/${endpoint.slug}/x`, { method: 'POST', body: '<script>alert(1)</script>' });
    const answers = [
      await call(h.url, 'GET', '/api/endpoints', { token: account.key }),
      await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}/requests`, { token: account.key }),
      await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name: 'shown once' } }),
      await call(h.url, 'GET', '/api/endpoints/zzzzzzzzzzzz', { token: account.key }), // 404
      await call(h.url, 'GET', '/api/endpoints'), // 401
      await call(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, { token: account.key, body: { name: 5 } }), // 400
      await call(h.url, 'POST', '/api/endpoints', { token: account.key, raw: '{not json', headers: { 'content-type': 'application/json' } }), // parse error
    ];
    expect(answers.map((r) => [r.status, pick(r.headers)])).toEqual([200, 200, 201, 404, 401, 400, 400].map((s) => [s, NO_STORE]));
  });

  test("routes that say their own cache-control keep it; pages and docs are nosniff too", async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const abort = new AbortController();
    const stream = await fetch(`${h.url}/api/stream/${endpoint.slug}`, { headers: { authorization: `Bearer ${account.key}` }, signal: abort.signal });
    expect(stream.status).toBe(200);
    expect(pick(stream.headers)).toEqual({ 'cache-control': 'no-cache, no-transform', 'x-content-type-options': 'nosniff' });
    abort.abort();
    const home = await fetch(`${h.url}/`);
    expect(pick(home.headers)).toEqual({ 'cache-control': 'no-cache', 'x-content-type-options': 'nosniff' });
    const script = /src="(\/assets\/[^"]+\.js)"/.exec(await home.text())?.[1];
    expect(script).toBeDefined();
    const asset = await fetch(`${h.url}${script}`);
    expect(pick(asset.headers)).toEqual({ 'cache-control': 'public, max-age=31536000, immutable', 'x-content-type-options': 'nosniff' });
    const docs = await fetch(`${h.url}/docs/json`);
    expect(docs.headers.get('x-content-type-options')).toBe('nosniff');
    expect(docs.headers.get('cache-control')).not.toBe('no-store');
  });
});
