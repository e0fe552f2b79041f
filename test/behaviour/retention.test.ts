/**
 * Retention and pinning on both backends, with the clock moved forward by
 * RETENTION_CLOCK_OFFSET_MS between restarts of a real server: a free account's captures go after
 * 7 days, a pro account's stay until 30 (also when free endpoints are the many, whose cutoff then
 * applies to every endpoint not listed), pinned ones stay; with ClickHouse a week with nothing
 * left to keep goes as a whole partition (no mutation), otherwise by mutation.
 */
import { describe, expect, test } from 'bun:test';
import { createClient } from '@clickhouse/client';
import { eq } from 'drizzle-orm';
import { BACKENDS, CLICKHOUSE_URL, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount, type ReceiverAnswer } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';
import { openPglite, openPostgres } from '../../src/stores/state/db';
import { users } from '../../src/stores/state/schema';

const DAY = 86_400_000;
const PIN_LIMIT = 2;

interface Rec {
  id: string;
  pinned?: boolean;
}

async function capture(url: string, slug: string, body: string): Promise<string> {
  const r = await fetch(`${url}/w/${slug}`, { method: 'POST', body });
  expect(r.status).toBe(200);
  return ((await r.json()) as ReceiverAnswer).id ?? '';
}

const listed = async (url: string, key: string, slug: string): Promise<Rec[]> =>
  (await call<Rec[]>(url, 'GET', `/api/endpoints/${slug}/requests?limit=100`, { token: key })).body;

