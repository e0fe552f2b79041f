/**
 * Captured header bytes leave exactly as they arrived, whatever re-sends or renders them: the
 * cURL export (API and `hookcap export --format curl`), the raw HTTP export, HAR (text: the UTF-8
 * reading, or Latin-1 marked `_encoding: "latin1"`), `hookcap replay` and `hookcap listen`, and
 * the server's replay. Every request in and out goes over a raw socket, so the test sees bytes,
 * not what an HTTP library decoded: a UTF-8 value, lone Latin-1 bytes, a valid UTF-8 value with
 * a bidi override (which the cURL command writes as octal escapes), and shell-sensitive bytes.
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import net from 'node:net';
import { har as validateHar } from 'har-validator';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { rawExchange } from '../support/raw-socket';
import { describeBackends } from '../support/suite';
import { cliEnv, runCli, RunningCli } from '../cli/support';

const cleanups = cleanupAfterAll();

const latin1 = (...parts: (string | number[])[]) => Buffer.concat(parts.map((p) => (typeof p === 'string' ? Buffer.from(p, 'latin1') : Buffer.from(p))));

/** The non-ASCII headers sent, as bytes. */
const SENT: Record<string, Buffer> = {
  'x-utf8': Buffer.from('café ✓ Ωmega', 'utf8'),
  'x-latin1': latin1('caf', [0xe9], ' na', [0xef], 've'),
  'x-shell': latin1("it's 100% \\n $(x) `y` ", [0xff, 0x80, 0xa0]),
  'x-bidi': Buffer.from('a\u202eb é', 'utf8'),
  cookie: Buffer.from('n=crème; m=ok', 'utf8'),
};

interface Head {
  requestLine: string;
  /** Lower-cased name → value bytes, as they came on the wire. */
  headers: Map<string, Buffer>;
}

function parseHead(head: Buffer): Head {
  const lines: Buffer[] = [];
  let at = 0;
  for (let i = head.indexOf('\r\n'); i !== -1; i = head.indexOf('\r\n', at)) {
    lines.push(head.subarray(at, i));
    at = i + 2;
  }
  lines.push(head.subarray(at));
  const headers = new Map<string, Buffer>();
  for (const line of lines.slice(1)) {
    const colon = line.indexOf(':');
    if (colon > 0) headers.set(line.subarray(0, colon).toString('latin1').toLowerCase(), trimOws(line.subarray(colon + 1)));
  }
  return { requestLine: (lines[0] ?? Buffer.alloc(0)).toString('latin1'), headers };
}

function trimOws(b: Buffer): Buffer {
  let s = 0;
  let e = b.length;
  while (s < e && (b[s] === 0x20 || b[s] === 0x09)) s++;
  while (e > s && (b[e - 1] === 0x20 || b[e - 1] === 0x09)) e--;
  return Buffer.from(b.subarray(s, e));
}

/** A TCP server that records each request's header block byte for byte and answers 200. */
function startRawSink() {
  const heads: Head[] = [];
  const server = net.createServer((socket) => {
    let buf = Buffer.alloc(0);
    let need = -1;
    socket.on('data', (d: Buffer) => {
      buf = Buffer.concat([buf, d]);
      if (need === -1) {
        const end = buf.indexOf('\r\n\r\n');
        if (end === -1) return;
        const head = parseHead(buf.subarray(0, end));
        heads.push(head);
        need = end + 4 + Number(head.headers.get('content-length')?.toString('latin1') ?? '0');
      }
      if (buf.length >= need) socket.end('HTTP/1.1 200 OK\r\ncontent-length: 2\r\nconnection: close\r\n\r\nok');
    });
    socket.on('error', () => {});
  });
  return {
    heads,
    server,
    get url() {
      const a = server.address();
      if (a === null || typeof a === 'string') throw new Error('not listening');
      return `http://127.0.0.1:${a.port}`;
    },
  };
}


function expectSentBytes(head: Head | undefined, names = Object.keys(SENT)) {
  if (!head) throw new Error('nothing arrived');
  for (const name of names) expect([name, head.headers.get(name)?.toString('hex')]).toEqual([name, SENT[name]?.toString('hex')]);
}

const sink = startRawSink();
beforeAll(() => new Promise<void>((r) => sink.server.listen(0, '127.0.0.1', () => r())));
afterAll(() => {
  sink.server.close();
});

