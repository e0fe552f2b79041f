/**
 * Finding 1: mock responses are stranger-chosen content served from /w/, possibly on the API's
 * own origin. Every receiver answer is sandboxed, mocks cannot set headers that act on the origin,
 * a malformed session cookie is a 401, and our session cookie is not handed to an endpoint's
 * owner. (The receiver on a host of its own: receiver-host.test.ts.)
 */
import { expect, test } from 'bun:test';
import { call, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint, captured, setMock } from './support';

function expectSandboxed(res: { headers: Headers }): void {
  expect(res.headers.get('content-security-policy')).toBe('sandbox');
  expect(res.headers.get('x-content-type-options')).toBe('nosniff');
}

describeBackends('security: the receiver cannot act on the API origin', (h) => {
  test('every receiver answer is sandboxed: default, mocked, unknown slug, no slug, too large', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const plain = await fetch(`${h.url}/w/${endpoint.slug}/x`, { method: 'POST', body: 'hi' });
    expect(plain.status).toBe(200);
    expectSandboxed(plain);

    const html = '<!doctype html><script>fetch("/api/api-keys",{method:"POST",credentials:"include"})</script>';
    await setMock(h.url, account.key, endpoint.slug, { status: 200, body: html, headers: { 'content-type': 'text/html' } });
    const mocked = await fetch(`${h.url}/w/${endpoint.slug}`);
    expect(mocked.headers.get('content-type')).toBe('text/html');
    expect(await mocked.text()).toBe(html);
    expectSandboxed(mocked);

    for (const path of ['/w/zzzzzzzzzzzz', '/w/', '/w']) {
      const r = await fetch(`${h.url}${path}`, { method: 'POST', body: 'x' });
      expect(r.status).toBe(404);
      expect(((await r.json()) as { code: string }).code).toBe('not_found');
      expectSandboxed(r);
    }
    const big = await fetch(`${h.url}/w/${endpoint.slug}`, { method: 'POST', body: new Uint8Array(1024 * 1024 + 1) });
    expect(big.status).toBe(413);
    expectSandboxed(big);
  });

  test('a mock may not set cookies or other origin-wide headers: 400 at PATCH, nothing half-written', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const good = { status: 200, body: 'ok', headers: { 'x-kept': 'yes' } };
    await setMock(h.url, account.key, endpoint.slug, good);
    const refused = [
      ['Set-Cookie', 'session=%ZZ; Path=/'],
      ['set-cookie2', 'a=b'],
      ['clear-site-data', '"cookies"'],
      ['service-worker-allowed', '/'],
      ['refresh', '0; url=https://evil.example/'],
      ['strict-transport-security', 'max-age=0'],
      ['content-security-policy', "default-src *"],
      ['x-content-type-options', 'sniff'],
      ['www-authenticate', 'Basic realm="hookcap"'],
      ['nel', '{"report_to":"x","max_age":1}'],
      ['x-bell', 'ring\u0007'],
    ];
    for (const [name, value] of refused) {
      const r = await call(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, {
        token: account.key,
        body: { name: 'changed', mockResponse: { status: 200, body: 'x', headers: { [name as string]: value } } },
      });
      expect({ name, status: r.status, code: r.body.code }).toEqual({ name, status: 400, code: 'validation' });
      expect(r.body.error).toContain(name as string);
    }
    const after = await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}`, { token: account.key });
    expect(after.body.name).toBe('security');
    expect(after.body.mockResponse).toEqual(good);
    const res = await fetch(`${h.url}/w/${endpoint.slug}`);
    expect(res.headers.get('set-cookie')).toBeNull();
    expect(res.headers.get('x-kept')).toBe('yes');
  });

  test('a mock header named __proto__ is refused with the same 400, not dropped; other prototype names are kept and served', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const good = { status: 200, body: 'ok', headers: { 'x-kept': 'yes' } };
    await setMock(h.url, account.key, endpoint.slug, good);
    // Raw JSON text: an object literal would lose "__proto__" before it is sent.
    const patch = (headers: string) =>
      call<ErrorFields>(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, {
        token: account.key,
        headers: { 'content-type': 'application/json' },
        raw: `{"name":"changed","mockResponse":{"status":200,"body":"x","headers":{${headers}}}}`,
      });
    for (const name of ['__proto__', '__PROTO__']) {
      const r = await patch(`${JSON.stringify(name)}:"v","x-other":"w"`);
      expect({ name, status: r.status, code: r.body.code }).toEqual({ name, status: 400, code: 'validation' });
      expect(r.body.error).toContain(name);
    }
    const after = await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}`, { token: account.key });
    expect(after.body.name).toBe('security');
    expect(after.body.mockResponse).toEqual(good);

    const kept = await patch('"constructor":"c","__defineGetter__":"g","toString":"t"');
    expect(kept.status).toBe(200);
    const res = await fetch(`${h.url}/w/${endpoint.slug}`);
    expect([res.headers.get('constructor'), res.headers.get('__definegetter__'), res.headers.get('tostring')]).toEqual(['c', 'g', 't']);
  });

  test('a malformed session cookie is a 401 (or the log-in page), never a 500', async () => {
    for (const cookie of ['session=%ZZ', 'session=%', 'session=%E0%A4%A', 'a=%ZZ; session=%ZZ%ZZ']) {
      for (const path of ['/api/auth/me', '/api/endpoints', '/api/usage']) {
        const r = await call<ErrorFields>(h.url, 'GET', path, { headers: { cookie } });
        expect({ path, cookie, status: r.status }).toEqual({ path, cookie, status: 401 });
        expect(r.body.code).toBe('unauthorized');
      }
      const page = await fetch(`${h.url}/agent/claim`, { headers: { cookie }, redirect: 'manual' });
      expect(page.status).toBe(303);
    }
  });

  test("a visitor's session cookie sent to /w/ is not handed to the endpoint's owner", async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const visitor = await accountWithEndpoint(h.url);
    const res = await fetch(`${h.url}/w/${endpoint.slug}/link`, { headers: { cookie: `theme=dark; session=${visitor.account.session}; other=1` } });
    expect(res.status).toBe(200);
    const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
    expect(rec?.headers.cookie).toBe('theme=dark; session=[redacted]; other=1');
    expect(JSON.stringify(rec)).not.toContain(visitor.account.session);
  });
});
