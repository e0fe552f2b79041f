/**
 * ClickHouse goes away under load (a private clickhouse-server, killed and restarted by the test):
 * senders keep getting acks while the capture log holds their captures, /healthz says `degraded`
 * with the backlog and its age, past SHIP_BACKLOG_LIMIT the receiver answers 503 + Retry-After,
 * and when ClickHouse returns the backlog ships: every acknowledged capture listed exactly once.
 */
import { describe, expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { privateClickHouse, type PrivateService } from '../support/private-services';
import { startServer, stopServer, type TestServer } from '../support/server';
import { countCheck, listAllIds, steadyLoad } from '../support/steady-load';

/** Modest on a loaded 2-core machine: the point is the counts, not the rate. */
const RATE = 250;
const OUTAGE_MS = 15_000;
const BACKLOG_LIMIT = 2_500;

const health = async (s: TestServer) => (await call<Health>(s.url, 'GET', '/healthz')).body;

describe.skipIf(!BACKENDS.includes('server'))('fault: ClickHouse down', () => {
  const cleanups = cleanupAfterAll({ ignoreErrors: true });

  test(`acks continue, /healthz degraded, 503 + Retry-After past the backlog limit, everything ships after (${RATE}/s, ${OUTAGE_MS / 1000} s outage)`, async () => {
    const ch: PrivateService = await privateClickHouse();
    cleanups.push(() => ch.destroy());
    const p = await provision('server');
    cleanups.push(p.cleanup);
    const database = new URL(p.env.CLICKHOUSE_URL ?? '').pathname;
    const server = await startServer({ env: { ...p.env, CLICKHOUSE_URL: `${ch.url}${database}`, SHIP_BACKLOG_LIMIT: String(BACKLOG_LIMIT) } });
    cleanups.push(() => stopServer(server));
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'ch-down' } })).body;

    const load = steadyLoad({ url: () => server.url, slug: ep.slug, rate: RATE });
    await Bun.sleep(2_000);
    expect((await health(server)).status).toBe('ok');

    await ch.stop();
    const outageStart = Date.now();
    const ackedAtStop = load.report.acked.length;
    let sawDegraded: Health | null = null;
    let listDuringOutage = 0;
    while (Date.now() - outageStart < OUTAGE_MS) {
      await Bun.sleep(1_000);
      const h = await health(server);
      if (h.status === 'degraded' && h.shipper && h.shipper.backlog > 0 && h.shipper.backlogAgeMs >= 1_000) sawDegraded = h;
    }
    // Reads need ClickHouse: refused as unavailable (503 JSON with Retry-After), never a 500.
    const list = await call(server.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
    listDuringOutage = list.status;
    const ackedDuringOutage = load.report.acked.length - ackedAtStop;

    await ch.start();
    // Shipping resumes after the worker's backoff (at most 5 s): the outage's backlog is stored and
    // what still waits is only what the steady load sent in the last moments (the load goes on, so
    // the backlog itself is rarely 0 at the instant of a sample; it must be 0 once the load stops).
    let lastHealth: Health | null = null;
    await eventually(async () => {
      const h = (lastHealth = await health(server));
      return h.status === 'ok' && (h.shipper?.backlogAgeMs ?? Number.POSITIVE_INFINITY) < 2_000 ? h : null;
    }, 40_000).catch((err: unknown) => {
      throw new Error(`${String(err)}; last /healthz: ${JSON.stringify(lastHealth)}`);
    });
    await Bun.sleep(2_000);
    const report = await load.stop();
    await eventually(async () => ((await health(server)).shipper?.backlog === 0 ? true : null), 20_000);
    const refusals = (await health(server)).refusals;

    const listed = await listAllIds(server.url, a.key, ep.slug);
    const counted = countCheck(report.acked, listed);
    console.log(
      `clickhouse-down: sent ${report.sent}, acked ${report.acked.length} (${ackedDuringOutage} during the outage), statuses ${JSON.stringify(report.statuses)}, ` +
        `listed ${listed.length}, missing ${counted.missing.length}, duplicated ${counted.duplicated.length}; degraded sample ${JSON.stringify(sawDegraded?.shipper)}; list during outage ${listDuringOutage}`,
    );

    expect(sawDegraded).not.toBeNull();
    expect(ackedDuringOutage).toBeGreaterThan(RATE * 2);
    // Past the limit: 503 with Retry-After, and nothing else but acks.
    expect(report.statuses[503] ?? 0).toBeGreaterThan(0);
    expect(report.unavailableWithoutRetryAfter).toBe(0);
    expect(Object.keys(report.statuses).sort()).toEqual(['200', '503']);
    expect(report.failed).toBe(0);
    // Every 503 the load got is counted under its reason, and nothing else was refused.
    expect(Object.entries(refusals).filter(([, n]) => n !== 0)).toEqual([['capture_store_behind', report.statuses[503] ?? 0]]);
    expect(listDuringOutage).toBe(503);
    expect(counted.missing).toEqual([]);
    expect(counted.duplicated).toEqual([]);
    expect(counted.unacked).toBe(0);
    expect(listed.length).toBe(report.acked.length);
  }, 120_000);
});
