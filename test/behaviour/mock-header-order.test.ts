/**
 * A mock response's headers keep the order their owner saved them in: GET answers them in that
 * order and the receiver sends them in it. The column was jsonb, which sorts an object's keys
 * (shorter first, then bytewise), so `x-zeta, x-a, content-type` came back `x-a, x-zeta, …`.
 *
 * The answer's head is read from a raw socket: fetch's Headers iterates names sorted. Bun's server
 * writes the headers it knows by name (Content-Type, Cache-Control, ETag, …) before all others,
 * each group in the order set; the expected order below says so.
 */
import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { rawExchange } from '../support/raw-socket';
import { describeBackends } from '../support/suite';

/** Header names of a raw answer, lower-cased, in the order they were sent. */
function headerNames(answer: Buffer): { status: string; names: string[] } {
  const head = answer.subarray(0, answer.indexOf('\r\n\r\n')).toString('latin1').split('\r\n');
  return { status: head[0] ?? '', names: head.slice(1).map((line) => line.slice(0, line.indexOf(':')).toLowerCase()) };
}

// Not sorted in any way jsonb, a name sort or a length sort would give back.
const SAVED = ['x-zeta', 'x-a', 'content-type', 'x-middle', 'cache-control', 'x-bb'];

describeBackends('mock response header order', (h) => {
  test('GET answers the headers in the order saved, and the receiver sends them in it', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'mock order' } })).body;
    const headers = Object.fromEntries(SAVED.map((name, i) => [name, `v${i}`]));
    const patched = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { status: 201, body: 'ok', headers } } });
    expect(patched.status).toBe(200);
    expect(Object.keys(patched.body.mockResponse!.headers)).toEqual(SAVED);
    const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect(Object.keys(got.body.mockResponse!.headers)).toEqual(SAVED);
    const listed = await call<{ slug: string; mockResponse: { headers: Record<string, string> } }[]>(h.url, 'GET', '/api/endpoints', { token: a.key });
    expect(Object.keys(listed.body.find((e) => e.slug === ep.slug)!.mockResponse.headers)).toEqual(SAVED);

    const url = new URL(ep.url);
    const request = Buffer.from(`POST ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\ncontent-length: 0\r\nconnection: close\r\n\r\n`, 'latin1');
    const sent = await eventually(async () => {
      const answer = headerNames(await rawExchange(Number(url.port), request));
      return answer.status.startsWith('HTTP/1.1 201') ? answer.names.filter((n) => SAVED.includes(n)) : null;
    });
    // Bun writes the names it knows first (in the order set), then the rest in the order set.
    expect(sent).toEqual(['content-type', 'cache-control', 'x-zeta', 'x-a', 'x-middle', 'x-bb']);
  });
});
