import { expect, test } from 'bun:test';
import { call, json, newAccount, type OpenApiDoc } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('endpoints', (h) => {
  test('create returns id, slug, name, url and createdAt in ms', async () => {
    const a = await newAccount(h.url);
    const before = Date.now();
    const r = await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'stripe test' } });
    expect(r.status).toBe(201);
    expect(r.body.id).toStartWith('ep_');
    expect(r.body.slug).toMatch(/^[a-z0-9]{12}$/);
    expect(r.body.name).toBe('stripe test');
    expect(r.body.url).toBe(`${h.url}/w/${r.body.slug}`);
    expect(Number.isInteger(r.body.createdAt)).toBe(true);
    expect(r.body.createdAt).toBeGreaterThanOrEqual(before - 1000);
    const got = await call(h.url, 'GET', `/api/endpoints/${r.body.slug}`, { token: a.key });
    expect(got.status).toBe(200);
    expect(got.body).toMatchObject({ id: r.body.id, slug: r.body.slug, name: 'stripe test', url: r.body.url });
    const list = await call(h.url, 'GET', '/api/endpoints', { token: a.key });
    expect(list.body.map((e: { id: string }) => e.id)).toEqual([r.body.id]);
  });

  test('create validates the body', async () => {
    const a = await newAccount(h.url);
    for (const body of [{}, { name: 42 }, 'nope']) {
      const r = await call(h.url, 'POST', '/api/endpoints', { token: a.key, body });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
    expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).body).toEqual([]);
  });

  test('a name with control characters (ESC, a line break) is refused on create and rename; the name stays', async () => {
    const a = await newAccount(h.url);
    for (const name of ['\u001b]0;pwned\u0007prod', 'line\nbreak', 'tab\there']) {
      const r = await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name } });
      expect(r.status).toBe(400);
      expect(r.body).toMatchObject({ code: 'validation', error: 'name must not contain control characters' });
    }
    expect((await call(h.url, 'GET', '/api/endpoints', { token: a.key })).body).toEqual([]);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: '  prod ✓  ' } })).body;
    expect(ep.name).toBe('prod ✓');
    const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { name: 'prod\u001b[2J' } });
    expect(r.status).toBe(400);
    expect(r.body.code).toBe('validation');
    expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.name).toBe('prod ✓');
  });

  test('PATCH sets and clears the mock response; the receiver answers with it', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'mock' } })).body;
    const mock = { status: 201, body: '<ok/>', headers: { 'Content-Type': 'application/xml', 'X-Custom': 'yes' } };
    const p = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock, name: 'renamed' } });
    expect(p.status).toBe(200);
    expect(p.body.name).toBe('renamed');
    expect(p.body.mockResponse).toEqual({ status: 201, body: '<ok/>', headers: { 'content-type': 'application/xml', 'x-custom': 'yes' } });
    const hit = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
    expect(hit.status).toBe(201);
    expect(await hit.text()).toBe('<ok/>');
    expect(hit.headers.get('x-custom')).toBe('yes');
    expect(hit.headers.get('content-type')).toBe('application/xml');
    const cleared = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: null } });
    expect(cleared.body.mockResponse).toBeNull();
    const again = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
    expect(again.status).toBe(200);
  });

  test('a mock response may leave out its body and headers: an empty body, no headers of its own', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bare mock' } })).body;
    const bare = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { status: 204 } } });
    expect({ status: bare.status, mock: bare.body.mockResponse }).toEqual({ status: 200, mock: { status: 204, body: '', headers: {} } });
    const hit = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
    expect(hit.status).toBe(204);
    expect(await hit.text()).toBe('');
    const bodyOnly = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { status: 202, body: 'queued' } } });
    expect(bodyOnly.body.mockResponse).toEqual({ status: 202, body: 'queued', headers: {} });
    const again = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
    expect({ status: again.status, text: await again.text() }).toEqual({ status: 202, text: 'queued' });
    // The status is still required.
    const noStatus = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { body: 'x' } } });
    expect({ status: noStatus.status, error: noStatus.body.error }).toEqual({ status: 400, error: 'mockResponse.status: is required' });
  });

  test('PATCH validates mockResponse and notificationUrl and leaves nothing half-written', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'v' } })).body;
    const bad = [
      { notificationUrl: 'ftp://example.com/x' },
      { notificationUrl: 'not a url' },
      { notificationUrl: `https://example.com/${'a'.repeat(2048)}` },
      { mockResponse: { status: 99, body: '', headers: {} } },
      { mockResponse: { status: 200, body: '', headers: { 'bad header': 'x' } } },
      { mockResponse: { status: 200, body: '', headers: { 'x-a': 'line\r\nbreak' } } },
      { name: 'ok-name', notificationUrl: 'javascript:alert(1)' },
    ];
    for (const body of bad) {
      const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body });
      expect(r.status).toBe(400);
      expect(typeof r.body.error).toBe('string');
    }
    const after = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect(after.body.name).toBe('v');
    expect(after.body.notificationUrl).toBeNull();
    const url = `https://hooks.example.com/${'a'.repeat(2000)}`;
    const ok = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: url } });
    expect(ok.status).toBe(200);
    expect(ok.body.notificationUrl).toBe(url);
    const off = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: null } });
    expect(off.body.notificationUrl).toBeNull();
  });

  test('a notificationUrl on a loopback, private or link-local address, or localhost, is saved (SPEC 2.3) and carries a notificationWarning naming why; a host name carries none', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'internal' } })).body;
    const warned: [url: string, why: string][] = [
      ['http://127.0.0.1:9/hook', '127.0.0.1 is a loopback address'],
      ['http://localhost:9/hook', 'localhost (127.0.0.1) is a loopback address'],
      ['http://LOCALHOST./hook', 'localhost (127.0.0.1) is a loopback address'],
      ['http://[::1]/hook', '::1 is a loopback address'],
      ['http://[::ffff:127.0.0.1]/hook', 'is a loopback address'],
      ['https://10.1.2.3/hook', '10.1.2.3 is a private address'],
      ['https://192.168.1.20:8443/hook', '192.168.1.20 is a private address'],
      ['http://169.254.1.1/hook', '169.254.1.1 is a link-local address'],
      ['http://169.254.169.254/latest/meta-data', '169.254.169.254 is a metadata address'],
      ['http://[fd00::5]/hook', 'fd00::5 is a private address'],
    ];
    for (const [notificationUrl, why] of warned) {
      const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl } });
      expect([notificationUrl, r.status, r.body.notificationUrl]).toEqual([notificationUrl, 200, notificationUrl]);
      const warning = r.body.notificationWarning;
      expect([notificationUrl, warning?.startsWith('Notifications to this URL will not be sent: ')]).toEqual([notificationUrl, true]);
      expect(warning).toContain(why);
      expect(warning).toContain('OUTBOUND_ALLOW');
      // Every read says it too, not only the answer to the PATCH.
      const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
      expect([got.body.notificationUrl, got.body.notificationWarning]).toEqual([notificationUrl, warning]);
      const listed = (await call(h.url, 'GET', '/api/endpoints', { token: a.key })).body.find((e) => e.slug === ep.slug);
      expect([listed?.notificationUrl, listed?.notificationWarning]).toEqual([notificationUrl, warning]);
    }
    // A public address, and a name whatever it resolves to now (a subdomain of localhost too,
    // which many resolvers do not answer): the send judges those, and reads stay as they were.
    for (const url of ['https://8.8.8.8/hook', 'https://hooks.example.com/hook', 'https://api.localhost/hook']) {
      const ok = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: url } });
      expect([ok.status, ok.body.notificationUrl, 'notificationWarning' in ok.body]).toEqual([200, url, false]);
      const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
      expect('notificationWarning' in got.body).toBe(false);
    }
    await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: 'http://127.0.0.1:9/hook' } });
    const off = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: null } });
    expect([off.status, off.body.notificationUrl, 'notificationWarning' in off.body]).toEqual([200, null, false]);
    const got = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect('notificationWarning' in got.body).toBe(false);
  });

  test("another account sees 404 for every route of someone else's endpoint", async () => {
    const a = await newAccount(h.url);
    const b = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'private' } })).body;
    await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'secret' });
    for (const [method, path, body] of [
      ['GET', `/api/endpoints/${ep.slug}`],
      ['PATCH', `/api/endpoints/${ep.slug}`, { name: 'hijack' }],
      ['DELETE', `/api/endpoints/${ep.slug}`],
      ['GET', `/api/endpoints/${ep.slug}/requests`],
      ['GET', `/api/endpoints/${ep.slug}/requests/paginated`],
      ['DELETE', `/api/endpoints/${ep.slug}/requests`],
    ] as const) {
      const r = await call(h.url, method, path, { token: b.key, body });
      expect(r.status).toBe(404);
      expect(r.text).not.toContain('secret');
    }
    expect((await call(h.url, 'GET', '/api/endpoints', { token: b.key })).body).toEqual([]);
    const still = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
    expect(still.body.name).toBe('private');
  });

  test('DELETE removes the endpoint; its slug stops capturing', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bye' } })).body;
    expect((await fetch(`${h.url}/w/${ep.slug}`)).status).toBe(200);
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(204);
    expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(404);
    const r = await fetch(`${h.url}/w/${ep.slug}`);
    expect(r.status).toBe(404);
    expect((await json(r)).error).toContain(ep.slug);
  });

  test('unknown routes and the OpenAPI page', async () => {
    const r = await call(h.url, 'GET', '/api/nope');
    expect(r.status).toBe(404);
    expect(typeof r.body.error).toBe('string');
    const spec = await call<OpenApiDoc>(h.url, 'GET', '/docs/json');
    expect(spec.status).toBe(200);
    expect(Object.keys(spec.body.paths)).toContain('/api/endpoints/{slug}/requests/paginated');
    expect((await fetch(`${h.url}/docs`)).status).toBe(200);
  });
});
