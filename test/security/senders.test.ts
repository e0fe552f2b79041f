/**
 * The receiver, and the API's own size refusals, as senders' HTTP stacks see them (docs/security.md
 * "Limits", docs/api.md): what a client that writes its whole body before reading the answer gets
 * for a body over the limit.
 */
import { expect, test } from 'bun:test';
import { connect } from 'node:net';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured, parseResponses, portOf, rawRequest } from './support';

interface SenderAnswer {
  status?: number;
  /** The JSON answer's `code` (capture API and receiver) or, under /api/agent/, its `error`. */
  code?: string;
  /** The exception the client raised instead of reading an answer. */
  error?: string;
}

/**
 * A Python sender (http.client, which requests and urllib3 build on): it writes the whole body, then
 * reads the answer. `chunked` sends the body without a Content-Length. Bun's own node:http client
 * reads while it writes, so it would not show what such senders see.
 */
const PYTHON_SENDER = `
import http.client, json, sys
from urllib.parse import urlsplit
url, size, chunked, headers = urlsplit(sys.argv[1]), int(sys.argv[2]), sys.argv[3] == "1", json.loads(sys.argv[4])
body = b"a" * size
c = http.client.HTTPConnection(url.hostname, url.port, timeout=30)
try:
    if chunked:
        c.request("POST", url.path, body=iter([body[i:i + 65536] for i in range(0, size, 65536)]), headers=headers, encode_chunked=True)
    else:
        c.request("POST", url.path, body=body, headers=headers)
    r = c.getresponse()
    answer = json.loads(r.read())
    print(json.dumps({"status": r.status, "code": answer.get("code", answer.get("error"))}))
except Exception as e:
    print(json.dumps({"error": type(e).__name__}))
`;

async function pythonPost(url: string, size: number, chunked: boolean, headers: Record<string, string> = {}): Promise<SenderAnswer> {
  const proc = Bun.spawn(['python3', '-c', PYTHON_SENDER, url, String(size), chunked ? '1' : '0', JSON.stringify(headers)], { stdout: 'pipe', stderr: 'inherit' });
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  return JSON.parse(out) as SenderAnswer;
}

