/**
 * Finding 1's production layout (and finding 4 on it): the receiver on a port and host name of its
 * own (RECEIVER_PORT, RECEIVER_URL). The API listener never serves /w/, the receiver listener
 * serves nothing else — not even through dot segments, which Bun resolves before our code runs.
 */
import { expect, test } from 'bun:test';
import { freePort } from '../support/server';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured, portOf, rawHttp, rawRequest } from './support';

// One port for the file: the two backends' servers run one after the other.
const RECEIVER_PORT = await freePort();
const RECEIVER_URL = `http://127.0.0.1:${RECEIVER_PORT}`;

describeBackends(
  'security: the receiver on a host of its own',
  (h) => {
    test('endpoint URLs name the receiver host; /w/ is answered there only, sandboxed; the API is not', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      expect(endpoint.url).toBe(`${RECEIVER_URL}/w/${endpoint.slug}`);
      const onApi = await fetch(`${h.url}/w/${endpoint.slug}`, { method: 'POST', body: 'x' });
      expect(onApi.status).toBe(404);
      expect(onApi.headers.get('content-security-policy')).toBe('sandbox');
      const onReceiver = await fetch(`${RECEIVER_URL}/w/${endpoint.slug}`, { method: 'POST', body: 'x' });
      expect(onReceiver.status).toBe(200);
      expect(onReceiver.headers.get('content-security-policy')).toBe('sandbox');
      expect(onReceiver.headers.get('x-content-type-options')).toBe('nosniff');
      const apiOnReceiver = await fetch(`${RECEIVER_URL}/api/endpoints`, { headers: { authorization: `Bearer ${account.key}` } });
      expect(apiOnReceiver.status).toBe(404);
      expect((await captured(h.url, account.key, endpoint.slug, 1)).length).toBe(1);
    });

    test('on the receiver listener, dot segments and odd Host headers reach nothing but 404', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const auth = { authorization: `Bearer ${account.key}` };
      for (const target of [`/w/${endpoint.slug}/%2e%2e/%2e%2e/api/endpoints`, `/w/${endpoint.slug}/../../api/endpoints`, '/api/endpoints', '/healthz']) {
        const ex = await rawHttp(RECEIVER_PORT, rawRequest('GET', target, { host: 'a', headers: auth }));
        expect({ target, status: ex.responses[0]?.status }).toEqual({ target, status: 404 });
        expect(ex.responses[0]?.body).not.toContain(`"slug":"${endpoint.slug}"`);
      }
      const onApi = await rawHttp(portOf(h.url), rawRequest('GET', `/w/${endpoint.slug}/api/endpoints`, { host: 'a', headers: auth }));
      expect(onApi.responses[0]?.status).toBe(404);
      expect(onApi.responses[0]?.body).not.toContain(`"slug":"${endpoint.slug}"`);
    });
  },
  { RECEIVER_PORT: String(RECEIVER_PORT), RECEIVER_URL },
);
