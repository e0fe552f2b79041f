/**
 * Postgres goes away under load (a private cluster made with initdb, stopped with
 * `pg_ctl -m immediate` and started again by the test): captures to endpoints whose snapshot is
 * cached continue, API calls answer 503 JSON with Retry-After (never 500), and the usage counted
 * meanwhile reaches Postgres once it is back. The one capture refused meanwhile (an endpoint not
 * yet cached) is counted in /healthz `refusals` as state_store_unreachable.
 */
import { describe, expect, test } from 'bun:test';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount, type Reply } from '../support/client';
import { privatePostgres, type PrivateService } from '../support/private-services';
import { startServer, stopServer } from '../support/server';
import { countCheck, listAllIds, reachedRate, steadyLoad } from '../support/steady-load';

const RATE = 250;
const OUTAGE_MS = 10_000;

describe.skipIf(!BACKENDS.includes('server'))('fault: Postgres down', () => {
  const cleanups = cleanupAfterAll({ ignoreErrors: true });

  test(`cached endpoints keep capturing, the API answers 503 + Retry-After, usage is flushed after (${RATE}/s, ${OUTAGE_MS / 1000} s outage)`, async () => {
    const pg: PrivateService = await privatePostgres();
    cleanups.push(() => pg.destroy());
    const p = await provision('server');
    cleanups.push(p.cleanup);
    const server = await startServer({ env: { ...p.env, DATABASE_URL: pg.url, USAGE_FLUSH_MS: '500' } });
    cleanups.push(() => stopServer(server));
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'pg-down' } })).body;
    // Never captured before the outage: no snapshot on the receiver.
    const cold = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cold' } })).body;

    const load = steadyLoad({ url: () => server.url, slug: ep.slug, rate: RATE });
    await Bun.sleep(1_000);
    const rateBefore = await reachedRate(load, RATE);
    const ackedBefore = load.report.acked.length;

    await pg.stop();
    const downAt = Date.now();
    await Bun.sleep(1_000);
    const during: { what: string; reply: Reply<unknown> }[] = [];
    const probe = async (what: string, r: Promise<Reply<unknown>>) => during.push({ what, reply: await r });
    await probe('GET /api/endpoints', call(server.url, 'GET', '/api/endpoints', { token: a.key }));
    await probe('POST /api/endpoints', call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'during' } }));
    await probe('GET /api/usage', call(server.url, 'GET', '/api/usage', { token: a.key }));
    await probe('GET /api/endpoints/:slug/requests', call(server.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key }));
    await probe('POST /api/auth/signup', call(server.url, 'POST', '/api/auth/signup', { body: { email: `x${Date.now()}@example.com`, password: 'correct horse battery' } }));
    const coldCapture = await fetch(`${server.url}/w/${cold.slug}`, { method: 'POST', body: 'cold' });
    await Bun.sleep(Math.max(0, OUTAGE_MS - (Date.now() - downAt)));
    const ackedDuring = load.report.acked.length - ackedBefore;

    await pg.start();
    await Bun.sleep(2_000);
    const report = await load.stop();
    // Every capture counted once in Postgres: the counts made during the outage were kept and flushed.
    const used = await eventually(async () => {
      const r = await call(server.url, 'GET', '/api/usage', { token: a.key });
      return r.status === 200 && r.body.used >= report.acked.length ? r.body.used : null;
    }, 20_000).catch(() => -1);
    await eventually(async () => ((await fetch(`${server.url}/healthz`).then((r) => r.json())) as { shipper: { backlog: number } }).shipper.backlog === 0, 10_000);
    const refusals = ((await fetch(`${server.url}/healthz`).then((r) => r.json())) as { refusals: Record<string, number> }).refusals;
    const listed = await listAllIds(server.url, a.key, ep.slug);
    const counted = countCheck(report.acked, listed);

    const summary = during.map((d) => `${d.what} ${d.reply.status} retry-after=${d.reply.headers.get('retry-after')}`).join('; ');
    console.log(
      `postgres-down: sent ${report.sent}, acked ${report.acked.length} (${ackedDuring} during the outage), statuses ${JSON.stringify(report.statuses)}; ` +
        `during the outage: ${summary}; uncached capture ${coldCapture.status} retry-after=${coldCapture.headers.get('retry-after')}; ` +
        `usage after ${used}; listed ${listed.length}, missing ${counted.missing.length}, duplicated ${counted.duplicated.length}`,
    );
    expect(Object.keys(report.statuses)).toEqual(['200']);
    expect(report.failed).toBe(0);
    // As many as before the outage (at 80 %): the load as this machine gets it through, ≤ RATE.
    expect(ackedDuring).toBeGreaterThan(rateBefore * (OUTAGE_MS / 1000) * 0.8);
    for (const d of during) {
      expect(`${d.what} ${d.reply.status}`).toBe(`${d.what} 503`);
      expect(d.reply.headers.get('content-type')).toContain('application/json');
      expect(d.reply.headers.get('retry-after')).not.toBeNull();
      expect((d.reply.body as { code?: string }).code).toBe('unavailable');
    }
    expect(coldCapture.status).toBe(503);
    expect(coldCapture.headers.get('retry-after')).not.toBeNull();
    // That one answer is the only refusal of the run, counted under its reason.
    expect(Object.entries(refusals).filter(([, n]) => n !== 0)).toEqual([['state_store_unreachable', 1]]);
    expect(used).toBe(report.acked.length);
    expect(counted.missing).toEqual([]);
    expect(counted.duplicated).toEqual([]);
    expect(listed.length).toBe(report.acked.length);
  }, 120_000);
});