describeBackends('security: the receiver as senders see it', (h) => {
  test('a body over the limit, declared or chunked, is answered 413 to a client that writes it all before reading', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    // 12 MiB: well past what socket buffers absorb, within the drain limit (16 MiB by default).
    for (const chunked of [false, true]) {
      const r = await pythonPost(`${h.url}/w/${endpoint.slug}/big`, 12 * 1024 * 1024, chunked);
      expect({ chunked, ...r }).toEqual({ chunked, status: 413, code: 'payload_too_large' });
    }
    expect((await fetch(`${h.url}/w/${endpoint.slug}/after`, { method: 'POST', body: 'ok' })).status).toBe(200);
    const recs = await captured(h.url, account.key, endpoint.slug, 1);
    expect(recs.map((r) => r.path)).toEqual(['/after']);
  }, 60_000);

  test('a sender that asks to close the connection (Connection: close, as urllib sends) still gets the 413, on the receiver and the API', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    // Bun closes such a connection as soon as it has answered, without discarding the unread
    // body: the sender got a broken pipe (EPIPE) from about 3 MB on.
    const close = { connection: 'close' };
    const json = { 'content-type': 'application/json' };
    const cases = [
      { path: `/w/${endpoint.slug}/big`, headers: close, want: { status: 413, code: 'payload_too_large' } },
      { path: '/api/endpoints', headers: { ...close, ...json, authorization: `Bearer ${account.key}` }, want: { status: 413, code: 'payload_too_large' } },
      { path: '/api/agent/auth', headers: { ...close, ...json }, want: { status: 413, code: 'invalid_request' } },
    ];
    for (const c of cases) {
      for (const size of [3 * 1024 * 1024, 12 * 1024 * 1024]) {
        const r = await pythonPost(`${h.url}${c.path}`, size, false, c.headers);
        expect({ path: c.path, size, ...r }).toEqual({ path: c.path, size, ...c.want });
      }
    }
    expect((await fetch(`${h.url}/w/${endpoint.slug}/after`, { method: 'POST', body: 'ok' })).status).toBe(200);
    expect((await captured(h.url, account.key, endpoint.slug, 1)).map((r) => r.path)).toEqual(['/after']);
  }, 60_000);

  test('after a 413 within the drain limit the connection stays open and the next request on it is captured', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const body = Buffer.alloc(3 * 1024 * 1024, 0x62);
    const socket = connect(portOf(h.url), '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    const answers = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while (parseResponses(text).length < n && !closed && Date.now() < deadline) await Bun.sleep(10);
      return parseResponses(text);
    };
    try {
      socket.write(`POST /w/${endpoint.slug}/big HTTP/1.1\r\nHost: localhost\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body);
      expect((await answers(1)).map((r) => r.status)).toEqual([413]);
      socket.write(rawRequest('POST', `/w/${endpoint.slug}/next`, { body: 'next' }));
      expect((await answers(2)).map((r) => r.status)).toEqual([413, 200]);
    } finally {
      socket.destroy();
    }
    const recs = await captured(h.url, account.key, endpoint.slug, 1);
    expect(recs.map((r) => `${r.path}:${r.body}`)).toEqual(['/next:next']);
    expect((await call(h.url, 'GET', `/api/search/requests/count?slug=${endpoint.slug}`, { token: account.key })).body).toEqual({ count: 1 });
  }, 60_000);

  test("the API's 413 (declared) and 411 (chunked) reach a client that writes its whole body before reading, on capture and agent routes", async () => {
    const { account } = await accountWithEndpoint(h.url);
    // 12 MiB: past the API's 2 MiB limit and what socket buffers absorb, within the drain limit.
    const size = 12 * 1024 * 1024;
    const json = { 'content-type': 'application/json' };
    const cases = [
      { path: '/api/endpoints', chunked: false, headers: { ...json, authorization: `Bearer ${account.key}` }, want: { status: 413, code: 'payload_too_large' } },
      { path: '/api/endpoints', chunked: true, headers: { ...json, authorization: `Bearer ${account.key}` }, want: { status: 411, code: 'length_required' } },
      { path: '/api/agent/auth', chunked: false, headers: json, want: { status: 413, code: 'invalid_request' } },
      { path: '/api/agent/auth', chunked: true, headers: json, want: { status: 411, code: 'invalid_request' } },
    ];
    for (const c of cases) {
      const r = await pythonPost(`${h.url}${c.path}`, size, c.chunked, c.headers);
      expect({ path: c.path, chunked: c.chunked, ...r }).toEqual({ path: c.path, chunked: c.chunked, ...c.want });
    }
    expect((await call(h.url, 'GET', '/api/endpoints', { token: account.key })).body.length).toBe(1);
  }, 60_000);

  test("after the API's 413 within the drain limit the connection stays open for the next request", async () => {
    const { account } = await accountWithEndpoint(h.url);
    const body = Buffer.alloc(3 * 1024 * 1024, 0x62);
    const socket = connect(portOf(h.url), '127.0.0.1');
    let text = '';
    let closed = false;
    socket.on('data', (d: Buffer) => {
      text += d.toString('latin1');
    });
    socket.on('close', () => {
      closed = true;
    });
    socket.on('error', () => {});
    const answers = async (n: number) => {
      const deadline = Date.now() + 10_000;
      while (parseResponses(text).length < n && !closed && Date.now() < deadline) await Bun.sleep(10);
      return parseResponses(text);
    };
    try {
      socket.write(`POST /api/endpoints HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.key}\r\nContent-Type: application/json\r\nContent-Length: ${body.length}\r\n\r\n`);
      socket.write(body);
      expect((await answers(1)).map((r) => r.status)).toEqual([413]);
      socket.write(`GET /api/endpoints HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.key}\r\n\r\n`);
      expect((await answers(2)).map((r) => r.status)).toEqual([413, 200]);
    } finally {
      socket.destroy();
    }
  }, 60_000);

  test('a slug sent in capitals is a 404 that names the lower-case slug; nothing is stored', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const r = await fetch(`${h.url}/w/${endpoint.slug.toUpperCase()}/x`, { method: 'POST', body: 'x' });
    expect(r.status).toBe(404);
    expect(await r.json()).toEqual({ error: `no endpoint with this slug; slugs are lower case: /w/${endpoint.slug}`, code: 'not_found' });
    const other = await fetch(`${h.url}/w/not-a-slug/x`, { method: 'POST', body: 'x' });
    expect(await other.json()).toEqual({ error: 'no endpoint with this slug', code: 'not_found' });
    expect((await call(h.url, 'GET', `/api/search/requests/count?slug=${endpoint.slug}`, { token: account.key })).body).toEqual({ count: 0 });
  });
});
