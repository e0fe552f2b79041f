/**
 * Settings a multi-node deployment sizes or points (docs/deploy.md): DATABASE_POOL_MAX bounds a
 * node's Postgres connections, and NATS_URL may list several servers of one cluster, tried in turn.
 */
import { describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import type { Health } from '../../src/health';
import { BACKENDS, PG_ADMIN_URL, provision } from '../support/backends';
import { call, newAccount } from '../support/client';
import { freePort, startServer, stopServer } from '../support/server';
import { SseClient } from '../support/sse';

describe.skipIf(!BACKENDS.includes('server'))('deployment settings [server]', () => {
  test('DATABASE_POOL_MAX=2: a node under concurrent API calls never holds more than 2 Postgres connections', async () => {
    const p = await provision('server');
    const database = new URL(p.env.DATABASE_URL ?? '').pathname.slice(1);
    const s = await startServer({ env: { ...p.env, DATABASE_POOL_MAX: '2' } });
    const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
    try {
      const a = await newAccount(s.url);
      let most = 0;
      let calling = true;
      const watcher = (async () => {
        while (calling) {
          const [row] = await admin`SELECT count(*)::int AS n FROM pg_stat_activity WHERE datname = ${database}`;
          most = Math.max(most, Number(row?.n ?? 0));
          await Bun.sleep(5);
        }
      })();
      const replies = await Promise.all(Array.from({ length: 60 }, () => call(s.url, 'GET', '/api/endpoints', { token: a.key })));
      calling = false;
      await watcher;
      expect(replies.every((r) => r.status === 200)).toBe(true);
      expect(most).toBeGreaterThan(0);
      expect(most).toBeLessThanOrEqual(2);
    } finally {
      await admin.end();
      await stopServer(s);
      await p.cleanup();
    }
  });

  test('NATS_URL lists servers: with the first one down, the node connects to the next and live streams work', async () => {
    const p = await provision('server');
    const dead = `nats://127.0.0.1:${await freePort()}`;
    const s = await startServer({ env: { ...p.env, NATS_URL: `${dead},${p.env.NATS_URL}` } });
    try {
      expect((await call<Health>(s.url, 'GET', '/healthz')).body.backends.bus).toBe('nats');
      const a = await newAccount(s.url);
      const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'nats list' } })).body;
      const live = await SseClient.live(`${s.url}/api/stream/${ep.slug}`, { token: a.key });
      const r = await fetch(`${s.url}/w/${ep.slug}`, { method: 'POST', body: 'over nats' });
      const id = ((await r.json()) as { id: string }).id;
      await live.until(() => live.events.length === 1);
      live.close();
      expect(live.ids).toEqual([id]);
    } finally {
      await stopServer(s);
      await p.cleanup();
    }
  });
});
