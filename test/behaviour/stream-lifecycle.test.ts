/**
 * A live stream ends, with a final `event: end` saying why, once its endpoint is gone: deleted
 * (the endpoint or its account) or past its expiresAt. Reopening it is a 404.
 * The cross-node case (delete on an API node, stream on a stream-only node) is in stream-nodes.
 */
import { describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { BACKENDS, provision, type BackendName } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { startServer, stopServer } from '../support/server';
import { SseClient } from '../support/sse';
import { describeBackends, type Harness } from '../support/suite';
import type { Health } from '../../src/health';

async function endpoint(base: string) {
  const a = await newAccount(base);
  const ep = (await call(base, 'POST', '/api/endpoints', { token: a.key, body: { name: 'lifecycle' } })).body;
  return { a, ep };
}

async function capture(base: string, slug: string, body: string): Promise<string> {
  const r = await fetch(`${base}/w/${slug}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

const streamStats = async (base: string): Promise<{ topics: number; clients: number }> => (await call<Health>(base, 'GET', '/healthz')).body.stream ?? { topics: -1, clients: -1 };

/** The stream's events end with one `event: end` carrying `reason`, after the captures it had. */
function expectEndedWith(s: SseClient, reason: string, captureIds: string[]): void {
  expect(s.events.map((e) => e.event)).toEqual([...captureIds.map(() => 'request'), 'end']);
  const last = s.events.at(-1);
  expect(JSON.parse(last?.data ?? '')).toEqual({ reason });
  // The end frame has no `id:`: a client's Last-Event-ID stays its last capture's.
  expect(last?.id ?? null).toBe(captureIds.at(-1) ?? null);
}

describeBackends('live stream, when its endpoint is deleted', (h: Harness) => {
  test('every open stream ends at once with `event: end` (endpoint_deleted); reopening → 404', async () => {
    const { a, ep } = await endpoint(h.url);
    const before = await streamStats(h.url);
    const clients = await Promise.all([1, 2, 3].map(() => SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key })));
    // A change that is not a deletion is announced the same way and must not end anything.
    expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { name: 'renamed' } })).status).toBe(200);
    await Bun.sleep(300);
    const id = await capture(h.url, ep.slug, 'before delete');
    for (const c of clients) await c.until(() => c.events.length === 1);
    expect(clients.some((c) => c.ended)).toBe(false);

    const deletedAt = Date.now();
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(204);
    for (const c of clients) await c.until(() => c.ended, 3_000);
    for (const c of clients) {
      expect(c.endedAt - deletedAt).toBeLessThan(1_500);
      expectEndedWith(c, 'endpoint_deleted', [id]);
    }
    await eventually(async () => {
      const now = await streamStats(h.url);
      return now.topics === before.topics && now.clients === before.clients;
    });
    const again = await SseClient.open(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
    expect(again.response.status).toBe(404);
  });

  test('a stream still catching up from the store (Last-Event-ID) ends the same way', async () => {
    const { a, ep } = await endpoint(h.url);
    const first = await capture(h.url, ep.slug, 'one');
    const resuming = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: first });
    expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(204);
    await resuming.until(() => resuming.ended, 3_000);
    expect(resuming.events.at(-1)?.event).toBe('end');
    expect(JSON.parse(resuming.events.at(-1)?.data ?? '')).toEqual({ reason: 'endpoint_deleted' });
  });

  test("deleting the account ends the streams of all its endpoints; another account's stream goes on", async () => {
    const { a, ep } = await endpoint(h.url);
    const second = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'second' } })).body;
    const other = await endpoint(h.url);
    const s1 = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
    const s2 = await SseClient.live(`${h.url}/api/stream/${second.slug}`, { token: a.key });
    const theirs = await SseClient.live(`${h.url}/api/stream/${other.ep.slug}`, { token: other.a.key });
    expect((await call(h.url, 'DELETE', '/api/account', { token: a.session })).status).toBe(204);
    for (const s of [s1, s2]) await s.until(() => s.ended, 3_000);
    for (const s of [s1, s2]) expectEndedWith(s, 'endpoint_deleted', []);
    const id = await capture(h.url, other.ep.slug, 'still here');
    await theirs.until(() => theirs.events.length === 1);
    expect(theirs.ids).toEqual([id]);
    expect(theirs.ended).toBe(false);
    theirs.close();
  });
});

/**
 * Gives an endpoint an expiry soon and returns it (epoch ms). On the server backend it is written
 * straight into Postgres, 5 s ahead (room for two streams to open on a loaded machine). Embedded
 * PGlite is single-process: a write there meant stopping and restarting the server inside the lead,
 * and a restart took over the 30 s lead on CI at a load average of 20, so the endpoint was gone
 * before its streams opened. There the owner sets it as a user does, PATCH expiresIn (its minimum,
 * 60 s), and the server keeps running.
 */
async function expireAt(backend: BackendName, env: Record<string, string>, base: string, key: string, slug: string): Promise<number> {
  if (backend === 'server') {
    const sql = postgres(env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
    try {
      const at = Date.now() + 5_000;
      await sql`UPDATE endpoints SET expires_at = ${at} WHERE slug = ${slug}`;
      return at;
    } finally {
      await sql.end();
    }
  }
  const r = await call(base, 'PATCH', `/api/endpoints/${slug}`, { token: key, body: { expiresIn: 60 } });
  expect(r.status).toBe(200);
  const at: unknown = r.body.expiresAt;
  if (typeof at !== 'number') throw new Error(`PATCH expiresIn answered expiresAt ${String(at)}`);
  return at;
}

for (const backend of BACKENDS) {
  describe(`live stream, when its endpoint expires [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    test('open streams end at expiresAt with `event: end` (endpoint_expired); reopening → 404', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const env = { ...p.env, STREAM_PING_MS: '300' };
      const server = await startServer({ env });
      cleanups.push(() => stopServer(server));
      const { a, ep } = await endpoint(server.url);
      const expiry = { at: await expireAt(backend, env, server.url, a.key, ep.slug) };
      const clients = await Promise.all([1, 2].map(() => SseClient.live(`${server.url}/api/stream/${ep.slug}`, { token: a.key })));
      expect(expiry.at - Date.now(), 'the streams opened well before the expiry').toBeGreaterThan(300);
      const id = await capture(server.url, ep.slug, 'before expiry');
      for (const c of clients) await c.until(() => c.events.length === 1);
      for (const c of clients) await c.until(() => c.ended, expiry.at - Date.now() + 3_000);
      for (const c of clients) {
        // Clocks are one machine's; the timer fires at expiresAt, not a poll later.
        expect(c.endedAt).toBeGreaterThanOrEqual(expiry.at - 50);
        expect(c.endedAt - expiry.at).toBeLessThan(1_000);
        expectEndedWith(c, 'endpoint_expired', [id]);
        // Pings kept coming until then: the stream was live, not stalled.
        expect(c.comments.filter((x) => x === 'ping').length).toBeGreaterThan(0);
      }
      expect(await streamStats(server.url)).toMatchObject({ topics: 0, clients: 0 });
      const again = await SseClient.open(`${server.url}/api/stream/${ep.slug}`, { token: a.key });
      expect(again.response.status).toBe(404);
    }, 120_000);
  });
}
