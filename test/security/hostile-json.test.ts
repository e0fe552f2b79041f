/**
 * A field that should be text or a number but is an object whose `toString` or `valueOf` is data
 * (`{"name": {"toString": "x"}}`) is a 400 JSON and changes nothing. Elysia's own wording of that
 * validation error used to throw, which reached the client as a 500 (found by the route fuzz:
 * test/security/fuzz.test.ts, seed 995179924, on POST /api/send-test).
 */
import { expect, test } from 'bun:test';
import { call, type ErrorFields, type Method } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint } from './support';

describeBackends('security: objects that cannot be turned into text', (h) => {
  test('every such value is a 400 JSON validation error, and nothing is written', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const slug = endpoint.slug;
    type Listed = { slug: string; name: string; mockResponse: unknown };
    const listed = async () => (await call<Listed[]>(h.url, 'GET', '/api/endpoints', { token: account.key })).body.map((e) => [e.slug, e.name, e.mockResponse]);
    const before = await listed();
    expect(before.map((e) => e[0])).toEqual([slug]);
    const evil: unknown[] = [{ toString: '__proto__' }, { valueOf: 'x', toString: 'y' }, { toString: {} }];
    for (const value of evil) {
      const writes: [Method, string, unknown][] = [
        ['POST', '/api/send-test', { slug: 'hasOwnProperty', method: value, headers: { prototype: '__defineGetter__' }, body: {} }],
        ['POST', '/api/send-test', { slug, body: value }],
        ['POST', '/api/endpoints', { name: value }],
        ['PATCH', `/api/endpoints/${slug}`, { name: value }],
        ['PATCH', `/api/endpoints/${slug}`, { mockResponse: { status: value, body: '', headers: {} } }],
      ];
      for (const [method, path, body] of writes) {
        const r = await call<ErrorFields>(h.url, method, path, { token: account.key, body });
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code: 'validation' });
        expect(typeof r.body.error).toBe('string');
      }
    }
    expect(await listed()).toEqual(before);
    const captures = await call<unknown[]>(h.url, 'GET', `/api/endpoints/${slug}/requests`, { token: account.key });
    expect(captures.body).toEqual([]);
  });
});
