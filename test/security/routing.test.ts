/**
 * Finding 4: anything under /w/ is the receiver's, whatever the Host header says. (Dot segments,
 * `%2e%2e` included, are resolved by Bun before any of our code sees the path: on a listener that
 * serves only the receiver they reach nothing else, see receiver-host.test.ts and docs/security.md.)
 */
import { expect, test } from 'bun:test';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured, portOf, rawHttp, rawRequest } from './support';

describeBackends('security: /w/ belongs to the receiver', (h) => {
  test('a /w/ path is captured whatever the Host header: short, empty, odd', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const hosts = ['a', 'ab', 'abc', '', 'a/b', 'x?y', '[::1]', 'localhost:1'];
    for (const host of hosts) {
      const ex = await rawHttp(
        portOf(h.url),
        rawRequest('GET', `/w/${endpoint.slug}/api/endpoints`, { host, headers: { authorization: `Bearer ${account.key}` } }),
      );
      const res = ex.responses[0];
      expect({ host, status: res?.status }).toEqual({ host, status: 200 });
      expect(res?.headers['x-request-id']).toStartWith('req_');
      expect(res?.headers['content-security-policy']).toBe('sandbox');
      // The API would have answered with the account's endpoint list.
      expect(res?.body).not.toContain(endpoint.slug);
    }
    const recs = await captured(h.url, account.key, endpoint.slug, hosts.length);
    expect(recs.every((r) => r.path === '/api/endpoints')).toBe(true);
  });

  test('the path after the slug is recorded as sent, encoded separators included', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const ex = await rawHttp(portOf(h.url), rawRequest('POST', `/w/${endpoint.slug}/a%2F..%2Fb/%2e/c?x=%2e%2e`, { host: 'a', body: 'x' }));
    expect(ex.responses[0]?.status).toBe(200);
    const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
    expect(rec?.path).toBe('/a%2F..%2Fb/c');
    expect(rec?.queryParams).toEqual({ x: '..' });
  });
});
