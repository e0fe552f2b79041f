/**
 * Finding 7: what strangers and single tenants cannot grow without bound. Junk slugs are not
 * remembered and the unknown-slug cache has a byte budget, as has the endpoint cache (large mock
 * responses); live streams are capped per key and per account, and a stream client's queue by
 * bytes as well as events; a notificationUrl on this service is refused and a notification loop stops; one
 * account's notifications cannot crowd out another's; an agent's sandbox has a capture quota.
 */
import { expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { call, eventually, type ErrorFields } from '../support/client';
import { startHookReceiver, uniquePath } from '../support/hook-receiver';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, registerAnonymous, type SandboxCaptures } from '../behaviour/agent-support';
import { accountWithEndpoint, captured, setMock } from './support';

const hooks = startHookReceiver();
const SLUG_CACHE_BYTES = 20_000;
const SANDBOX_CAPTURES = 3;
/** The endpoint cache's budget here: about three of the test's mocks (each ~4 × MOCK_CHARS bytes estimated). */
const MOCK_CHARS = 300_000;
const ENDPOINT_CACHE_BYTES = 4_000_000;
/** A stream client's queue here: about one of the test's large events (256 KiB of control characters, ~1.5 MB of JSON). */
const STREAM_BUFFER_BYTES = 2 * 1024 * 1024;

async function health(base: string): Promise<Health> {
  return (await call<Health>(base, 'GET', '/healthz')).body;
}

