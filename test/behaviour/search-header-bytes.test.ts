/**
 * Header values are stored one character per byte (a UTF-8 `café` as `cafÃ©`), but people type
 * text: search (`header=` and `q`, both backends, search and count) and `hookcap tail --header`
 * find a UTF-8 header by the text it reads as. Senders write the header bytes on a raw socket, so
 * the receiver sees exactly those bytes. Bodies are stored decoded and matched as before.
 */
import { expect, test } from 'bun:test';
import net from 'node:net';
import type { Capture } from '../../client/index';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { cliEnv, runCli } from '../cli/support';

const cleanups = cleanupAfterAll();

/** Sends one request with these header bytes over a raw socket; resolves to the receiver's answer. */
function rawSend(port: number, slug: string, path: string, headers: [string, Uint8Array][], body = ''): Promise<string> {
  const parts: Uint8Array[] = [Buffer.from(`POST /w/${slug}${path} HTTP/1.1\r\nhost: 127.0.0.1:${port}\r\ncontent-type: text/plain; charset=utf-8\r\n`, 'latin1')];
  for (const [name, value] of headers) parts.push(Buffer.from(`${name}: `, 'latin1'), value, Buffer.from('\r\n', 'latin1'));
  const bodyBytes = Buffer.from(body, 'utf8');
  parts.push(Buffer.from(`content-length: ${bodyBytes.length}\r\nconnection: close\r\n\r\n`, 'latin1'), bodyBytes);
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    const socket = net.connect(port, '127.0.0.1', () => socket.write(Buffer.concat(parts)));
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('latin1')));
    socket.on('error', reject);
  });
}

const utf8 = (text: string) => Buffer.from(text, 'utf8');

describeBackends('search finds UTF-8 header values by the text they read as', (h) => {
  test('header= and q match typed non-ASCII text as the UTF-8 bytes it is stored as; bodies as before; tail --header agrees', async () => {
    const a = await newAccount(h.url);
    const ep = (await call<{ slug: string }>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bytes' } })).body;
    const port = Number(new URL(h.url).port);
    const sent = [
      await rawSend(port, ep.slug, '/ascii', [['x-name', utf8('cafe')]]),
      await rawSend(port, ep.slug, '/utf8', [['x-name', utf8('Café Ωmega')]]),
      // A lone Latin-1 é (0xE9) is stored as é: typed é found it before, and still does.
      await rawSend(port, ep.slug, '/latin1', [['x-other', Buffer.from('caf\xe9', 'latin1')]]),
      // The body is stored decoded: its mojibake is text, found by what it says (cafÃ©), not by café.
      await rawSend(port, ep.slug, '/body-mojibake', [['x-name', utf8('plain')]], 'it says cafÃ©'),
      await rawSend(port, ep.slug, '/body', [['x-name', utf8('plain')]], 'un café'),
    ];
    for (const answer of sent) expect(answer).toStartWith('HTTP/1.1 200');
    const total = async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count;
    await eventually(async () => (await total()) === 5);

    const search = async (params: Record<string, string>) => {
      const query = new URLSearchParams({ slug: ep.slug, order: 'asc', ...params });
      const found = await call<Capture[]>(h.url, 'GET', `/api/search/requests?${query}`, { token: a.key });
      expect(found.status, found.text).toBe(200);
      const counted = await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?${query}`, { token: a.key });
      expect(counted.body.count).toBe(found.body.length);
      return found.body.map((c) => c.path);
    };

    expect(await search({ header: 'x-name:café' })).toEqual(['/utf8']);
    expect(await search({ header: 'x-name: Ωmega' })).toEqual(['/utf8']);
    expect(await search({ header: 'X-Name:CAFé' })).toEqual(['/utf8']);
    expect(await search({ header: 'x-other:CAFÉ' })).toEqual(['/latin1']);
    expect(await search({ header: 'x-name:cafe' })).toEqual(['/ascii']);
    // The stored form still matches, as before.
    expect(await search({ header: 'x-name:cafÃ©' })).toEqual(['/utf8']);

    expect(await search({ q: 'café' })).toEqual(['/utf8', '/latin1', '/body']);
    expect(await search({ q: 'CAFé Ωmega' })).toEqual(['/utf8']);
    expect(await search({ q: 'cafÃ©' })).toEqual(['/utf8', '/body-mojibake']);
    expect(await search({ q: 'café', header: 'x-name' })).toEqual(['/utf8', '/body']);

    const e = cliEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    cleanups.push(e.cleanup);
    const tail = await runCli(['tail', ep.slug, '--since', '1h', '--header', 'x-name:CAFé', '--count', '1', '--timeout', '30', '--json'], e.env);
    expect(tail.code, tail.stderr).toBe(0);
    expect(tail.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Capture).path)).toEqual(['/utf8']);
  });
});
