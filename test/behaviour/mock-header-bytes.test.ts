/**
 * Mock response header values are typed text, like `hookcap send -H` and send-test's headers
 * (docs/exports.md "Header bytes"): the receiver sends their UTF-8 bytes (converted once, when the
 * mock is saved), the API answers the text as typed, so PATCH → GET → PATCH is stable, and a
 * control character is a 400. The answer's bytes are read from the real receiver over a raw socket.
 */
import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { rawExchange } from '../support/raw-socket';
import { describeBackends } from '../support/suite';


/** The answer's status line and header value bytes (names lower-cased). */
function headOf(answer: Buffer): { status: string; headers: Map<string, Buffer> } {
  const end = answer.indexOf('\r\n\r\n');
  const lines: Buffer[] = [];
  let at = 0;
  for (let i = answer.indexOf('\r\n'); i !== -1 && i <= end; i = answer.indexOf('\r\n', at)) {
    lines.push(answer.subarray(at, i));
    at = i + 2;
  }
  const headers = new Map<string, Buffer>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.subarray(0, colon).toString('latin1').toLowerCase(), Buffer.from(line.subarray(colon + 1).toString('latin1').trim(), 'latin1'));
  }
  return { status: (lines[0] ?? Buffer.alloc(0)).toString('latin1'), headers };
}

const TYPED = { 'x-name': 'café ✓', 'x-plain': 'ascii only', 'x-tab': 'a\tb' };

describeBackends('mock response header values as typed text', (h) => {
  test('the receiver sends the UTF-8 bytes of what was typed; GET answers the typed text; PATCH → GET → PATCH is stable', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'mock bytes' } })).body;
    const mock = { status: 202, body: 'ok', headers: { 'X-Name': TYPED['x-name'], 'x-plain': TYPED['x-plain'], 'x-tab': TYPED['x-tab'] } };
    const patched = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock } });
    expect(patched.status).toBe(200);
    expect(patched.body.mockResponse).toEqual({ status: 202, body: 'ok', headers: TYPED });
    const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect(got.body.mockResponse).toEqual({ status: 202, body: 'ok', headers: TYPED });
    // What GET answered, saved again, is the same mock.
    const again = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: got.body.mockResponse } });
    expect(again.body.mockResponse).toEqual(got.body.mockResponse);
    expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.mockResponse).toEqual(got.body.mockResponse);

    const url = new URL(ep.url);
    const request = Buffer.from(`GET ${url.pathname} HTTP/1.1\r\nhost: ${url.host}\r\nconnection: close\r\n\r\n`, 'latin1');
    const head = await eventually(async () => {
      const answer = headOf(await rawExchange(Number(url.port), request));
      return answer.status.startsWith('HTTP/1.1 202') ? answer : null;
    });
    expect(head.headers.get('x-name')?.toString('hex')).toBe(Buffer.from('café ✓', 'utf8').toString('hex'));
    expect(head.headers.get('x-plain')?.toString('latin1')).toBe('ascii only');
    expect(head.headers.get('x-tab')?.toString('hex')).toBe(Buffer.from('a\tb').toString('hex'));
  });

  test('a control character or line break in a mock header value is a 400 naming the header; nothing is saved', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'mock refusals' } })).body;
    for (const value of ['a\u0007b', 'line\nbreak', 'é\r', 'del\u007f']) {
      const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { status: 200, body: '', headers: { 'x-bad': value } } } });
      expect(r.status).toBe(400);
      expect(r.body as unknown).toEqual({ code: 'validation', error: 'mockResponse.headers may not set "x-bad": its value must be one line of text (no control characters)' });
    }
    expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.mockResponse).toBeNull();
  });
});