describeBackends(
  'security: resource limits',
  (h) => {
    test('slugs that cannot exist are 404 without being remembered; unknown ones stay within the byte budget', async () => {
      const before = (await health(h.url)).unknownSlugs;
      expect(before).not.toBeNull();
      const long = 'a'.repeat(15_000);
      for (let i = 0; i < 200; i++) {
        const r = await fetch(`${h.url}/w/${long}${i}`, { method: 'POST', body: 'x' });
        expect(r.status).toBe(404);
      }
      for (const junk of ['ABCDEFGHJKMN', 'abcdefghijk', 'abcdefghijklm', 'abcdefghijk1', 'abcdefghijko', 'ünïcödéslug1']) {
        expect((await fetch(`${h.url}/w/${encodeURIComponent(junk)}`)).status).toBe(404);
      }
      expect((await health(h.url)).unknownSlugs).toEqual(before);
      // Well-formed unknown slugs are remembered (a flood of one slug skips Postgres), within the budget.
      const alphabet = 'abcdefghijkmnpqrstuvwxyz23456789';
      for (let i = 0; i < 300; i++) {
        const slug = Array.from({ length: 12 }, (_, j) => alphabet[(i * 7 + j * 13 + Math.floor(i / 32)) % 32]).join('');
        await fetch(`${h.url}/w/${slug}`);
      }
      const after = (await health(h.url)).unknownSlugs;
      expect(after?.entries).toBeGreaterThan(0);
      expect(after?.bytes ?? Infinity).toBeLessThanOrEqual(SLUG_CACHE_BYTES);
    });

    test("large mock responses stay within the endpoint cache's byte budget and are still served", async () => {
      // One account, any number of endpoints, each with a mock of hundreds of KB: one request per
      // slug used to load every mock into the receiver's memory (the cache was bounded by count only).
      const { account } = await accountWithEndpoint(h.url);
      const mocks: { slug: string; body: string }[] = [];
      for (let i = 0; i < 8; i++) {
        const created = await call<{ slug: string }>(h.url, 'POST', '/api/endpoints', { token: account.key, body: { name: `big ${i}` } });
        const body = `${i}`.repeat(MOCK_CHARS);
        await setMock(h.url, account.key, created.body.slug, { status: 200, body, headers: {} });
        mocks.push({ slug: created.body.slug, body });
      }
      for (const m of mocks) {
        const r = await fetch(`${h.url}/w/${m.slug}`, { method: 'POST', body: 'x' });
        expect({ slug: m.slug, status: r.status, same: (await r.text()) === m.body }).toEqual({ slug: m.slug, status: 200, same: true });
      }
      const cache = (await health(h.url)).endpointCache;
      expect(cache?.maxBytes).toBe(ENDPOINT_CACHE_BYTES);
      expect(cache?.bytes ?? Infinity).toBeLessThanOrEqual(ENDPOINT_CACHE_BYTES);
      expect(cache?.evictions ?? 0).toBeGreaterThan(0);
      // An evicted snapshot is loaded again on its next capture, mock and all.
      const first = mocks[0];
      if (!first) throw new Error('no mock');
      const again = await fetch(`${h.url}/w/${first.slug}`, { method: 'POST', body: 'x' });
      expect(await again.text()).toBe(first.body);
    }, 30_000);

    test('a stream client that stops reading is dropped once its queue holds STREAM_CLIENT_BUFFER_BYTES, however few the events; readers get every large event, live and in a catch-up', async () => {
      // 1,000 events (the count bound) of 1 MiB captures of control characters, 6 MiB of JSON each,
      // used to be queued for a client that never read: gigabytes held for one stream.
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const url = `${h.url}/api/stream/${endpoint.slug}`;
      const clients = async () => (await health(h.url)).stream?.clients ?? -1;
      const before = await clients();
      const reader = await SseClient.live(url, { token: account.key });
      const stuck = await Bun.connect({
        hostname: '127.0.0.1',
        port: Number(new URL(h.url).port),
        socket: {
          data() {},
          open(s) {
            s.write(`GET /api/stream/${endpoint.slug} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${account.key}\r\nAccept: text/event-stream\r\n\r\n`);
            s.pause();
          },
        },
      });
      try {
        await eventually(async () => (await clients()) === before + 2);
        const body = '\u0001'.repeat(256 * 1024);
        const ids: string[] = [];
        for (let i = 0; i < 30; i++) {
          const r = await fetch(`${h.url}/w/${endpoint.slug}/big`, { method: 'POST', body });
          ids.push(((await r.json()) as { id: string }).id);
        }
        await reader.until(() => reader.events.length === ids.length, 40_000);
        // Each record is over NATS's max payload: it travels as a reference and may come out of
        // order (docs/stream.md); every one arrives once.
        expect(reader.ids.toSorted()).toEqual(ids.toSorted());
        // 30 events, far below the 1,000 of STREAM_CLIENT_BUFFER, but ~45 MB: the stuck client goes.
        await eventually(async () => (await clients()) === before + 1, 10_000);
        // A catch-up of events each close to the whole byte bound waits for its reader, and ends.
        // It sends in the store's order, which may differ from arrival by a millisecond's ties.
        const stored = (await captured(h.url, account.key, endpoint.slug, ids.length)).map((c) => c.id).reverse();
        const resumed = await SseClient.live(url, { token: account.key, lastEventId: stored[0] ?? '' });
        await resumed.until(() => resumed.events.length === ids.length - 1, 40_000);
        expect(resumed.ids).toEqual(stored.slice(1));
        resumed.close();
      } finally {
        reader.close();
        stuck.end();
      }
    }, 120_000);

    test('live streams are capped per key and per account (429 too_many_streams); closing one frees its slot', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const secondKey = (await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name: 'second' } })).body.key ?? '';
      const url = `${h.url}/api/stream/${endpoint.slug}`;
      const open: SseClient[] = [];
      try {
        open.push(await SseClient.live(url, { token: account.key }), await SseClient.live(url, { token: account.key }));
        const third = await SseClient.open(url, { token: account.key });
        expect(third.response.status).toBe(429);
        expect(third.response.headers.get('retry-after')).toBe('30');
        expect(((await third.response.json()) as ErrorFields).code).toBe('too_many_streams');
        // Another key of the same account: its own per-key room, but the account holds at most 3.
        open.push(await SseClient.live(url, { token: secondKey }));
        const fourth = await SseClient.open(url, { token: secondKey });
        expect(fourth.response.status).toBe(429);
        // Another account is not affected.
        const other = await accountWithEndpoint(h.url);
        open.push(await SseClient.live(`${h.url}/api/stream/${other.endpoint.slug}`, { token: other.account.key }));
        // Closing a stream frees its slot (the server sees the disconnect).
        open.shift()?.close();
        const again = await eventually(async () => {
          const c = await SseClient.open(url, { token: account.key });
          if (c.response.status === 200) return c;
          c.close();
          return null;
        });
        open.push(again);
      } finally {
        for (const c of open) c.close();
      }
    });

    test("a notificationUrl on this service's own hosts is refused", async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      for (const url of [`${h.url}/w/${endpoint.slug}`, `${h.url}/api/anything`, `${h.url.toUpperCase()}/w/${endpoint.slug}?x=1`]) {
        const r = await call<ErrorFields>(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, { token: account.key, body: { notificationUrl: url } });
        expect({ url, status: r.status, code: r.body.code }).toEqual({ url, status: 400, code: 'validation' });
      }
      const ok = await call(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, { token: account.key, body: { notificationUrl: `${hooks.url}/elsewhere` } });
      expect(ok.status).toBe(200);
    });

    test('a notification loop through the receiver (here: a redirect back to it) stops after a few hops', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const path = uniquePath('loop');
      hooks.script(path, () => new Response(null, { status: 307, headers: { location: `${h.url}/w/${endpoint.slug}/looped` } }));
      await call(h.url, 'PATCH', `/api/endpoints/${endpoint.slug}`, { token: account.key, body: { notificationUrl: `${hooks.url}${path}` } });
      // The PATCH reaches the receiver's snapshot a moment later (over NATS on the server backend).
      await Bun.sleep(500);
      expect((await fetch(`${h.url}/w/${endpoint.slug}/start`, { method: 'POST', body: 'x' })).status).toBe(200);
      // The request, then each notification redirected into the receiver and captured: hops 1, 2, 3.
      const recs = await captured(h.url, account.key, endpoint.slug, 4, 15_000);
      await Bun.sleep(2_000);
      const settled = await captured(h.url, account.key, endpoint.slug, 4);
      expect(settled.length).toBe(4);
      expect(settled.map((r) => r.headers['x-hookcap-hop'] ?? '0').sort()).toEqual(['0', '1', '2', '3']);
      expect(recs.length).toBe(4);
    });

    test("one account's notification flood neither fills the queue for others nor delays them", async () => {
      const noisy = await accountWithEndpoint(h.url);
      const quiet = await accountWithEndpoint(h.url);
      const slowPath = uniquePath('slow');
      const fastPath = uniquePath('fast');
      hooks.script(slowPath, async () => {
        await Bun.sleep(1_000);
        return new Response('ok');
      });
      for (const [who, path] of [[noisy, slowPath], [quiet, fastPath]] as const) {
        await call(h.url, 'PATCH', `/api/endpoints/${who.endpoint.slug}`, { token: who.account.key, body: { notificationUrl: `${hooks.url}${path}` } });
      }
      const droppedBefore = (await health(h.url)).notifications?.dropped ?? 0;
      await Bun.sleep(300);
      // At once, so the flood arrives faster than the slow hook drains it even on a loaded machine
      // (sent one after another there, the queue drained meanwhile: 16 dropped, not 20).
      const flood = await Promise.all(Array.from({ length: 30 }, (_, i) => fetch(`${h.url}/w/${noisy.endpoint.slug}/n${i}`, { method: 'POST', body: 'x' })));
      expect(flood.map((r) => r.status)).toEqual(Array.from({ length: 30 }, () => 200));
      const sentAt = Date.now();
      expect((await fetch(`${h.url}/w/${quiet.endpoint.slug}/q`, { method: 'POST', body: 'x' })).status).toBe(200);
      await eventually(async () => hooks.received(fastPath).length === 1, 5_000);
      // Within about one slow delivery, not after the noisy account's backlog (10 at a second each on 2 senders).
      expect(Date.now() - sentAt).toBeLessThan(3_500);
      // What the noisy account sent beyond its share was dropped.
      expect(((await health(h.url)).notifications?.dropped ?? 0) - droppedBefore).toBeGreaterThanOrEqual(20);
    });

    test("an agent's sandbox endpoints stop capturing at the sandbox quota (429, nothing stored)", async () => {
      const reg = await registerAnonymous(h.url, 'quota bot');
      const created = await call<{ slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(created.status).toBe(201);
      const slug = created.body.slug;
      for (let i = 0; i < SANDBOX_CAPTURES; i++) expect((await fetch(`${h.url}/w/${slug}/${i}`, { method: 'POST', body: 'x' })).status).toBe(200);
      const over = await fetch(`${h.url}/w/${slug}/over`, { method: 'POST', body: 'x' });
      expect(over.status).toBe(429);
      expect(over.headers.get('retry-after')).toMatch(/^\d+$/);
      expect(over.headers.get('content-security-policy')).toBe('sandbox');
      expect(((await over.json()) as ErrorFields).code).toBe('quota_exceeded');
      // A second endpoint of the same key shares the quota.
      const second = await call<{ slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect((await fetch(`${h.url}/w/${second.body.slug}`, { method: 'POST', body: 'x' })).status).toBe(429);
      // Stored captures reach the store after the ack (ClickHouse ships them within a second or so
      // under load): wait for the quota's worth, then make sure no more arrive.
      const storedCount = async () =>
        (await call<SandboxCaptures>(h.url, 'GET', `/api/agent/sandbox/endpoints?slug=${slug}`, { token: reg.credential })).body.length;
      await eventually(async () => (await storedCount()) >= SANDBOX_CAPTURES, 10_000);
      await Bun.sleep(300);
      expect(await storedCount()).toBe(SANDBOX_CAPTURES);
      // Accounts are not held to the sandbox quota.
      const { endpoint } = await accountWithEndpoint(h.url);
      for (let i = 0; i <= SANDBOX_CAPTURES; i++) expect((await fetch(`${h.url}/w/${endpoint.slug}`, { method: 'POST', body: 'x' })).status).toBe(200);
    });
  },
  {
    ...AGENT_ENV,
    UNKNOWN_SLUG_CACHE_BYTES: String(SLUG_CACHE_BYTES),
    ENDPOINT_CACHE_MAX_BYTES: String(ENDPOINT_CACHE_BYTES),
    STREAM_CLIENT_BUFFER_BYTES: String(STREAM_BUFFER_BYTES),
    STREAM_MAX_PER_KEY: '2',
    STREAM_MAX_PER_ACCOUNT: '3',
    OUTBOUND_ALLOW: '127.0.0.1',
    NOTIFY_QUEUE_LIMIT: '40',
    NOTIFY_QUEUE_PER_ACCOUNT: '10',
    NOTIFY_CONCURRENCY: '2',
    NOTIFY_MAX_ATTEMPTS: '1',
    SANDBOX_MAX_CAPTURES: String(SANDBOX_CAPTURES),
  },
);
