/**
 * Finding 3: captures are byte-exact, and what the HTTP server does with pipelining and methods it
 * does not know is pinned down (docs/security.md, "What Bun decides before our code runs").
 */
import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured, portOf, rawHttp, rawRequest } from './support';

const BOM = [0xef, 0xbb, 0xbf];

describeBackends('security: byte-exact captures, pipelining and methods', (h) => {
  test('a body starting with a UTF-8 byte-order mark is stored with it', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const bodies = [new Uint8Array([...BOM, 0x61, 0x62, 0x63]), new Uint8Array(BOM), new Uint8Array([...BOM, ...BOM, 0x7b, 0x7d])];
    for (const bytes of bodies) {
      const r = await fetch(`${h.url}/w/${endpoint.slug}/bom`, { method: 'POST', body: bytes, headers: { 'content-type': 'text/plain' } });
      expect(r.status).toBe(200);
    }
    const recs = (await captured(h.url, account.key, endpoint.slug, bodies.length)).reverse();
    recs.forEach((rec, i) => {
      const sent = bodies[i] ?? new Uint8Array();
      expect(rec.size).toBe(sent.length);
      const stored = rec.bodyEncoding === 'base64' ? Buffer.from(rec.body, 'base64') : Buffer.from(rec.body, 'utf8');
      expect([...stored]).toEqual([...sent]);
    });
    expect(recs[0]?.body).toBe('\uFEFFabc');
  });

  test('requests sent one after another on a keep-alive connection, bodies included, are each answered and captured', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const { connect } = await import('node:net');
    const socket = connect(portOf(h.url), '127.0.0.1');
    let text = '';
    socket.on('data', (d) => {
      text += d.toString('latin1');
    });
    const waitFor = async (n: number) => {
      const deadline = Date.now() + 5_000;
      while ((text.match(/HTTP\/1\.1 /g) ?? []).length < n && Date.now() < deadline) await Bun.sleep(10);
    };
    try {
      for (let i = 1; i <= 3; i++) {
        socket.write(rawRequest('POST', `/w/${endpoint.slug}/seq${i}`, { body: `body-${i}` }));
        await waitFor(i);
      }
    } finally {
      socket.destroy();
    }
    expect((text.match(/HTTP\/1\.1 200 /g) ?? []).length).toBe(3);
    const recs = await captured(h.url, account.key, endpoint.slug, 3);
    expect(recs.map((r) => `${r.path}:${r.body}`).sort()).toEqual(['/seq1:body-1', '/seq2:body-2', '/seq3:body-3']);
  });

  test('pipelined requests: never a wrong or unrecorded answer (Bun closes the connection instead of answering)', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const pair = rawRequest('POST', `/w/${endpoint.slug}/p1`, { body: 'first' }) + rawRequest('POST', `/w/${endpoint.slug}/p2`, { body: 'second' });
    const ex = await rawHttp(portOf(h.url), pair, { expect: 2, ms: 3_000 });
    // Whatever was answered is durable and answered in order; Bun 1.4.5 answers neither and closes.
    const ids = ex.responses.map((r) => JSON.parse(r.body).id as string);
    expect(ex.responses.every((r) => r.status === 200)).toBe(true);
    if (ex.responses.length < 2) expect(ex.closed).toBe(true);
    // Still serving, and the endpoint's reads are intact.
    expect((await fetch(`${h.url}/w/${endpoint.slug}/after`, { method: 'POST', body: 'x' })).status).toBe(200);
    const recs = await captured(h.url, account.key, endpoint.slug, 1 + ids.length);
    for (const [i, id] of ids.entries()) {
      const rec = recs.find((r) => r.id === id);
      expect(rec?.path).toBe(i === 0 ? '/p1' : '/p2');
    }
    expect(recs.filter((r) => r.path === '/p2' && r.body !== 'second')).toEqual([]);
    expect(recs.filter((r) => r.path === '/p1' && r.body !== 'first')).toEqual([]);
  });

  test('every method the HTTP server parses is captured as sent; others get the connection closed, nothing stored', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const known = ['PROPFIND', 'MKCOL', 'PURGE', 'QUERY', 'REPORT', 'M-SEARCH', 'NOTIFY', 'LINK', 'TRACE', 'CONNECT'];
    for (const method of known) {
      const ex = await rawHttp(portOf(h.url), rawRequest(method, `/w/${endpoint.slug}/m`, { body: '' }));
      expect({ method, status: ex.responses[0]?.status }).toEqual({ method, status: 200 });
      expect(ex.responses[0]?.headers['content-security-policy']).toBe('sandbox');
    }
    for (const method of ['FOO', 'get', 'Post', 'BREW']) {
      const ex = await rawHttp(portOf(h.url), rawRequest(method, `/w/${endpoint.slug}/unknown`, { body: '' }), { ms: 2_000 });
      expect({ method, text: ex.text, closed: ex.closed }).toEqual({ method, text: '', closed: true });
    }
    const recs = await captured(h.url, account.key, endpoint.slug, known.length);
    expect(recs.map((r) => r.method).sort()).toEqual([...known].sort());
    expect((await call(h.url, 'GET', `/api/search/requests/count?slug=${endpoint.slug}`, { token: account.key })).body).toEqual({ count: known.length });
  });
});
