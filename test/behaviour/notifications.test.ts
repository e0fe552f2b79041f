/**
 * Notifications end to end: a real server captures, and a real HTTP receiver in this process
 * records what it is sent. OUTBOUND_ALLOW lets the server reach `receiver` (on loopback) and
 * nothing else local: `forbidden` stands for an internal service that must never be hit.
 */
import { afterAll, expect, test } from 'bun:test';
import { hostname } from 'node:os';
import { call, eventually, newAccount } from '../support/client';
import { startHookReceiver, uniquePath, type Received } from '../support/hook-receiver';
import { describeBackends, type Harness } from '../support/suite';
import type { NotifierStats } from '../../src/engine/notifier';
import type { Health } from '../../src/health';

const receiver = startHookReceiver();
const forbidden = startHookReceiver();
afterAll(() => {
  receiver.stop();
  forbidden.stop();
});

const TIMEOUT_MS = 1_000;
const MAX_ATTEMPTS = 3;

async function endpointNotifying(h: Harness, notificationUrl: string) {
  const a = await newAccount(h.url);
  const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'notify' } })).body;
  const p = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl } });
  expect(p.status).toBe(200);
  return { a, ep };
}

const arrived = (path: string, n: number, ms = 5_000): Promise<Received[]> =>
  eventually(async () => {
    const got = receiver.received(path);
    return got.length >= n ? got : null;
  }, ms);

/** The node's notification counters (every node of these suites is a receiver, so they are there). */
async function stats(h: Harness): Promise<NotifierStats> {
  const s = (await call<Health>(h.url, 'GET', '/healthz')).body.notifications;
  if (!s) throw new Error('/healthz has no notification counters');
  return s;
}