for (const backend of BACKENDS) {
  describe(`retention and pinning [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    test('expired captures go by plan, pinned ones stay; pins are capped, marked and listable', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const env = { ...p.env, PIN_LIMIT: String(PIN_LIMIT), RETENTION_BATCH_ROWS: '2', RETENTION_INTERVAL_MS: '3600000' };
      const start = (offsetDays: number, dataDir?: string, port?: number): Promise<TestServer> =>
        startServer({ env: { ...env, RETENTION_CLOCK_OFFSET_MS: String(offsetDays * DAY) }, dataDir, port });

      const s1 = await start(0);
      const free = await newAccount(s1.url);
      const pro = await newAccount(s1.url);
      const fep = (await call(s1.url, 'POST', '/api/endpoints', { token: free.key, body: { name: 'free' } })).body;
      const pep = (await call(s1.url, 'POST', '/api/endpoints', { token: pro.key, body: { name: 'pro' } })).body;
      // Free endpoints outnumber pro ones, as on a hosted service: the sweep then lists the pro
      // endpoint (a longer retention, kept out of the removal for the rest by name), not the free ones.
      const fep2 = (await call(s1.url, 'POST', '/api/endpoints', { token: free.key, body: { name: 'free-2' } })).body;
      for (let i = 0; i < 2; i++) await capture(s1.url, fep2.slug, `free2-${i}`);
      const freeIds: string[] = [];
      const proIds: string[] = [];
      for (let i = 0; i < 5; i++) freeIds.push(await capture(s1.url, fep.slug, `free-${i}`));
      for (let i = 0; i < 3; i++) proIds.push(await capture(s1.url, pep.slug, `pro-${i}`));
      await eventually(async () => (await listed(s1.url, free.key, fep.slug)).length === 5);
      const [keep, second, third] = freeIds;
      if (!keep || !second || !third) throw new Error('captures missing');

      // Pin: 200 with the record marked; again: no change; the cap: 409 pin_limit; someone else: 404.
      const pinned = await call<Rec>(s1.url, 'POST', `/api/requests/${keep}/pin`, { token: free.key });
      expect(pinned.status).toBe(200);
      expect(pinned.body).toMatchObject({ id: keep, pinned: true });
      expect((await call(s1.url, 'POST', `/api/requests/${keep}/pin`, { token: free.key })).status).toBe(200);
      expect((await call(s1.url, 'POST', `/api/requests/${second}/pin`, { token: free.key })).status).toBe(200);
      const over = await call<{ code: string; error: string; limit: number }>(s1.url, 'POST', `/api/requests/${third}/pin`, { token: free.key });
      expect(over.status).toBe(409);
      expect(over.body.code).toBe('pin_limit');
      expect(over.body.limit).toBe(PIN_LIMIT);
      expect((await call(s1.url, 'POST', `/api/requests/${keep}/pin`, { token: pro.key })).status).toBe(404);
      expect((await call(s1.url, 'DELETE', `/api/requests/${keep}/pin`, { token: pro.key })).status).toBe(404);
      // Unpin frees a place; unpinning again is still 204.
      expect((await call(s1.url, 'DELETE', `/api/requests/${second}/pin`, { token: free.key })).status).toBe(204);
      expect((await call(s1.url, 'DELETE', `/api/requests/${second}/pin`, { token: free.key })).status).toBe(204);
      expect((await call<Rec>(s1.url, 'GET', `/api/requests/${keep}`, { token: free.key })).body.pinned).toBe(true);
      expect((await call<Rec>(s1.url, 'GET', `/api/requests/${second}`, { token: free.key })).body.pinned).toBeUndefined();
      const marked = await listed(s1.url, free.key, fep.slug);
      expect(marked.filter((r) => r.pinned).map((r) => r.id)).toEqual([keep]);
      const onlyPinned = await call<Rec[]>(s1.url, 'GET', '/api/search/requests?pinned=true', { token: free.key });
      expect(onlyPinned.status).toBe(200);
      expect(onlyPinned.body.map((r) => r.id)).toEqual([keep]);
      expect((await call<{ count: number }>(s1.url, 'GET', `/api/search/requests/count?pinned=true&slug=${fep.slug}`, { token: free.key })).body.count).toBe(1);
      expect((await call<Rec[]>(s1.url, 'GET', '/api/search/requests?pinned=true', { token: pro.key })).body).toEqual([]);
      const notBoolean = { error: 'pinned: must be true or false, got "maybe"', code: 'validation' };
      expect(await call(s1.url, 'GET', '/api/search/requests?pinned=maybe', { token: free.key })).toMatchObject({ status: 400, body: notBoolean });
      // The endpoint's own list takes the same filter.
      const listPinned = await call<Rec[]>(s1.url, 'GET', `/api/endpoints/${fep.slug}/requests?pinned=true`, { token: free.key });
      expect(listPinned.status).toBe(200);
      expect(listPinned.body.map((r) => [r.id, r.pinned])).toEqual([[keep, true]]);
      expect((await call<Rec[]>(s1.url, 'GET', `/api/endpoints/${pep.slug}/requests?pinned=true`, { token: pro.key })).body).toEqual([]);
      expect((await call<Rec[]>(s1.url, 'GET', `/api/endpoints/${fep.slug}/requests?pinned=false`, { token: free.key })).body).toHaveLength(5);
      // The same words as search's (TypeBox's were "should be one of: 'string', 'string'"), before the slug is looked up.
      expect(await call(s1.url, 'GET', `/api/endpoints/${fep.slug}/requests?pinned=maybe`, { token: free.key })).toMatchObject({ status: 400, body: notBoolean });
      expect(await call(s1.url, 'GET', '/api/endpoints/aaaaaaaaaaaa/requests?pinned=maybe', { token: free.key })).toMatchObject({ status: 400, body: notBoolean });
      expect((await call<Rec[]>(s1.url, 'GET', `/api/endpoints/${fep.slug}/requests?pinned=`, { token: free.key })).body).toHaveLength(5);
      expect((await call(s1.url, 'GET', '/api/usage', { token: free.key })).body).toMatchObject({ plan: 'free', retentionDays: 7 });
      await stopServer(s1, { keepData: true });

      // The pro account's plan is set in the state database while no server holds it.
      const state = p.env.DATABASE_URL ? await openPostgres(p.env.DATABASE_URL, 1) : await openPglite(s1.dataDir);
      await state.db.update(users).set({ plan: 'pro' }).where(eq(users.id, pro.userId));
      await state.close();

      // 8 days later: past free's 7 days, within pro's 30.
      const s2 = await start(8, s1.dataDir, s1.port);
      expect((await call(s2.url, 'GET', '/api/usage', { token: pro.key })).body).toMatchObject({ plan: 'pro', retentionDays: 30 });
      const left = await eventually(async () => {
        const rows = await listed(s2.url, free.key, fep.slug);
        return rows.length === 1 ? rows : null;
      }, 20_000);
      expect(left).toEqual([expect.objectContaining({ id: keep, pinned: true })]);
      expect((await listed(s2.url, pro.key, pep.slug)).map((r) => r.id).sort()).toEqual([...proIds].sort());
      await eventually(async () => (await listed(s2.url, free.key, fep2.slug)).length === 0, 20_000);
      // Unpinned now, it goes with the rest at the next sweep.
      expect((await call(s2.url, 'DELETE', `/api/requests/${keep}/pin`, { token: free.key })).status).toBe(204);
      await stopServer(s2, { keepData: true });

      const ch = backend === 'server' ? createClient({ url: CLICKHOUSE_URL }) : null;
      const database = p.env.CLICKHOUSE_URL ? new URL(p.env.CLICKHOUSE_URL).pathname.slice(1) : '';
      const mutations = async () => {
        if (!ch) return 0;
        const r = await ch.query({ query: `SELECT count() AS n FROM system.mutations WHERE database = '${database}'`, format: 'JSONEachRow' });
        return Number(((await r.json()) as { n: string }[])[0]?.n ?? 0);
      };
      const before = await mutations();
      if (ch) expect(before).toBeGreaterThan(0); // the 8-day sweep had to use a mutation (a pin, a pro account in the week)

      // 100 days later: everything has expired and nothing is pinned.
      const s3 = await start(100, s1.dataDir, s1.port);
      cleanups.push(() => stopServer(s3));
      await eventually(async () => (await listed(s3.url, free.key, fep.slug)).length === 0 && (await listed(s3.url, pro.key, pep.slug)).length === 0, 20_000);
      // ClickHouse: whole weekly partitions dropped, no further mutation.
      expect(await mutations()).toBe(before);
      await ch?.close();
    });
  });
}
