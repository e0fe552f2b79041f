/**
 * The receiver's endpoint cache on the running service: bounded by ENDPOINT_CACHE_MAX (its size
 * and memory in /healthz), a flood of captures to 2,000 distinct cold slugs costs far fewer
 * state-store queries than captures, evicted endpoints reload and still capture, and a config
 * change still reaches the receiver at once.
 *
 * Queries are counted by the cache itself (/healthz endpointCache.queries, one per query sent) and,
 * on Postgres, independently by the server: pg_stat_database's committed transactions for the
 * test's database (every statement outside a transaction is one).
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import type { Health } from '../../src/health';
import { openPglite, openPostgres } from '../../src/stores/state/db';
import { BACKENDS, PG_ADMIN_URL, provision, type BackendEnv } from '../support/backends';
import { call, eventually, newAccount } from '../support/client';
import { seedBase, seedEndpoints, seedSlug } from '../support/seed-endpoints';
import { startServer, stopServer, type TestServer } from '../support/server';

const SEEDED = 2_000;
const CACHE_MAX = 100;
const CONCURRENCY = 64;

async function health(base: string): Promise<Health> {
  return (await call<Health>(base, 'GET', '/healthz')).body;
}

/** Sends one capture to each slug, `CONCURRENCY` at a time; the statuses in slug order. */
async function flood(base: string, slugs: string[]): Promise<number[]> {
  const statuses = new Array<number>(slugs.length);
  let next = 0;
  const worker = async () => {
    for (let i = next++; i < slugs.length; i = next++) {
      const r = await fetch(`${base}/w/${slugs[i]}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: `{"n":${i}}` });
      await r.arrayBuffer();
      statuses[i] = r.status;
    }
  };
  await Promise.all(Array.from({ length: CONCURRENCY }, worker));
  return statuses;
}

for (const backend of BACKENDS) {
  describe(`endpoint cache on the receiver [${backend}]`, () => {
    let provisioned: BackendEnv | undefined;
    let server: TestServer | undefined;
    let key = '';
    const base = seedBase();
    const slug = (i: number) => seedSlug(base, i);
    const url = () => {
      if (!server) throw new Error('server not started');
      return server.url;
    };
    /** Committed transactions in the test's Postgres database so far (null on the embedded backend). */
    const pgCommits = async (): Promise<number | null> => {
      const dbUrl = provisioned?.env.DATABASE_URL;
      if (!dbUrl) return null;
      const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
      try {
        const rows = await admin`SELECT xact_commit::bigint AS n FROM pg_stat_database WHERE datname = ${new URL(dbUrl).pathname.slice(1)}`;
        return Number(rows[0]?.n ?? 0);
      } finally {
        await admin.end();
      }
    };

    // Two server starts and a seed: more than one start's allowance (55 s) on a loaded machine.
    beforeAll(async () => {
      provisioned = await provision(backend);
      const env = { ...provisioned.env, ENDPOINT_CACHE_MAX: String(CACHE_MAX), PLANS: '{"free":{"limit":1000000}}' };
      const first = await startServer({ env });
      const account = await newAccount(first.url);
      key = account.key;
      // Seed with the service stopped: the embedded state store is one process's at a time.
      await stopServer(first, { keepData: true });
      const dbUrl = provisioned.env.DATABASE_URL;
      const state = dbUrl ? await openPostgres(dbUrl) : await openPglite(first.dataDir);
      try {
        await seedEndpoints(state.db, { userId: account.userId, base, to: SEEDED });
      } finally {
        await state.close();
      }
      server = await startServer({ env, dataDir: first.dataDir });
    }, 180_000);
    afterAll(async () => {
      if (server) await stopServer(server);
      await provisioned?.cleanup();
    });

    test(`a flood of captures to ${SEEDED} distinct cold slugs: all acknowledged, far fewer state-store queries than captures, the cache within its bound`, async () => {
      const before = (await health(url())).endpointCache;
      expect(before).toMatchObject({ entries: 0, max: CACHE_MAX });
      const commitsBefore = await pgCommits();
      const statuses = await flood(url(), Array.from({ length: SEEDED }, (_, i) => slug(i)));
      expect(statuses.filter((s) => s === 200).length).toBe(SEEDED);
      const after = (await health(url())).endpointCache;
      if (!before || !after) throw new Error('no endpointCache in /healthz');
      const queries = after.queries - before.queries;
      console.log(`[${backend}] ${SEEDED} cold captures: ${queries} load queries for ${after.slugsLoaded - before.slugsLoaded} slugs`);
      expect(after.slugsLoaded - before.slugsLoaded).toBe(SEEDED);
      expect(queries).toBeGreaterThan(0);
      expect(queries).toBeLessThanOrEqual(SEEDED / 4);
      expect(after.entries).toBeLessThanOrEqual(CACHE_MAX);
      expect(after.evictions - before.evictions).toBeGreaterThanOrEqual(SEEDED - CACHE_MAX);
      expect(after.bytes).toBeGreaterThan(0);
      if (commitsBefore !== null) {
        // Postgres publishes a backend's counts when it has been idle a while (at most ~10 s).
        await Bun.sleep(11_500);
        const commits = ((await pgCommits()) ?? 0) - commitsBefore;
        console.log(`[${backend}] Postgres committed ${commits} transactions during and after the flood`);
        expect(commits).toBeLessThan(SEEDED / 4);
      }
    }, 120_000);

    test('an evicted endpoint is loaded again and captures; both its captures are stored', async () => {
      const s = slug(0);
      const stats = (await health(url())).endpointCache;
      // Slug 0 went in first and was never hit again: it has been evicted.
      expect(stats?.evictions ?? 0).toBeGreaterThan(0);
      const loadedBefore = stats?.slugsLoaded ?? 0;
      const r = await fetch(`${url()}/w/${s}`, { method: 'POST', body: 'again' });
      expect(r.status).toBe(200);
      expect((await health(url())).endpointCache?.slugsLoaded).toBe(loadedBefore + 1);
      const list = await eventually(async () => {
        const got = await call(url(), 'GET', `/api/endpoints/${s}/requests`, { token: key });
        return Array.isArray(got.body) && got.body.length === 2 ? got.body : null;
      });
      expect(list.map((c) => c.body).sort()).toEqual(['again', '{"n":0}']);
    });

    test('a config change reaches the receiver at once, for a cached and for an evicted endpoint', async () => {
      const cached = slug(SEEDED - 1);
      const evicted = slug(1);
      for (const s of [cached, evicted]) {
        const mock = { status: 202, body: `mocked ${s}`, headers: {} };
        expect((await call(url(), 'PATCH', `/api/endpoints/${s}`, { token: key, body: { mockResponse: mock } })).status).toBe(200);
        const r = await fetch(`${url()}/w/${s}`, { method: 'POST', body: 'x' });
        expect(r.status).toBe(202);
        expect(await r.text()).toBe(`mocked ${s}`);
      }
    });
  });
}
