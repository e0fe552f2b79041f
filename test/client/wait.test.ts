/**
 * hookcap/client as an integration test suite uses it: an endpoint per test, the app's webhook
 * sent (sometimes before the wait starts), waited for with a matcher, asserted on; timeouts that
 * say what did arrive; waiting for N and for none. Real server, both backends.
 */
import { expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { bodyBytes, bodyJson, bodyText, createClient, HookcapError, WaitTimeoutError, type HookcapClient } from 'hookcap/client';
import { newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('hookcap/client waiting in a test suite', (h) => {
  async function client(): Promise<HookcapClient> {
    return createClient({ apiUrl: h.url, key: (await newAccount(h.url)).key });
  }
  /** The app under test sending its webhook; the receiver's answer once it is durable. */
  const appSends = async (url: string, path: string, body: string | Uint8Array, headers: Record<string, string> = {}) => {
    const r = await fetch(`${url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json', ...headers }, body });
    expect(r.status).toBe(200);
    return r.headers.get('x-request-id') ?? '';
  };
  /** Until the capture store lists `id` (what `newestId` and a default wait start after). */
  const listed = async (c: HookcapClient, slug: string, id: string) => {
    for (let i = 0; i < 100 && (await c.newestId(slug)) !== id; i++) await Bun.sleep(100);
  };

  test('a matcher finds the webhook; after: newestId finds one sent before the wait on a reused endpoint; body helpers', async () => {
    const c = await client();
    const ep = await c.endpoints.create('orders');
    const earlier = await appSends(ep.url, '/orders', JSON.stringify({ type: 'order.created', data: { id: 1 } }));
    await listed(c, ep.slug, earlier);
    // The position before the trigger: a capture id, no clock involved.
    const mark = await c.newestId(ep.slug);
    const id = await appSends(ep.url, '/orders?x=1&x=2', JSON.stringify({ type: 'order.created', data: { id: 7, tags: ['a'] } }), { 'X-App': 'shop' });
    await listed(c, ep.slug, id);
    // Sent and listed before the wait starts: the default start (after the newest listed) misses it, `after` does not.
    const got = await c.waitForRequest(
      ep.slug,
      { method: 'post', path: '/orders', query: { x: '2' }, headers: { 'x-app': 'shop', 'content-type': /json/ }, json: { type: 'order.created', data: { id: 7 } } },
      { after: mark, timeout: 10_000 },
    );
    expect(got.id).toBe(id);
    expect(bodyJson<{ data: { tags: string[] } }>(got).data.tags).toEqual(['a']);
    expect(bodyText(got)).toContain('"id":7');
    const missed = await c.waitForRequest(ep.slug, { path: '/orders' }, { timeout: 1_000 }).catch((e: unknown) => e);
    expect(missed).toMatchObject({ code: 'timeout' });

    const bin = await appSends(ep.url, '/bin', new Uint8Array([0xff, 0, 1]), { 'content-type': 'application/octet-stream' });
    const raw = await c.waitForRequest(ep.slug, { path: '/bin' }, { after: id, timeout: 10_000 });
    expect(raw.id).toBe(bin);
    expect(bodyBytes(raw)).toEqual(new Uint8Array([0xff, 0, 1]));
    const notJson = (() => {
      try {
        return bodyJson(raw);
      } catch (e) {
        return e;
      }
    })();
    expect(notJson).toBeInstanceOf(HookcapError);
    expect((notJson as Error).message).toContain(`the body of ${bin} is not JSON`);
    await c.endpoints.delete(ep.slug);
  });

  test('a timeout names the slug, what was waited for, how long, and what arrived instead', async () => {
    const c = await client();
    const ep = await c.endpoints.create('timeout');
    const a = await appSends(ep.url, '/a', '{"type":"a"}');
    const b = await appSends(ep.url, '/b?q=1', '{"type":"b"}');
    const err = await c.waitForRequest(ep.slug, { method: 'POST', path: '/refunds' }, { since: 0, timeout: 1_500 }).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(WaitTimeoutError);
    expect(err).toBeInstanceOf(HookcapError);
    const e = err as WaitTimeoutError;
    expect(e.code).toBe('timeout');
    expect(e.message).toBe(`no request matching POST /refunds on ${ep.slug} within 1.5 s; 2 others arrived: POST /a ${a}; POST /b?q=1 ${b}`);
    expect(e.unmatched.map((r) => r.id)).toEqual([a, b]);
    expect(e.unmatchedCount).toBe(2);
    const fn = await c
      .waitForRequest(ep.slug, (r) => r.path === '/x', { since: 0, timeout: 2_000, description: 'the /x webhook' })
      .catch((x: unknown) => (x as Error).message);
    expect(fn).toStartWith(`no request matching the /x webhook on ${ep.slug} within 2 s; 2 others arrived`);
    await c.endpoints.delete(ep.slug);
  });

  test('a default wait starts at the server\'s moment of the call (the position route), not at the newest stored capture; an older server: newestId', async () => {
    const account = await newAccount(h.url);
    const asked: string[] = [];
    // The real fetch, the paths it was asked for written down (the start is not otherwise visible).
    const c = createClient({ apiUrl: h.url, key: account.key, fetch: ((input: string | URL | Request, init?: RequestInit) => {
      asked.push(new URL(input instanceof Request ? input.url : input.toString()).pathname);
      return fetch(input, init);
    }) as typeof fetch });
    const ep = await c.endpoints.create('start');
    const before = await appSends(ep.url, '/e', '{"n":0}');
    await listed(c, ep.slug, before);
    asked.length = 0;
    // Not awaited before the webhook is sent, as a test suite writes it.
    const waiting = c.waitForRequest(ep.slug, { path: '/e' }, { timeout: 15_000 });
    const sent = await appSends(ep.url, '/e', '{"n":1}');
    expect((await waiting).id).toBe(sent);
    expect(asked.slice(0, 2)).toEqual([`/api/endpoints/${ep.slug}/position`, `/api/stream/${ep.slug}`]);

    // A server from before the route answers it as a route it has not got: the newest stored capture.
    const old = createClient({ apiUrl: h.url, key: account.key, fetch: ((input: string | URL | Request, init?: RequestInit) => {
      const path = new URL(input instanceof Request ? input.url : input.toString()).pathname;
      asked.push(path);
      if (path.endsWith('/position')) return Promise.resolve(Response.json({ error: `no route GET ${path}; the API is described at /docs (JSON at /docs/json)`, code: 'not_found' }, { status: 404 }));
      return fetch(input, init);
    }) as typeof fetch });
    await listed(c, ep.slug, sent);
    asked.length = 0;
    const again = old.waitForRequest(ep.slug, { path: '/e' }, { timeout: 15_000 });
    // Sent once the start is read: with newestId, a webhook stored before that read counts as older.
    for (let i = 0; i < 100 && !asked.some((p) => p.startsWith('/api/stream/')); i++) await Bun.sleep(50);
    const third = await appSends(ep.url, '/e', '{"n":2}');
    expect((await again).id).toBe(third);
    expect(asked.slice(0, 3)).toEqual([`/api/endpoints/${ep.slug}/position`, `/api/endpoints/${ep.slug}/requests`, `/api/stream/${ep.slug}`]);
    await c.endpoints.delete(ep.slug);
  });

  test('waitForRequests waits for N; expectNoRequest passes on silence and fails on the first match', async () => {
    const c = await client();
    const ep = await c.endpoints.create('n');
    const silent = Date.now();
    await c.expectNoRequest(ep.slug, {}, { within: 1_000 });
    expect(Date.now() - silent).toBeGreaterThanOrEqual(1_000);
    const ids = [await appSends(ep.url, '/e', '{"n":1}'), await appSends(ep.url, '/other', '{}'), await appSends(ep.url, '/e', '{"n":2}')] as const;
    const two = await c.waitForRequests(ep.slug, { path: '/e' }, { since: 0, count: 2, timeout: 10_000 });
    expect(two.map((r) => r.id)).toEqual([ids[0], ids[2]]);
    // The timeouts below are the time a loaded machine needs to connect the stream and replay the
    // backlog (1 s was not enough on CI at a load average of 20: '0 of 3 … no other request arrived').
    const short = await c.waitForRequests(ep.slug, { path: '/e' }, { since: 0, count: 3, timeout: 8_000 }).catch((e: unknown) => e);
    expect((short as Error).message).toBe(`2 of 3 requests matching /e on ${ep.slug} within 8 s; 1 other arrived: POST /other ${ids[1]}`);
    expect((short as WaitTimeoutError).matched.length).toBe(2);
    await c.expectNoRequest(ep.slug, { path: '/refunds' }, { since: 0, within: 1_000 });
    const started = Date.now();
    // Fails on the match, not at the end of its window: well under `within`.
    const hit = await c.expectNoRequest(ep.slug, { path: '/other' }, { since: 0, within: 30_000 }).catch((e: unknown) => e);
    expect(Date.now() - started).toBeLessThan(20_000);
    expect(hit).toMatchObject({ code: 'unexpected_request', capture: { id: ids[1] } });
    expect((hit as Error).message).toBe(`expected no request matching /other on ${ep.slug} within 30 s, got POST /other ${ids[1]}`);
    await c.endpoints.delete(ep.slug);
  }, 120_000);

  test('signing set through endpoints.update; the verification result is matchable', async () => {
    const c = await client();
    const ep = await c.endpoints.create('stripe');
    const secret = 'whsec_suite_secret';
    await c.endpoints.update(ep.slug, { signing: { provider: 'stripe', secret } });
    const body = JSON.stringify({ type: 'invoice.paid', data: { object: { status: 'paid' } } });
    const t = Math.floor(Date.now() / 1000);
    const sig = createHmac('sha256', secret).update(`${t}.${body}`).digest('hex');
    await appSends(ep.url, '/stripe', body, { 'stripe-signature': `t=${t},v1=bad` });
    const good = await appSends(ep.url, '/stripe', body, { 'stripe-signature': `t=${t},v1=${sig}` });
    const paid = await c.waitForRequest(ep.slug, { provider: 'stripe', event: 'invoice.paid', signatureVerified: true }, { since: 0, timeout: 10_000 });
    expect(paid.id).toBe(good);
    expect(paid.signingProvider).toBe('stripe');
    await c.endpoints.delete(ep.slug);
  });

  test('the server down: the timeout says the stream never connected', async () => {
    const down = createClient({ apiUrl: 'http://127.0.0.1:9', key: 'svc_x' });
    const err = await down.waitForRequest('abcdefghjkmn', { path: '/x' }, { since: 0, timeout: 1_500 }).catch((e: unknown) => e);
    expect(err).toMatchObject({ code: 'timeout' });
    expect((err as Error).message).toContain('the stream never connected (cannot reach http://127.0.0.1:9');
  });
});
