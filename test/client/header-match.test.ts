/**
 * hookcap/client's header matcher reads a string as what a person typed (docs/client.md): a
 * UTF-8 header sent by a real sender over a raw socket (so the bytes are known) matches
 * `{'x-name': 'café'}`, though the record holds it one character per byte (`cafÃ©`). Real
 * server, both backends.
 */
import { expect, test } from 'bun:test';
import { createClient, matches } from 'hookcap/client';
import { newAccount } from '../support/client';
import { rawExchange } from '../support/raw-socket';
import { describeBackends } from '../support/suite';


describeBackends('hookcap/client header matchers and header bytes', (h) => {
  test('a string matches the UTF-8 header a person would type; the stored form and lone Latin-1 bytes still match', async () => {
    const c = createClient({ apiUrl: h.url, key: (await newAccount(h.url)).key });
    const ep = await c.endpoints.create('bytes');
    const url = new URL(ep.url);
    const head = Buffer.concat([
      Buffer.from(`POST ${url.pathname}/hook HTTP/1.1\r\nhost: ${url.host}\r\nx-name: `, 'latin1'),
      Buffer.from('café ✓', 'utf8'),
      Buffer.from('\r\nx-latin: caf', 'latin1'),
      Buffer.from([0xe9]),
      Buffer.from('\r\ncontent-length: 2\r\nconnection: close\r\n\r\nhi', 'latin1'),
    ]);
    const answer = (await rawExchange(Number(url.port), head)).toString('latin1');
    expect(answer).toStartWith('HTTP/1.1 200');
    const id = /x-request-id: (req_\w+)/i.exec(answer)?.[1];

    const got = await c.waitForRequest(ep.slug, { headers: { 'x-name': 'café ✓' } }, { since: 0, timeout: 10_000 });
    expect(got.id).toBe(id ?? '');
    // The record keeps the bytes, one character per byte.
    expect(got.headers['x-name']).toBe(Buffer.from('café ✓', 'utf8').toString('latin1'));
    expect(matches({ headers: { 'x-name': Buffer.from('café ✓', 'utf8').toString('latin1') } })(got)).toBe(true);
    expect(matches({ headers: { 'x-name': /^café/ } })(got)).toBe(true);
    expect(matches({ headers: { 'x-name': 'café' } })(got)).toBe(false);
    expect(matches({ headers: { 'x-name': 'cafe ✓' } })(got)).toBe(false);
    // A lone Latin-1 byte 0xE9 is stored as `é`, which is what typing `é` looks for too.
    expect(matches({ headers: { 'X-Latin': 'café' } })(got)).toBe(true);
    expect(matches({ headers: { 'x-latin': /^café$/ } })(got)).toBe(true);
  });
});
