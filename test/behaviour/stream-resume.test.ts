/**
 * Resuming on the node that served the stream: for STREAM_RESUME_MS after an endpoint's last
 * client left, the node keeps its subscription and the events it delivered, and a reconnect with
 * Last-Event-ID gets exactly what came after that event, in the order the node had it. The
 * shipper waits a minute here, so nothing of this can come from the capture store.
 */
import { expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { call, eventually, newAccount } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends, type Harness } from '../support/suite';

const RESUME_MS = 2_000;

async function endpoint(h: Harness) {
  const a = await newAccount(h.url);
  const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'resume' } })).body;
  return { a, ep };
}

async function capture(h: Harness, slug: string, body: string): Promise<string> {
  const r = await fetch(`${h.url}/w/${slug}`, { method: 'POST', body });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

const streamStats = async (h: Harness): Promise<{ topics: number; clients: number; idle: number }> => {
  const stream = (await call<Health>(h.url, 'GET', '/healthz')).body.stream;
  if (!stream) throw new Error('no stream role');
  return stream;
};

/** Opens a stream, takes one capture on it, and closes it as a dropped connection would. */
async function watchedOnce(h: Harness, slug: string, key: string): Promise<string> {
  const s = await SseClient.live(`${h.url}/api/stream/${slug}`, { token: key });
  const id = await capture(h, slug, 'seen');
  await s.until(() => s.events.length === 1);
  s.close();
  await eventually(async () => (await streamStats(h)).clients === 0);
  return id;
}

describeBackends(
  'live stream, resuming on the same node',
  (h) => {
    test('a client back within STREAM_RESUME_MS gets what it missed at once, then live ones, each once', async () => {
      const { a, ep } = await endpoint(h);
      const last = await watchedOnce(h, ep.slug, a.key);
      const missed = [await capture(h, ep.slug, 'missed 1'), await capture(h, ep.slug, 'missed 2')];
      const back = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: last });
      // Well before a store catch-up would even start reading (SHIP_MAX_AGE_MS + 500 ms).
      await back.until(() => back.events.length === 2, 5_000);
      const live = await capture(h, ep.slug, 'live');
      await back.until(() => back.events.length === 3);
      await Bun.sleep(200);
      back.close();
      expect(back.ids).toEqual([...missed, live]);
      expect(back.events.map((e) => JSON.parse(e.data).body)).toEqual(['missed 1', 'missed 2', 'live']);
    });

    test('what a clear hides while the client is away is not sent on resume', async () => {
      const { a, ep } = await endpoint(h);
      const last = await watchedOnce(h, ep.slug, a.key);
      await capture(h, ep.slug, 'cleared');
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
      const after = await capture(h, ep.slug, 'after the clear');
      const back = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: last });
      await back.until(() => back.events.length === 1);
      await Bun.sleep(300);
      back.close();
      expect(back.ids).toEqual([after]);
    });

    test('the subscription is dropped STREAM_RESUME_MS after the last client left', async () => {
      const { a, ep } = await endpoint(h);
      await watchedOnce(h, ep.slug, a.key);
      expect((await streamStats(h)).idle).toBeGreaterThanOrEqual(1);
      await eventually(async () => {
        const s = await streamStats(h);
        return s.idle === 0 && s.topics === 0;
      }, RESUME_MS + 5_000);
    });
  },
  { STREAM_RESUME_MS: String(RESUME_MS), SHIP_MAX_AGE_MS: '60000', SHIP_BATCH_ROWS: '100000' },
);
