/**
 * The dashboard's "Copy as cURL" and HAR, checked at the byte level: each command is run by bash
 * against a server that records what arrives, and must send exactly the captured method, path,
 * query, headers and body, adding nothing curl would add on its own.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import type { Capture } from '../../src/model/capture';
import { bodyBytes } from '../../web/src/lib/body';
import { curlCommand } from '../../web/src/lib/curl';
import { harOf } from '../../web/src/lib/har';

interface Seen {
  method: string;
  url: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

let server: ReturnType<typeof Bun.serve>;
const seen: Seen[] = [];

beforeAll(() => {
  server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(req) {
      seen.push({ method: req.method, url: req.url, headers: Object.fromEntries(req.headers), body: new Uint8Array(await req.arrayBuffer()) });
      return new Response('ok');
    },
  });
});
afterAll(() => {
  server.stop(true);
});

const endpointUrl = () => `http://127.0.0.1:${server.port}/w/abcdefghjkmn`;

function capture(over: Partial<Capture>): Capture {
  const body = over.body ?? '';
  return {
    id: 'req_01HZZZZZZZZZZZZZZZZZZZZZZZ',
    endpointId: 'ep_1',
    method: 'POST',
    path: '/',
    headers: {},
    body,
    bodyEncoding: 'utf8',
    queryParams: {},
    contentType: over.headers?.['content-type'] ?? '',
    ip: '127.0.0.1',
    size: 0,
    receivedAt: Date.now(),
    detectedProvider: '',
    detectedEvent: '',
    ...over,
  };
}

async function replay(c: Capture): Promise<Seen> {
  const before = seen.length;
  const proc = Bun.spawn(['bash', '-c', `${curlCommand(c, endpointUrl())} -s -o /dev/null`], { stderr: 'pipe' });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`curl failed (${code}): ${await new Response(proc.stderr).text()}`);
  const got = seen[before];
  if (!got || seen.length !== before + 1) throw new Error('expected exactly one request');
  return got;
}

/** What must arrive: the captured headers, with Host and Content-Length as curl sets them. */
function expectSame(c: Capture, got: Seen) {
  const bytes = bodyBytes(c);
  expect(got.method).toBe(c.method);
  const expected: Record<string, string> = { ...c.headers, host: `127.0.0.1:${server.port}` };
  delete expected['transfer-encoding'];
  if (bytes.length > 0 || 'content-length' in c.headers) expected['content-length'] = String(bytes.length);
  expect(got.headers).toEqual(expected);
  expect(got.body).toEqual(bytes);
}