describeBackends(
  'captured header bytes, re-sent and rendered',
  (h) => {
    /** One capture sent over a raw socket with the SENT headers; its id and the API key. */
    async function captured(): Promise<{ id: string; key: string; slug: string }> {
      const a = await newAccount(h.url);
      const ep = (await call<{ slug: string }>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bytes' } })).body;
      const port = Number(new URL(h.url).port);
      const head: Buffer[] = [latin1(`POST /w/${ep.slug}/in?q=1 HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: text/plain\r\n`)];
      for (const [name, value] of Object.entries(SENT)) head.push(latin1(`${name}: `), value, latin1('\r\n'));
      head.push(latin1('content-length: 2\r\nconnection: close\r\n\r\nhi'));
      const answer = (await rawExchange(port, Buffer.concat(head))).toString('latin1');
      const id = /x-request-id: (req_\w+)/i.exec(answer)?.[1];
      if (!id) throw new Error(`not captured: ${answer}`);
      await eventually(async () => (await call(h.url, 'GET', `/api/requests/${id}`, { token: a.key })).status === 200);
      return { id, key: a.key, slug: ep.slug };
    }

    const exported = (id: string, key: string, format: string) => fetch(`${h.url}/api/requests/${id}/export?format=${format}`, { headers: { authorization: `Bearer ${key}` } });

    async function runScript(shell: string, script: string): Promise<Head | undefined> {
      const before = sink.heads.length;
      const run = Bun.spawn([shell, '-c', script], { stdout: 'ignore', stderr: 'pipe' });
      const code = await run.exited;
      if (code !== 0) throw new Error(`${shell} failed (${code}): ${await new Response(run.stderr).text()}`);
      expect(sink.heads.length).toBe(before + 1);
      return sink.heads[before];
    }

    test('the API cURL export, run by sh and bash, sends the captured header bytes', async () => {
      const c = await captured();
      const command = (await (await exported(c.id, c.key, 'curl')).text()).trim();
      // Pointed at the raw sink instead of the receiver.
      const toSink = command.replace(`${h.url}/w/${c.slug}`, sink.url);
      expect(toSink).toContain(sink.url);
      expectSentBytes(await runScript('sh', `${toSink} -s -o /dev/null`));
      expectSentBytes(await runScript('bash', `${toSink} -s -o /dev/null`));
    });

    test('hookcap export --format curl writes commands that send the captured header bytes', async () => {
      const c = await captured();
      const e = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: c.key });
      cleanups.push(e.cleanup);
      const r = await runCli(['export', c.slug, '--format', 'curl', '--to', sink.url, '--quiet'], e.env);
      expect(r.code, r.stderr).toBe(0);
      const script = r.stdout.replace(/^curl /m, 'curl -s -o /dev/null ');
      expectSentBytes(await runScript('sh', script));
    });

    test('the raw HTTP export is the captured header bytes', async () => {
      const c = await captured();
      const raw = new Uint8Array(await (await exported(c.id, c.key, 'raw')).arrayBuffer());
      const before = sink.heads.length;
      await rawExchange(Number(new URL(sink.url).port), raw);
      expectSentBytes(sink.heads[before]);
    });

    test('HAR: the UTF-8 reading where the bytes are UTF-8, else Latin-1 marked _encoding "latin1"; either way the bytes come back', async () => {
      const c = await captured();
      const doc = (await (await exported(c.id, c.key, 'har')).json()) as {
        log: { entries: { request: { headers: { name: string; value: string; _encoding?: string }[]; cookies: { name: string; value: string }[] } }[] };
      };
      await validateHar(doc);
      const request = doc.log.entries[0]?.request;
      if (!request) throw new Error('no entry');
      const header = (name: string) => request.headers.find((x) => x.name === name);
      expect(header('x-utf8')).toEqual({ name: 'x-utf8', value: 'café ✓ Ωmega' });
      expect(header('x-bidi')).toEqual({ name: 'x-bidi', value: 'a\u202eb é' });
      expect(header('x-latin1')).toEqual({ name: 'x-latin1', value: 'caf\u00e9 na\u00efve', _encoding: 'latin1' });
      expect(request.cookies).toEqual([
        { name: 'n', value: 'crème' },
        { name: 'm', value: 'ok' },
      ]);
      for (const [name, bytes] of Object.entries(SENT)) {
        const x = header(name);
        if (!x) throw new Error(`no ${name}`);
        expect([name, Buffer.from(x.value, x._encoding === 'latin1' ? 'latin1' : 'utf8').toString('hex')]).toEqual([name, bytes.toString('hex')]);
      }
    });

    test('hookcap replay sends the captured header bytes, and typed -H text as UTF-8 (as curl -H does)', async () => {
      const c = await captured();
      const e = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: c.key });
      cleanups.push(e.cleanup);
      const before = sink.heads.length;
      const r = await runCli(['replay', c.id, '--to', `${sink.url}/again`, '-H', 'x-typed: café ✓', '-H', 'x-e: é'], e.env);
      expect(r.code, r.stderr).toBe(0);
      const head = sink.heads[before];
      expectSentBytes(head);
      expect(head?.headers.get('x-typed')?.toString('hex')).toBe(Buffer.from('café ✓', 'utf8').toString('hex'));
      expect(head?.headers.get('x-e')?.toString('hex')).toBe('c3a9');
      const bad = await runCli(['replay', c.id, '--to', `${sink.url}/again`, '-H', 'x-bad: a\u0001b'], e.env);
      expect(bad.code).toBe(2);
      expect(bad.stderr).toContain('x-bad: a header value cannot hold line breaks or control characters');
      expect(bad.stderr).not.toContain('    at ');
    });

    test('send-test (the API the dashboard calls, and hookcap send) sends typed header text as its UTF-8 bytes', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<{ slug: string }>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'send' } })).body;
      /** The stored header values of the capture `id`, as the bytes they stand for (hex). */
      const storedHex = async (id: string | null, names: string[]) => {
        if (id === null) throw new Error('not captured');
        const rec = await eventually(async () => {
          const r = await call<{ headers: Record<string, string> }>(h.url, 'GET', `/api/requests/${id}`, { token: a.key });
          return r.status === 200 ? r.body : null;
        });
        return names.map((n) => Buffer.from(rec.headers[n] ?? '', 'latin1').toString('hex'));
      };
      const expected = [Buffer.from('café ✓', 'utf8').toString('hex'), 'c3a9'];

      const r = await call<{ id: string | null }>(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, headers: { 'x-typed': 'café ✓', 'x-e': 'é' } } });
      expect(r.status, r.text).toBe(200);
      expect(await storedHex(r.body.id, ['x-typed', 'x-e'])).toEqual(expected);
      const bad = await call<{ error: string }>(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, headers: { 'x-bad': 'a\u0001b' } } });
      expect(bad.status).toBe(400);
      expect(bad.body.error).toBe('headers["x-bad"] cannot hold line breaks or control characters');

      const e = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
      cleanups.push(e.cleanup);
      const sent = await runCli(['send', ep.slug, '-H', 'x-typed: café ✓', '-H', 'x-e: é', '--json'], e.env);
      expect(sent.code, sent.stderr).toBe(0);
      expect(await storedHex((JSON.parse(sent.stdout) as { id: string | null }).id, ['x-typed', 'x-e'])).toEqual(expected);
      const refused = await runCli(['send', ep.slug, '-H', 'x-bad: a\u0001b'], e.env);
      expect(refused.code).toBe(2);
      expect(refused.stderr).toContain('x-bad: a header value cannot hold line breaks or control characters');
      expect(refused.stderr).not.toContain('    at ');
    });

    test('hookcap listen forwards the captured header bytes', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<{ slug: string }>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'fwd' } })).body;
      const e = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
      cleanups.push(e.cleanup);
      const cli = new RunningCli(['listen', ep.slug, '--forward', `${sink.url}/hooks`], e.env);
      cleanups.push(() => void cli.stop('SIGKILL'));
      await cli.until(() => cli.stderr.includes('Ctrl-C to stop'));
      const before = sink.heads.length;
      const port = Number(new URL(h.url).port);
      const head: Buffer[] = [latin1(`POST /w/${ep.slug}/x HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\n`)];
      for (const [name, value] of Object.entries(SENT)) head.push(latin1(`${name}: `), value, latin1('\r\n'));
      head.push(latin1('content-length: 0\r\nconnection: close\r\n\r\n'));
      await rawExchange(port, Buffer.concat(head));
      await eventually(async () => sink.heads.length > before, 20_000);
      expectSentBytes(sink.heads[before]);
      await cli.stop();
    });

    test('the server replay sends the captured header bytes', async () => {
      const c = await captured();
      const before = sink.heads.length;
      // Header changes are in the record's form: one character per byte.
      const headers = { 'x-over': Buffer.from('né ✓', 'utf8').toString('latin1') };
      const r = await call(h.url, 'POST', `/api/requests/${c.id}/replay`, { token: c.key, body: { url: `${sink.url}/srv`, headers } });
      expect(r.status, r.text).toBe(200);
      expectSentBytes(sink.heads[before]);
      expect(sink.heads[before]?.headers.get('x-over')?.toString('hex')).toBe(Buffer.from('né ✓', 'utf8').toString('hex'));
      const above = await call(h.url, 'POST', `/api/requests/${c.id}/replay`, { token: c.key, body: { url: `${sink.url}/srv`, headers: { 'x-over': '✓' } } });
      expect(above.status).toBe(400);
      expect(sink.heads.length).toBe(before + 1);
    });
  },
  { OUTBOUND_ALLOW: '127.0.0.1' },
);
