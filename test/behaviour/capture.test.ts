import { expect, test } from 'bun:test';
import { call, eventually, itemAt, json, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('receiver and captured requests', (h) => {
  async function endpoint() {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cap' } })).body;
    return { a, ep };
  }

  test('every SPEC 2.4 field is captured', async () => {
    const { a, ep } = await endpoint();
    const body = JSON.stringify({ type: 'invoice.paid', n: 1 });
    const before = Date.now();
    const res = await fetch(`${h.url}/w/${ep.slug}/hooks/stripe?x=1&y=two&y=three`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', 'X-Mixed-Case': 'Value' },
      body,
    });
    expect(res.status).toBe(200);
    const ack = await json(res);
    expect(ack.id).toStartWith('req_');
    const list = await eventually(async () => {
      const r = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
      return r.body.length === 1 ? r.body : null;
    });
    const rec = itemAt(list);
    expect(rec.id).toBe(ack.id ?? 'no id');
    expect(rec.endpointId).toBe(ep.id);
    expect(rec.method).toBe('PUT');
    expect(rec.path).toBe('/hooks/stripe');
    expect(rec.headers['x-mixed-case']).toBe('Value');
    expect(rec.headers['content-type']).toBe('application/json');
    expect(Object.keys(rec.headers).every((k: string) => k === k.toLowerCase())).toBe(true);
    expect(rec.body).toBe(body);
    expect(rec.bodyEncoding).toBe('utf8');
    expect(rec.queryParams).toEqual({ x: '1', y: ['two', 'three'] });
    expect(rec.contentType).toBe('application/json');
    expect(rec.ip).toBe('127.0.0.1');
    expect(rec.size).toBe(Buffer.byteLength(body));
    expect(Number.isInteger(rec.receivedAt)).toBe(true);
    expect(rec.receivedAt).toBeGreaterThanOrEqual(before - 5);
    expect(typeof rec.detectedProvider).toBe('string');
    expect(typeof rec.detectedEvent).toBe('string');
    const one = await call(h.url, 'GET', `/api/requests/${rec.id}`, { token: a.key });
    expect(one.status).toBe(200);
    // The record as listed, plus where it was sent (a deep link names its endpoint from this alone).
    expect(one.body).toEqual({ ...rec, endpointSlug: ep.slug, endpointUrl: ep.url });
  });

  test('every method is captured, on /w/:slug and deeper paths', async () => {
    const { a, ep } = await endpoint();
    const methods = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS', 'HEAD'];
    for (const m of methods) {
      const r = await fetch(`${h.url}/w/${ep.slug}${m === 'GET' ? '' : `/p/${m.toLowerCase()}`}`, { method: m });
      expect(r.status).toBe(200);
    }
    const recs = await eventually(async () => {
      const r = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
      return r.body.length === methods.length ? r.body : null;
    });
    expect(recs.map((r: { method: string }) => r.method).sort()).toEqual([...methods].sort());
    const get = recs.find((r: { method: string }) => r.method === 'GET');
    expect(get?.path).toBe('/');
  });

  test('a body that is not UTF-8 is kept byte for byte as base64', async () => {
    const { a, ep } = await endpoint();
    const bytes = new Uint8Array([0xff, 0xfe, 0x00, 0x80, 0x41, 0xc3]);
    await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: bytes, headers: { 'content-type': 'application/octet-stream' } });
    const rec = await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body[0]);
    expect(rec.bodyEncoding).toBe('base64');
    expect(new Uint8Array(Buffer.from(rec.body, 'base64'))).toEqual(bytes);
    expect(rec.size).toBe(bytes.length);
  });

  test('unicode bodies round-trip', async () => {
    const { a, ep } = await endpoint();
    const text = 'héllo wörld — 你好 🎉 \u0000 end';
    await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: text });
    const rec = await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body[0]);
    expect(rec.body).toBe(text);
    expect(rec.bodyEncoding).toBe('utf8');
  });

  test('unknown slug → 404 JSON', async () => {
    const r = await fetch(`${h.url}/w/doesnotexist1/x`, { method: 'POST', body: 'x' });
    expect(r.status).toBe(404);
    expect(r.headers.get('content-type')).toContain('application/json');
    expect(typeof (await json(r)).error).toBe('string');
  });

  test('a body over the limit → 413 and nothing is stored (declared and chunked)', async () => {
    const { a, ep } = await endpoint();
    const big = 'x'.repeat(64 * 1024 + 1);
    const declared = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: big });
    expect(declared.status).toBe(413);
    expect((await json(declared)).error).toContain('limit');
    const chunked = await fetch(`${h.url}/w/${ep.slug}`, {
      method: 'POST',
      body: new ReadableStream({
        start(c) {
          for (let i = 0; i < 20; i++) c.enqueue(new TextEncoder().encode('y'.repeat(8 * 1024)));
          c.close();
        },
      }),
    });
    expect(chunked.status).toBe(413);
    const small = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'fits' });
    expect(small.status).toBe(200);
    const recs = await eventually(async () => {
      const r = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body;
      return r.length > 0 ? r : null;
    });
    await Bun.sleep(300);
    const final = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body;
    expect(final.length).toBe(1);
    expect(itemAt(recs).body).toBe('fits');
  });

  test('list is newest first and honours limit', async () => {
    const { a, ep } = await endpoint();
    for (let i = 0; i < 5; i++) await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `n${i}` });
    const all = await eventually(async () => {
      const r = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body;
      return r.length === 5 ? r : null;
    });
    expect(all.map((r: { body: string }) => r.body)).toEqual(['n4', 'n3', 'n2', 'n1', 'n0']);
    const two = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=2`, { token: a.key });
    expect(two.body.map((r: { body: string }) => r.body)).toEqual(['n4', 'n3']);
    for (const bad of ['0', '-1', 'abc']) {
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=${bad}`, { token: a.key })).status).toBe(400);
    }
  });

  test('pagination walks every capture once, stable under concurrent inserts', async () => {
    const { a, ep } = await endpoint();
    const N = 23;
    await Promise.all(Array.from({ length: N }, (_, i) => fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `p${i}` })));
    await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key })).body.length === N);
    const seen: string[] = [];
    let cursor: string | null = null;
    let pages = 0;
    for (;;) {
      const q: string = cursor ? `limit=5&cursor=${cursor}` : 'limit=5';
      const page = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests/paginated?${q}`, { token: a.key });
      expect(page.status).toBe(200);
      seen.push(...page.body.items.map((r: { id: string }) => r.id));
      pages++;
      // New captures arriving mid-walk must not shift or repeat the pages still to come.
      if (pages === 2) await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'late' });
      if (!page.body.hasMore) {
        expect(page.body.cursor).toBeNull();
        break;
      }
      cursor = page.body.cursor;
    }
    expect(seen.length).toBe(N);
    expect(new Set(seen).size).toBe(N);
    expect([...seen].sort().reverse()).toEqual(seen);
    expect(pages).toBe(5);
    const bad = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests/paginated?cursor=garbage`, { token: a.key });
    expect(bad.status).toBe(400);
  });

  test('clear removes the captures at once; the endpoint stays and keeps capturing', async () => {
    const { a, ep } = await endpoint();
    await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'old' });
    const old = await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body[0]);
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
    expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body).toEqual([]);
    expect((await call(h.url, 'GET', `/api/requests/${old.id}`, { token: a.key })).status).toBe(404);
    await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'new' });
    const fresh = await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body[0]);
    expect(fresh.body).toBe('new');
  });

  test('a request sent right after a clear answered is never hidden by it (same millisecond)', async () => {
    // Before the clear waited out its millisecond, 12-30% of these rounds lost their capture.
    const { a, ep } = await endpoint();
    for (let i = 0; i < 25; i++) {
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
      const id = (await json(await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'after' }))).id ?? 'no id';
      await eventually(async () => (await call(h.url, 'GET', `/api/requests/${id}`, { token: a.key })).status === 200, 3_000);
    }
  });

  test("a request id of another account's endpoint is 404", async () => {
    const { a, ep } = await endpoint();
    const b = await newAccount(h.url);
    const ack = await json((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'mine' })));
    await eventually(async () => (await call(h.url, 'GET', `/api/requests/${ack.id}`, { token: a.key })).status === 200);
    const r = await call(h.url, 'GET', `/api/requests/${ack.id}`, { token: b.key });
    expect(r.status).toBe(404);
    expect(r.text).not.toContain('mine');
    expect((await call(h.url, 'GET', '/api/requests/req_nonsense', { token: a.key })).status).toBe(404);
  });
}, { MAX_BODY_BYTES: String(64 * 1024) });
