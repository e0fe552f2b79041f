/**
 * src/model/render.ts: every format gives back the captured bytes. The cURL commands are run by
 * real shells (sh and bash) against a real HTTP server, which compares what arrives.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { har as validateHar } from 'har-validator';
import { captureId } from '../../src/ids';
import type { Capture } from '../../src/model/capture';
import {
  bodyBytes,
  encodeBody,
  forwardHeaders,
  HAR_HEAD,
  HAR_TAIL,
  harEntryText,
  queryString,
  targetUrl,
  toCurl,
  toHar,
  toHarEntry,
  toNdjsonLine,
  toRawHttp,
} from '../../src/model/render';

function capture(fields: Partial<Capture> & { bytes?: Uint8Array } = {}): Capture {
  const { bytes, ...rest } = fields;
  const encoded = bytes ? encodeBody(bytes) : { body: '{"type":"invoice.paid"}', bodyEncoding: 'utf8' as const };
  const receivedAt = Date.UTC(2024, 0, 2, 3, 4, 5, 6);
  return {
    id: captureId(receivedAt),
    endpointId: 'ep_test',
    method: 'POST',
    path: '/stripe',
    headers: { host: 'hooks.example', 'content-type': 'application/json', 'x-one': 'a, b', 'content-length': '23' },
    ...encoded,
    queryParams: { x: '1', tag: ['a', 'b c'] },
    contentType: 'application/json',
    ip: '203.0.113.1',
    size: bytes ? bytes.length : 23,
    receivedAt,
    detectedProvider: '',
    detectedEvent: '',
    responseStatus: 202,
    ...rest,
  };
}

const BINARY = new Uint8Array([0x00, 0xff, 0xfe, 0x25, 0x27, 0x5c, 0x0a, 0x0d, 0x80, 0x41, 0x00, 0xc3, 0x28, 0x22, 0x24, 0x60]);

describe('request rebuilding', () => {
  test('bodyBytes and encodeBody round-trip text and binary', () => {
    expect(bodyBytes(capture({ bytes: BINARY }))).toEqual(BINARY);
    expect(encodeBody(BINARY).bodyEncoding).toBe('base64');
    const text = new TextEncoder().encode('héllo \u0000 🎉');
    expect(encodeBody(text)).toEqual({ body: 'héllo \u0000 🎉', bodyEncoding: 'utf8' });
    expect(bodyBytes(capture({ bytes: text }))).toEqual(text);
  });

  test('targetUrl appends the captured path and query to the base', () => {
    const c = capture();
    expect(targetUrl('http://127.0.0.1:4000/hooks', c)).toBe('http://127.0.0.1:4000/hooks/stripe?x=1&tag=a&tag=b+c');
    expect(targetUrl('http://127.0.0.1:4000/hooks/', c)).toBe('http://127.0.0.1:4000/hooks/stripe?x=1&tag=a&tag=b+c');
    expect(targetUrl('http://127.0.0.1:4000', { path: '/', queryParams: {} })).toBe('http://127.0.0.1:4000/');
    expect(targetUrl('http://127.0.0.1:4000/in', { path: '/', queryParams: {} })).toBe('http://127.0.0.1:4000/in');
    expect(targetUrl('http://h/in?k=v', { path: '/a%20b', queryParams: { q: 'é' } })).toBe('http://h/in/a%20b?k=v&q=%C3%A9');
    expect(queryString({})).toBe('');
  });

  test('the query as sent is used byte for byte; a record stored before it was kept rebuilds it from queryParams', () => {
    const raw = 'y=%20a&a=1&a=2&b&c=&d=%zz';
    const queryParams = { y: ' a', a: ['1', '2'], b: '', c: '', d: '%zz' };
    const c = capture({ method: 'GET', path: '/s', queryParams, query: raw, bytes: new Uint8Array() });
    expect(targetUrl('http://h/in', c)).toBe(`http://h/in/s?${raw}`);
    expect(targetUrl('http://h/in?k=v', c)).toBe(`http://h/in/s?k=v&${raw}`);
    expect(targetUrl('http://h/in', { path: '/s', queryParams, query: '' })).toBe('http://h/in/s');
    expect(toCurl(c, targetUrl('http://h/w/abc', c))).toContain(`'http://h/w/abc/s?${raw}'`);
    expect(new TextDecoder().decode(toRawHttp(c, targetUrl('http://h/w/abc', c))).split('\r\n')[0]).toBe(`GET /w/abc/s?${raw} HTTP/1.1`);
    expect(toHarEntry(c, targetUrl('http://h/w/abc', c)).request.url).toBe(`http://h/w/abc/s?${raw}`);
    // Old record: no `query`.
    const { query: _none, ...old } = c;
    expect(targetUrl('http://h/in', old)).toBe('http://h/in/s?y=+a&a=1&a=2&b=&c=&d=%25zz');
    expect(new TextDecoder().decode(toRawHttp(old, targetUrl('http://h/w/abc', old))).split('\r\n')[0]).toBe('GET /w/abc/s?y=+a&a=1&a=2&b=&c=&d=%25zz HTTP/1.1');
  });

  test('forwardHeaders drops hop-by-hop, host, content-length and what connection names', () => {
    const h = forwardHeaders({
      host: 'x',
      'content-length': '3',
      'transfer-encoding': 'chunked',
      connection: 'keep-alive, x-hop',
      'keep-alive': 'timeout=5',
      'x-hop': '1',
      upgrade: 'h2c',
      'stripe-signature': 't=1,v1=ab',
      'content-type': 'text/plain',
    });
    expect(h).toEqual({ 'stripe-signature': 't=1,v1=ab', 'content-type': 'text/plain' });
  });
});

describe('cURL commands reproduce the request exactly', () => {
  let server: ReturnType<typeof Bun.serve>;
  let last: { method: string; url: string; headers: Record<string, string>; body: Uint8Array } | null = null;
  beforeAll(() => {
    server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      async fetch(req) {
        last = { method: req.method, url: req.url, headers: Object.fromEntries(req.headers), body: new Uint8Array(await req.arrayBuffer()) };
        return new Response('ok');
      },
    });
  });
  afterAll(() => void server.stop(true));

  async function runIn(shell: string, command: string) {
    last = null;
    const p = Bun.spawn([shell, '-c', command], { stdout: 'pipe', stderr: 'pipe' });
    const code = await p.exited;
    if (code !== 0) throw new Error(`${shell} exited ${code}: ${await new Response(p.stderr).text()}`);
    if (!last) throw new Error('nothing arrived');
    return last as { method: string; url: string; headers: Record<string, string>; body: Uint8Array };
  }

  const cases: [string, Capture][] = [
    ['JSON text', capture()],
    ["text with quotes, %, \\ and a NUL", capture({ bytes: new TextEncoder().encode(`it's 100% "quoted" \\n $HOME \`x\` \u0000 end\n`), contentType: 'text/plain', headers: { 'content-type': 'text/plain' } })],
    ['binary', capture({ bytes: BINARY, headers: { 'content-type': 'application/octet-stream' } })],
    ['no content type', capture({ bytes: new TextEncoder().encode('a=1&b=2'), headers: {} })],
    ['empty GET', capture({ method: 'GET', bytes: new Uint8Array(0), headers: { accept: 'text/html', 'x-empty': '' } })],
  ];

  for (const shell of ['sh', 'bash']) {
    for (const [name, c] of cases) {
      test(`${shell}: ${name}`, async () => {
        const url = targetUrl(`http://127.0.0.1:${server.port}/in`, c);
        const got = await runIn(shell, toCurl(c, url));
        expect(got.method).toBe(c.method);
        expect(got.url).toBe(url);
        expect(got.body).toEqual(bodyBytes(c));
        for (const [k, v] of Object.entries(forwardHeaders(c.headers))) expect(got.headers[k]).toBe(v);
        // curl's own user-agent, accept and form content type are removed when the capture had none.
        for (const k of ['user-agent', 'accept', 'content-type']) if (!(k in c.headers)) expect(got.headers[k]).toBeUndefined();
      });
    }
  }
});

describe('raw HTTP, HAR and NDJSON', () => {
  test('raw message: request line, headers, recomputed content-length, exact body', () => {
    const c = capture({ bytes: BINARY, headers: { host: 'h.example', 'transfer-encoding': 'chunked', 'x-a': '1' } });
    const raw = toRawHttp(c, 'http://h.example/w/slug/stripe?x=1');
    const split = raw.findIndex((_, i) => raw[i] === 13 && raw[i + 1] === 10 && raw[i + 2] === 13 && raw[i + 3] === 10);
    const head = new TextDecoder().decode(raw.subarray(0, split));
    expect(head.split('\r\n')).toEqual(['POST /w/slug/stripe?x=1 HTTP/1.1', 'host: h.example', 'x-a: 1', `content-length: ${BINARY.length}`]);
    expect(raw.subarray(split + 4)).toEqual(BINARY);
  });

  test('HAR: valid 1.2 (har-validator), whole or streamed, binary bodies as base64', async () => {
    const text = capture();
    const binary = capture({ bytes: BINARY, headers: { cookie: 'a=1; b=2' } });
    const old: Capture = { ...capture(), responseStatus: undefined };
    delete old.responseStatus;
    const items = [text, binary, old].map((c) => ({ capture: c, url: targetUrl('https://hooks.example/w/slug', c) }));
    const whole = toHar(items);
    await validateHar(whole);
    const streamed = HAR_HEAD + items.map((e, i) => harEntryText(e.capture, e.url, i)).join('') + HAR_TAIL;
    expect(JSON.parse(streamed)).toEqual(JSON.parse(JSON.stringify(whole)));
    expect(streamed.split('\n').length).toBe(items.length + 3);
    expect(JSON.parse(HAR_HEAD + HAR_TAIL).log.entries).toEqual([]);

    const [e0, e1, e2] = whole.log.entries;
    expect(e0?.request.postData?.text).toBe(text.body);
    expect(e0?.request.queryString).toEqual([{ name: 'x', value: '1' }, { name: 'tag', value: 'a' }, { name: 'tag', value: 'b c' }]);
    expect(e0?.response.status).toBe(202);
    expect(e0?.startedDateTime).toBe('2024-01-02T03:04:05.006Z');
    expect((e1?.request.postData as Record<string, unknown> | undefined)?._encoding).toBe('base64');
    expect(bodyBytes({ body: e1?.request.postData?.text ?? '', bodyEncoding: 'base64' })).toEqual(BINARY);
    expect(e1?.request.cookies).toEqual([{ name: 'a', value: '1' }, { name: 'b', value: '2' }]);
    expect(e2?.response.status).toBe(0);
    expect(toHarEntry(text, 'http://x/')._hookcap).toMatchObject({ id: text.id });
  });

  test('NDJSON: one record per line', () => {
    const c = capture({ bytes: BINARY });
    const line = toNdjsonLine(c);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1).includes('\n')).toBe(false);
    expect(JSON.parse(line)).toEqual(c);
  });
});