describeBackends(
  'notifications',
  (h) => {
    test('each capture POSTs the documented JSON payload to the notificationUrl', async () => {
      const path = uniquePath('payload');
      const { a, ep } = await endpointNotifying(h, `${receiver.url}${path}?token=abc`);
      const ids: string[] = [];
      for (const [i, body] of ['{"type":"invoice.paid","object":"event"}', 'second', 'third'].entries()) {
        const res = await fetch(`${h.url}/w/${ep.slug}/hooks/${i}?q=1`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' },
          body,
        });
        expect(res.status).toBe(200);
        ids.push(res.headers.get('x-request-id') ?? '');
      }
      const got = await arrived(path, 3);
      expect(got).toHaveLength(3);
      const bodies = got.map((g) => JSON.parse(g.body));
      expect(bodies.map((b) => b.request.id).sort()).toEqual([...ids].sort());
      const first = bodies.find((b) => b.request.id === ids[0]);
      const receivedAt = first?.request.receivedAt;
      expect(Number.isInteger(receivedAt)).toBe(true);
      expect(first).toEqual({
        type: 'request.captured',
        endpoint: { id: ep.id, slug: ep.slug },
        request: {
          id: ids[0],
          method: 'POST',
          path: '/hooks/0',
          receivedAt,
          contentType: 'application/json',
          size: 40,
          detectedProvider: 'stripe',
          detectedEvent: 'invoice.paid',
          link: `${h.url}/api/requests/${ids[0]}`,
        },
      });
      for (const g of got) {
        expect(g.method).toBe('POST');
        expect(g.headers['content-type']).toBe('application/json');
        expect(g.headers['x-hookcap-event']).toBe('request.captured');
        expect(g.headers['x-hookcap-attempt']).toBe('1');
        expect(ids).toContain(g.headers['x-hookcap-request-id'] ?? '');
        expect(g.body).not.toContain('stripe-signature');
      }
      // The link is the API record, readable with the owner's key, and receivedAt matches it.
      const rec = await eventually(async () => {
        const r = await call(h.url, 'GET', `/api/requests/${ids[0]}`, { token: a.key });
        return r.status === 200 ? r.body : null;
      });
      expect(receivedAt).toBe(rec.receivedAt);
    });

    test("a slow receiver never delays the sender's acknowledgement", async () => {
      const path = uniquePath('slow');
      // Far slower than the notify timeout: attempt 1 times out, attempt 2 is answered at once.
      receiver.script(path, async (n) => {
        if (n === 1) await Bun.sleep(TIMEOUT_MS * 3);
        return new Response('ok');
      });
      const { ep } = await endpointNotifying(h, `${receiver.url}${path}`);
      const started = Date.now();
      const res = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
      const ackMs = Date.now() - started;
      expect(res.status).toBe(200);
      expect(ackMs).toBeLessThan(TIMEOUT_MS / 2);
      const got = await arrived(path, 2, 10_000);
      expect(got.map((g) => g.headers['x-hookcap-attempt'])).toEqual(['1', '2']);
      const id = res.headers.get('x-request-id');
      expect(got.every((g) => g.headers['x-hookcap-request-id'] === id)).toBe(true);
    });

    test('500 then 200: retried with backoff, same request id, attempt counted', async () => {
      const path = uniquePath('retry');
      receiver.script(path, (n) => new Response(n === 1 ? 'down' : 'ok', { status: n === 1 ? 500 : 200 }));
      const { ep } = await endpointNotifying(h, `${receiver.url}${path}`);
      const res = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
      const got = await arrived(path, 2);
      await Bun.sleep(500);
      expect(receiver.received(path)).toHaveLength(2); // delivered: no third attempt
      expect(got.map((g) => g.headers['x-hookcap-attempt'])).toEqual(['1', '2']);
      expect(got.map((g) => JSON.parse(g.body).request.id)).toEqual([res.headers.get('x-request-id'), res.headers.get('x-request-id')]);
      expect((got[1]?.at ?? 0) - (got[0]?.at ?? 0)).toBeGreaterThanOrEqual(20); // NOTIFY_BACKOFF_MS 50, jitter ≥ half
    });

    test(`429 and 5xx are retried up to NOTIFY_MAX_ATTEMPTS (${MAX_ATTEMPTS}); other 4xx are not retried`, async () => {
      const always503 = uniquePath('503');
      const always429 = uniquePath('429');
      const always400 = uniquePath('400');
      receiver.script(always503, () => new Response('no', { status: 503 }));
      receiver.script(always429, () => new Response('slow down', { status: 429, headers: { 'retry-after': '0' } }));
      receiver.script(always400, () => new Response('bad', { status: 400 }));
      for (const path of [always503, always429, always400]) {
        const { ep } = await endpointNotifying(h, `${receiver.url}${path}`);
        expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' })).status).toBe(200);
      }
      await arrived(always503, MAX_ATTEMPTS);
      await arrived(always429, MAX_ATTEMPTS);
      await arrived(always400, 1);
      await Bun.sleep(1_000); // many backoff periods: any extra attempt would have come
      expect(receiver.received(always503)).toHaveLength(MAX_ATTEMPTS);
      expect(receiver.received(always429)).toHaveLength(MAX_ATTEMPTS);
      expect(receiver.received(always400)).toHaveLength(1);
    });

    test('a loopback URL not in OUTBOUND_ALLOW is saved with a notificationWarning (by IP, localhost, [::1]); the allowed one has none', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'notify' } })).body;
      // OUTBOUND_ALLOW names 127.0.0.1 at the receiver's port only: anything else local is warned of, judged as the sender would judge it.
      for (const [url, why] of [
        [`${forbidden.url}/direct`, '127.0.0.1 is a loopback address'],
        [`http://localhost:${forbidden.port}/by-localhost`, 'localhost (127.0.0.1) is a loopback address'],
        [`http://[::1]:${receiver.port}/other-address`, '::1 is a loopback address'],
      ] as const) {
        const r = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: url } });
        expect([url, r.status, r.body.notificationUrl]).toEqual([url, 200, url]);
        expect(r.body.notificationWarning).toContain(why);
      }
      const allowed = `${receiver.url}/allowed`;
      const ok = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: allowed } });
      expect([ok.status, ok.body.notificationUrl, 'notificationWarning' in ok.body]).toEqual([200, allowed, false]);
    });

    test('never reaches loopback or private addresses it is not allowed to, by IP, by localhost, by a name resolving there or by redirect', async () => {
      const before = await stats(h);
      const direct = uniquePath('direct');
      const byLocalhost = uniquePath('by-localhost');
      const byName = uniquePath('by-name');
      const redirected = uniquePath('redirected');
      const hop = uniquePath('hop');
      receiver.script(hop, () => new Response(null, { status: 307, headers: { location: `${forbidden.url}${redirected}` } }));
      // Saved with a warning (the previous test) or, for a name, without one: each send judges again,
      // and refuses. This machine's own name is in /etc/hosts as 127.0.0.1 here.
      const targets = [`${forbidden.url}${direct}`, `http://localhost:${forbidden.port}${byLocalhost}`, `http://${hostname()}:${forbidden.port}${byName}`, `${receiver.url}${hop}`];
      for (const url of targets) {
        const { ep } = await endpointNotifying(h, url);
        expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' })).status).toBe(200);
      }
      // Control: an allowed receiver is still notified, so the pipeline is alive.
      const control = uniquePath('control');
      const { ep } = await endpointNotifying(h, `${receiver.url}${control}`);
      await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' });
      await arrived(control, 1);
      await arrived(hop, 1);
      await eventually(async () => (await stats(h)).failed >= before.failed + targets.length);
      await Bun.sleep(300);
      expect(forbidden.received(direct)).toHaveLength(0);
      expect(forbidden.received(byLocalhost)).toHaveLength(0);
      expect(forbidden.received(byName)).toHaveLength(0);
      expect(forbidden.received(redirected)).toHaveLength(0);
      expect(receiver.received(hop)).toHaveLength(1); // refused, not retried
    });

    test('notificationUrl null stops notifications; a send-test is notified like any capture', async () => {
      const path = uniquePath('toggle');
      const { a, ep } = await endpointNotifying(h, `${receiver.url}${path}`);
      const sent = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug } });
      expect(sent.status).toBe(200);
      const [first] = await arrived(path, 1);
      expect(JSON.parse(first?.body ?? '{}').request.id).toBe(sent.body.id);
      expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: null } })).status).toBe(200);
      await Bun.sleep(200); // the change reaches the receiver node's endpoint cache over the bus
      await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'after' });
      const control = uniquePath('toggle-control');
      const other = await endpointNotifying(h, `${receiver.url}${control}`);
      await fetch(`${h.url}/w/${other.ep.slug}`, { method: 'POST', body: 'x' });
      await arrived(control, 1);
      await Bun.sleep(200);
      expect(receiver.received(path)).toHaveLength(1);
    });

    test('delivery counters are reported on /healthz', async () => {
      const s = await stats(h);
      // (Bun's toMatchObject with expect.any() overwrites the matched fields, so check types directly.)
      for (const k of ['pending', 'delivered', 'failed', 'dropped', 'retries'] as const) expect(typeof s[k]).toBe('number');
      expect(s.delivered).toBeGreaterThan(0);
      expect(s.retries).toBeGreaterThan(0);
      expect(s.dropped).toBe(0);
    });
  },
  {
    OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}`,
    NOTIFY_TIMEOUT_MS: String(TIMEOUT_MS),
    NOTIFY_MAX_ATTEMPTS: String(MAX_ATTEMPTS),
    NOTIFY_BACKOFF_MS: '50',
  },
);

describeBackends(
  'notification queue bound',
  (h) => {
    test('beyond NOTIFY_QUEUE_LIMIT notifications are dropped and counted; captures still succeed', async () => {
      const path = uniquePath('bounded');
      let release = () => {};
      const gate = new Promise<void>((r) => {
        release = r;
      });
      receiver.script(path, async () => {
        await gate;
        return new Response('ok');
      });
      const { ep } = await endpointNotifying(h, `${receiver.url}${path}`);
      for (let i = 0; i < 6; i++) {
        expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `n${i}` })).status).toBe(200);
      }
      await eventually(async () => receiver.received(path).length === 1); // one in flight (concurrency 1)
      expect(await stats(h)).toMatchObject({ pending: 2, dropped: 4 });
      release();
      await arrived(path, 2);
      await eventually(async () => (await stats(h)).delivered === 2);
      await Bun.sleep(200);
      expect(receiver.received(path)).toHaveLength(2);
      expect(await stats(h)).toMatchObject({ pending: 0, delivered: 2, dropped: 4 });
    });
  },
  { OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}`, NOTIFY_QUEUE_LIMIT: '2', NOTIFY_CONCURRENCY: '1' },
);
