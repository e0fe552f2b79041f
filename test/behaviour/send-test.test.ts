import { expect, test } from 'bun:test';
import { call, eventually, itemAt, newAccount, type OpenApiDoc } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('send-test', (h) => {
  async function endpoint(name = 'st') {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name } })).body;
    return { a, ep };
  }
  const listed = (key: string, slug: string, n = 1) =>
    eventually(async () => {
      const r = await call(h.url, 'GET', `/api/endpoints/${slug}/requests`, { token: key });
      return r.body.length === n ? r.body : null;
    });

  test('sends a real request through the receiver; the capture is listed under the returned id', async () => {
    const { a, ep } = await endpoint();
    const r = await call(h.url, 'POST', '/api/send-test', {
      token: a.key,
      body: { slug: ep.slug, method: 'PUT', headers: { 'X-Test': 'yes', 'Content-Type': 'application/json' }, body: '{"type":"invoice.paid"}' },
    });
    expect(r.status).toBe(200);
    expect(r.body.id).toMatch(/^req_[0-9A-Z]{26}$/);
    expect(r.body.url).toEndWith(`/w/${ep.slug}`);
    expect(r.body.response.status).toBe(200);
    expect(JSON.parse(r.body.response.body)).toEqual({ ok: true, id: r.body.id });
    expect(r.body.response.headers['x-request-id']).toBe(r.body.id ?? 'no id');
    const rec = itemAt(await listed(a.key, ep.slug));
    expect(rec).toMatchObject({ id: r.body.id, endpointId: ep.id, method: 'PUT', path: '/', body: '{"type":"invoice.paid"}', contentType: 'application/json' });
    expect(rec.headers['x-test']).toBe('yes');
    const one = await call(h.url, 'GET', `/api/requests/${r.body.id}`, { token: a.key });
    expect(one.status).toBe(200);
  });

  test('defaults: only the slug is required', async () => {
    const { a, ep } = await endpoint();
    const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug } });
    expect(r.status).toBe(200);
    const rec = itemAt(await listed(a.key, ep.slug));
    expect(rec.id).toBe(r.body.id ?? 'no id');
    expect(rec.method).toBe('POST');
    expect(JSON.parse(rec.body)).toEqual({ type: 'hookcap.test', message: 'Test webhook sent by hookcap' });
    expect(rec.contentType).toBe('application/json');
    expect(rec.headers['user-agent']).toBe('hookcap-send-test/1');
  });

  test("returns the endpoint's mock response, with the captured id from x-request-id", async () => {
    const { a, ep } = await endpoint();
    const mock = { status: 202, body: '<accepted/>', headers: { 'content-type': 'application/xml', 'x-mock': 'on' } };
    expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock } })).status).toBe(200);
    const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, body: 'hello' } });
    expect(r.status).toBe(200);
    expect(r.body.response).toMatchObject({ status: 202, body: '<accepted/>' });
    expect(r.body.response.headers).toMatchObject({ 'content-type': 'application/xml', 'x-mock': 'on' });
    expect(r.body.id).toStartWith('req_');
    const rec = itemAt(await listed(a.key, ep.slug));
    expect(rec.id).toBe(r.body.id ?? 'no id');
    expect(rec.body).toBe('hello');
    expect(rec.contentType).toBe('text/plain; charset=utf-8');
  });

  test('a redirect in the mock response is returned, not followed', async () => {
    const { a, ep } = await endpoint();
    const mock = { status: 302, body: '', headers: { location: 'http://169.254.169.254/latest/meta-data/' } };
    await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock } });
    const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug } });
    expect(r.status).toBe(200);
    expect(r.body.response.status).toBe(302);
    expect(r.body.response.headers.location).toBe('http://169.254.169.254/latest/meta-data/');
    expect(r.body.id).toStartWith('req_');
  });

  test('the mock response comes back byte for byte, even with a content-encoding it does not honour', async () => {
    const { a, ep } = await endpoint();
    const mock = { status: 200, body: 'not really gzip', headers: { 'content-encoding': 'gzip' } };
    await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock } });
    const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug } });
    expect(r.status).toBe(200);
    expect(r.body.response).toMatchObject({ status: 200, body: 'not really gzip' });
    expect(r.body.response.headers['content-encoding']).toBe('gzip');
  });

  test("another account's slug and unknown slugs are 404, and nothing is captured", async () => {
    const { a, ep } = await endpoint('private');
    const b = await newAccount(h.url);
    const r = await call(h.url, 'POST', '/api/send-test', { token: b.key, body: { slug: ep.slug, body: 'intrusion' } });
    expect(r.status).toBe(404);
    expect(typeof r.body.error).toBe('string');
    expect((await call(h.url, 'POST', '/api/send-test', { token: b.key, body: { slug: 'nosuchslug22' } })).status).toBe(404);
    // A capture from the owner's own send-test proves the list is live; the intruder's never appears.
    const own = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, body: 'mine' } });
    const list = await listed(a.key, ep.slug);
    expect(list.map((x: { id: string }) => x.id)).toEqual([own.body.id ?? 'no id']);
  });

  test('needs an API key', async () => {
    const { ep } = await endpoint();
    const r = await call(h.url, 'POST', '/api/send-test', { body: { slug: ep.slug } });
    expect(r.status).toBe(401);
  });

  test('bad input is a JSON 400 and sends nothing', async () => {
    const { a, ep } = await endpoint();
    const bad: unknown[] = [
      {},
      { slug: 42 },
      { slug: ep.slug, method: 'GE T' },
      { slug: ep.slug, method: 'CONNECT' },
      { slug: ep.slug, method: 'GET', body: 'x' },
      { slug: ep.slug, headers: { 'x-a': 'line\r\nbreak' } },
      { slug: ep.slug, headers: { 'content-length': '5' } },
      { slug: ep.slug, headers: { host: 'evil.example' } },
      { slug: ep.slug, headers: { 'x-a': 5 } },
      { slug: ep.slug, body: { not: 'a string' } },
    ];
    for (const body of bad) {
      const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
    const ok = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, method: 'GET' } });
    expect(ok.status).toBe(200);
    const list = await listed(a.key, ep.slug);
    expect(list.map((x: { method: string }) => x.method)).toEqual(['GET']);
  });

  test('is in the OpenAPI document', async () => {
    const spec = await call<OpenApiDoc>(h.url, 'GET', '/docs/json');
    expect(Object.keys(spec.body.paths)).toContain('/api/send-test');
  });
});
