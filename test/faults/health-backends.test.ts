/**
 * `/healthz` says when a node has lost NATS, Postgres or ClickHouse (docs/operations.md): a private
 * nats-server, PostgreSQL cluster or clickhouse-server is killed and restarted;
 * `backends.busConnected` / `stateReachable` / `capturesReachable` follow it while the answer stays
 * 200 and the receiver keeps acknowledging. The other stores are the
 * embedded ones, so only the broken dependency is private and nothing shared is touched.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { BACKENDS } from '../support/backends';
import { call, eventually, newAccount } from '../support/client';
import { privateClickHouse, privateNats, privatePostgres, type PrivateService } from '../support/private-services';
import { RESTART_TEST_MS, startServer, stopServer, type TestServer } from '../support/server';

describe.skipIf(!BACKENDS.includes('server'))('/healthz while NATS is away', () => {
  let nats: PrivateService | null = null;
  let node: TestServer | null = null;
  afterAll(async () => {
    if (node) await stopServer(node);
    await nats?.destroy();
  });

  test('busConnected is false during the outage and true again after it; 200 throughout', async () => {
    nats = await privateNats();
    node = await startServer({ env: { NATS_URL: nats.url, NATS_PREFIX: `health_${Date.now()}` } });
    const url = node.url;
    const health = async () => {
      const r = await call<Health>(url, 'GET', '/healthz');
      expect(r.status).toBe(200);
      return r.body;
    };
    expect((await health()).backends).toEqual({ state: 'pglite', captures: 'sqlite', bus: 'nats', busConnected: true, stateReachable: null, capturesReachable: null });
    const a = await newAccount(url);
    const ep = (await call(url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bus' } })).body;
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'before' })).status).toBe(200);

    await nats.stop();
    await eventually(async () => (await health()).backends.busConnected === false, 15_000);
    expect((await health()).ok).toBe(true);
    // The capture path does not depend on the bus.
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'during' })).status).toBe(200);

    await nats.start();
    // The client retries every 2 s.
    await eventually(async () => (await health()).backends.busConnected === true, 20_000);
  }, RESTART_TEST_MS);
});

describe.skipIf(!BACKENDS.includes('server'))('/healthz while Postgres is away', () => {
  let pg: PrivateService | null = null;
  let node: TestServer | null = null;
  afterAll(async () => {
    if (node) await stopServer(node);
    await pg?.destroy();
  });

  test('stateReachable is false during the outage and true again after it; 200 throughout', async () => {
    pg = await privatePostgres();
    node = await startServer({ env: { DATABASE_URL: pg.url } });
    const url = node.url;
    const health = async () => {
      const r = await call<Health>(url, 'GET', '/healthz');
      expect(r.status).toBe(200);
      return r.body;
    };
    expect((await health()).backends).toEqual({ state: 'postgres', captures: 'sqlite', bus: 'local', busConnected: true, stateReachable: true, capturesReachable: null });
    const a = await newAccount(url);
    const ep = (await call(url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'pg' } })).body;
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'before' })).status).toBe(200);
    // The endpoint's snapshot is cached (and no invalidation is still on its way) before the outage.
    await Bun.sleep(500);
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'cached' })).status).toBe(200);

    await pg.stop();
    // Checked every 5 s.
    await eventually(async () => (await health()).backends.stateReachable === false, 15_000);
    const during = await health();
    expect(during.ok).toBe(true);
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'during' })).status).toBe(200);
    expect((await call(url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(503);

    await pg.start();
    await eventually(async () => (await health()).backends.stateReachable === true, 15_000);
    expect((await call(url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(200);
  }, RESTART_TEST_MS);
});

describe.skipIf(!BACKENDS.includes('server'))('/healthz while ClickHouse is away', () => {
  let ch: PrivateService | null = null;
  let node: TestServer | null = null;
  afterAll(async () => {
    if (node) await stopServer(node);
    await ch?.destroy();
  });

  // With nothing to ship, the shipper has nothing to fail on: before the read probe, /healthz
  // said nothing at all about a ClickHouse that was gone.
  test('capturesReachable is false during the outage, with nothing waiting to ship, and true again after it; 200 throughout', async () => {
    ch = await privateClickHouse();
    node = await startServer({ env: { CLICKHOUSE_URL: `${ch.url}/health_${Date.now()}` } });
    const url = node.url;
    const health = async () => {
      const r = await call<Health>(url, 'GET', '/healthz');
      expect(r.status).toBe(200);
      return r.body;
    };
    expect((await health()).backends).toEqual({ state: 'pglite', captures: 'clickhouse', bus: 'local', busConnected: true, stateReachable: null, capturesReachable: true });
    const a = await newAccount(url);
    const ep = (await call(url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'ch' } })).body;
    expect((await fetch(`${url}/w/${ep.slug}`, { method: 'POST', body: 'before' })).status).toBe(200);
    await eventually(async () => (await health()).shipper?.backlog === 0, 15_000);

    await ch.stop();
    // Checked every 5 s.
    await eventually(async () => (await health()).backends.capturesReachable === false, 15_000);
    const during = await health();
    expect(during.ok).toBe(true);
    expect(during.shipper?.backlog).toBe(0);
    expect((await call(url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(503);

    await ch.start();
    await eventually(async () => (await health()).backends.capturesReachable === true, 15_000);
    expect((await call(url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(200);
  }, 120_000);
});
