/**
 * `/healthz` `shipper.insertMs`: how long the capture store takes over the shipper's inserts, so a
 * ClickHouse that takes inserts slowly shows before the backlog does. On the server backend a
 * materialized view in the test's own database makes each insert sleep 1 s (as
 * test/faults/clickhouse-slow.test.ts does with 3 s in a private server).
 */
import { expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends('/healthz shipper.insertMs', (h) => {
  test('null before the first insert; then the last insert, and the slowest and the count of the last minute', async () => {
    const shipper = async () => (await call<Health>(h.url, 'GET', '/healthz')).body.shipper;
    expect((await shipper())?.insertMs).toBeNull();

    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'insert-time' } })).body;
    const capture = async () => expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'x' })).status).toBe(200);
    await capture();
    await eventually(async () => ((await shipper())?.shipped === 1 ? true : null));
    const first = (await shipper())?.insertMs;
    expect(first?.lastMinute).toBe(1);
    expect(first?.last).toBeGreaterThanOrEqual(0);
    expect(first?.slowestLastMinute).toBe(first?.last ?? -1);
    if (h.backend !== 'server') return;

    const database = new URL(h.provisioned.env.CLICKHOUSE_URL ?? '').pathname.slice(1);
    const clickhouse = async (query: string) => {
      const r = await fetch(`${new URL(h.provisioned.env.CLICKHOUSE_URL ?? '').origin}/?database=${database}`, { method: 'POST', body: query });
      if (!r.ok) throw new Error(`clickhouse: ${await r.text()}`);
    };
    await clickhouse('CREATE MATERIALIZED VIEW slow_inserts ENGINE = Null AS SELECT sleep(1) AS slept FROM captures');
    try {
      await capture();
      await eventually(async () => ((await shipper())?.shipped === 2 ? true : null));
      const slow = (await shipper())?.insertMs;
      expect(slow?.last).toBeGreaterThanOrEqual(900);
      expect(slow?.slowestLastMinute).toBe(slow?.last ?? -1);
      expect(slow?.lastMinute).toBe(2);
    } finally {
      await clickhouse('DROP TABLE slow_inserts');
    }
    await capture();
    await eventually(async () => ((await shipper())?.shipped === 3 ? true : null));
    const after = (await shipper())?.insertMs;
    expect(after?.last).toBeLessThan(900);
    // The slow one is still the slowest of the minute.
    expect(after?.slowestLastMinute).toBeGreaterThanOrEqual(900);
    expect(after?.lastMinute).toBe(3);
  });
});