describe('cURL command', () => {
  test('binary body with NULs, repeated and escaped query values, quotes in headers', async () => {
    const raw = new Uint8Array([0, 1, 2, 0xff, 0x27, 0x22, 0x0a, 0x00, 0x5c, 0x24]);
    const c = capture({
      method: 'PATCH',
      path: '/a/b%20c/%C3%BC',
      queryParams: { q: ['a b', 'c'], sym: "&='\"", empty: '' },
      headers: { 'content-type': 'application/x-thing', 'x-quote': `it's "quoted" $HOME \`id\``, accept: '*/*', 'user-agent': 'Sender/1' },
      body: Buffer.from(raw).toString('base64'),
      bodyEncoding: 'base64',
      size: raw.length,
    });
    const got = await replay(c);
    expectSame(c, got);
    const url = new URL(got.url);
    expect(url.pathname).toBe('/w/abcdefghjkmn/a/b%20c/%C3%BC');
    expect(url.searchParams.getAll('q')).toEqual(['a b', 'c']);
    expect(url.searchParams.get('sym')).toBe("&='\"");
  });

  test('text with a NUL goes through base64; an empty header stays, present and empty', async () => {
    const c = capture({ headers: { 'content-type': 'text/plain', 'x-empty': '' }, body: 'a\u0000b\n\'"', size: 6 });
    expectSame(c, await replay(c));
  });

  test("a body with ESC, BEL, a lone CR or a bidi override goes through base64: nothing raw for a terminal to act on, the same bytes sent", async () => {
    const body = 'title\u001b]0;pwned\u0007 \u001b[2J\rover\u202eevil\u0085';
    const c = capture({ headers: { 'content-type': 'text/plain' }, body, size: Buffer.byteLength(body) });
    const command = curlCommand(c, endpointUrl());
    expect(command).not.toMatch(/[\u0000-\u0008\u000b-\u001f\u007f-\u009f\u202a-\u202e]/);
    expect(command).toContain('base64 -d');
    expectSame(c, await replay(c));
    // Line breaks and tabs are text: such a body stays readable in the command.
    const plain = capture({ headers: { 'content-type': 'text/plain' }, body: 'a\tb\r\nc\n', size: 7 });
    expect(curlCommand(plain, endpointUrl())).toContain("--data-binary 'a\tb\r\nc\n'");
  });

  test('curl adds none of its own headers: no Accept, User-Agent, Content-Type or Expect', async () => {
    const big = 'x'.repeat(5000);
    const c = capture({ headers: {}, body: big, size: big.length });
    const got = await replay(c);
    expectSame(c, got);
    for (const h of ['accept', 'user-agent', 'content-type', 'expect']) expect(got.headers[h]).toBeUndefined();
  });

  test('GET without a body, brackets in the query', async () => {
    const c = capture({ method: 'GET', path: '/list', queryParams: { 'filter[a]': '{1}' }, headers: { accept: 'application/json' } });
    const got = await replay(c);
    expectSame(c, got);
    expect(new URL(got.url).searchParams.get('filter[a]')).toBe('{1}');
  });

  test('the query is sent exactly as captured (encoding, order, repeats, bare and empty names, a bad escape); an old record rebuilds it', async () => {
    const raw = 'y=%20a&a=1&a=2&b&c=&d=%zz';
    const c = capture({ method: 'GET', path: '/signed', queryParams: { y: ' a', a: ['1', '2'], b: '', c: '', d: '%zz' }, query: raw });
    const got = await replay(c);
    expectSame(c, got);
    expect(got.url).toBe(`${endpointUrl()}/signed?${raw}`);
    expect(harOf(c, endpointUrl()).log.entries[0]?.request.url).toBe(`${endpointUrl()}/signed?${raw}`);
    // Stored before the raw query was kept: rebuilt from queryParams.
    const { query: _none, ...old } = c;
    expect((await replay(old)).url).toBe(`${endpointUrl()}/signed?y=+a&a=1&a=2&b=&c=&d=%25zz`);
    // No query at all.
    expect((await replay({ ...c, query: '', queryParams: {} })).url).toBe(`${endpointUrl()}/signed`);
  });

  test('non-ASCII header values go out as the bytes that arrived: UTF-8, Latin-1 bytes, a bidi control', async () => {
    // As stored: one character per received byte (Bun reads header bytes as Latin-1).
    const latin1 = (bytes: number[]) => String.fromCharCode(...bytes);
    const utf8 = (text: string) => latin1([...new TextEncoder().encode(text)]);
    const c = capture({
      headers: {
        'x-name': utf8('café ✓ 日本'),
        'x-latin1': latin1([0x63, 0x61, 0x66, 0xe9, 0x20, 0x25, 0x73, 0x5c, 0x6e, 0x27, 0x24, 0x28, 0x69, 0x64, 0x29]), // caf\xe9 %s\n'$(id)
        'x-bidi': utf8('a\u202eb'),
      },
      body: 'x',
      size: 1,
    });
    const command = curlCommand(c, endpointUrl());
    // Readable where it can be: the UTF-8 reading, not `cafÃ©`.
    expect(command).toContain(`'x-name: café ✓ 日本'`);
    expect(command).not.toContain('\u202e');
    expectSame(c, await replay(c));
  });

  test('HAR carries the same request, the body as text or base64', () => {
    const c = capture({ method: 'PUT', headers: { 'content-type': 'application/octet-stream', 'x-a': '1' }, body: Buffer.from([0, 255]).toString('base64'), bodyEncoding: 'base64', size: 2, queryParams: { k: ['1', '2'] } });
    const entry = harOf(c, endpointUrl()).log.entries[0];
    expect(entry?.request.url).toBe(`${endpointUrl()}?k=1&k=2`);
    expect(entry?.request.queryString).toEqual([
      { name: 'k', value: '1' },
      { name: 'k', value: '2' },
    ]);
    expect(entry?.request.headers).toEqual([
      { name: 'content-type', value: 'application/octet-stream' },
      { name: 'x-a', value: '1' },
    ]);
    expect(entry?.request.postData).toEqual({ mimeType: 'application/octet-stream', text: 'AP8=', encoding: 'base64' });
    const text = harOf(capture({ body: 'héllo', size: 6, headers: { 'content-type': 'text/plain' } }), endpointUrl()).log.entries[0];
    expect(text?.request.postData).toEqual({ mimeType: 'text/plain', text: 'héllo' });
  });

  test("HAR header values as the server's HAR writes them: the UTF-8 reading, else Latin-1 marked _encoding", () => {
    // Stored one character per byte: a UTF-8 `café ✓` and a lone Latin-1 `é` (0xE9).
    const utf8 = Buffer.from('café ✓', 'utf8').toString('latin1');
    const entry = harOf(capture({ headers: { 'x-utf8': utf8, 'x-latin1': 'caf\u00e9', 'x-a': '1' } }), endpointUrl()).log.entries[0];
    expect(entry?.request.headers).toEqual([
      { name: 'x-utf8', value: 'café ✓' },
      { name: 'x-latin1', value: 'caf\u00e9', _encoding: 'latin1' },
      { name: 'x-a', value: '1' },
    ]);
  });
});
