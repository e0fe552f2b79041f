import { describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer, RESTART_TEST_MS } from '../support/server';
import { describeBackends } from '../support/suite';

// A tiny free quota so a test can use it up; a flush interval short enough to watch it move.
const PLANS = JSON.stringify({ free: { limit: 5 }, pro: { limit: 8 } });
const FLUSH_MS = 50;
const ENV = { PLANS, USAGE_FLUSH_MS: String(FLUSH_MS) };

function nextMonthUtc(now = Date.now()): number {
  const d = new Date(now);
  return Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + 1, 1);
}

async function newEndpoint(base: string, key: string): Promise<{ slug: string }> {
  const r = await call(base, 'POST', '/api/endpoints', { token: key, body: { name: 'quota' } });
  if (r.status !== 201) throw new Error(`endpoint: ${r.status} ${r.text}`);
  return r.body;
}

const capture = (base: string, slug: string, body: string) => fetch(`${base}/w/${slug}`, { method: 'POST', body });
const usageOf = async (base: string, token: string) => (await call(base, 'GET', '/api/usage', { token })).body;
/** Waits until the flushed count reaches `used` (the API reads what nodes flushed). */
const usedReaches = (base: string, token: string, used: number) =>
  eventually(async () => {
    const u = await usageOf(base, token);
    return u.used === used ? u : null;
  });

describeBackends(
  'usage and quota',
  (h) => {
    test('a new account has used nothing of the free quota; the period ends at the next UTC month', async () => {
      const a = await newAccount(h.url);
      const r = await call(h.url, 'GET', '/api/usage', { token: a.key });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ used: 0, limit: 5, remaining: 5, plan: 'free', periodEnd: nextMonthUtc(), retentionDays: 7 });
      // A browser session reads the same.
      expect((await call(h.url, 'GET', '/api/usage', { token: a.session })).body).toEqual(r.body);
    });

    test('usage needs a credential', async () => {
      const r = await call(h.url, 'GET', '/api/usage');
      expect(r.status).toBe(401);
      expect(typeof r.body.error).toBe('string');
    });

    test('captures move used and remaining', async () => {
      const a = await newAccount(h.url);
      const ep = await newEndpoint(h.url, a.key);
      expect((await capture(h.url, ep.slug, 'one')).status).toBe(200);
      expect((await capture(h.url, ep.slug, 'two')).status).toBe(200);
      const u = await usedReaches(h.url, a.key, 2);
      expect(u).toMatchObject({ used: 2, limit: 5, remaining: 3, plan: 'free' });
    });

    test('over quota: 429 with Retry-After and a JSON error, nothing stored; another account is unaffected', async () => {
      const a = await newAccount(h.url);
      const b = await newAccount(h.url);
      const ep = await newEndpoint(h.url, a.key);
      const other = await newEndpoint(h.url, a.key);
      for (let i = 0; i < 5; i++) expect((await capture(h.url, i % 2 ? other.slug : ep.slug, `ok-${i}`)).status).toBe(200);

      const refused = await capture(h.url, ep.slug, 'over-quota');
      expect(refused.status).toBe(429);
      expect(refused.headers.get('content-type')).toContain('application/json');
      expect(refused.headers.get('x-request-id')).toBeNull();
      const retryAfter = Number(refused.headers.get('retry-after'));
      const expected = (nextMonthUtc() - Date.now()) / 1000;
      expect(Number.isInteger(retryAfter)).toBe(true);
      expect(Math.abs(retryAfter - expected)).toBeLessThan(5);
      const err = (await refused.json()) as { error: string; code: string };
      expect(err.code).toBe('quota_exceeded');
      expect(err.error).toContain('quota');
      // The quota is the account's, not the endpoint's.
      expect((await capture(h.url, other.slug, 'over-quota')).status).toBe(429);

      // Still refused once the counts have gone through Postgres and back.
      const u = await usedReaches(h.url, a.key, 5);
      expect(u).toMatchObject({ used: 5, limit: 5, remaining: 0 });
      await Bun.sleep(FLUSH_MS * 4);
      expect((await capture(h.url, ep.slug, 'over-quota')).status).toBe(429);

      // Nothing of the refused captures was stored or counted.
      await Bun.sleep(300);
      const listed = [
        ...(await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body,
        ...(await call(h.url, 'GET', `/api/endpoints/${other.slug}/requests`, { token: a.key })).body,
      ];
      expect(listed.length).toBe(5);
      expect(listed.map((r: { body: string }) => r.body)).not.toContain('over-quota');
      expect((await usageOf(h.url, a.key)).used).toBe(5);

      // Another account captures as before.
      const epB = await newEndpoint(h.url, b.key);
      expect((await capture(h.url, epB.slug, 'b')).status).toBe(200);
      await usedReaches(h.url, b.key, 1);
    });
  },
  ENV,
);

/** A second node (or a restarted one) on the same state as a first. */
for (const backend of BACKENDS) {
  describe(`usage across restarts and nodes [${backend}]`, () => {
    const cleanups = cleanupAfterAll();
    const start = async (env: Record<string, string>, dataDir?: string): Promise<TestServer> => {
      const s = await startServer({ env, dataDir });
      cleanups.push(() => stopServer(s));
      return s;
    };

    test('counting is batched, not per capture, and a clean shutdown writes what was counted', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      // Flushes are a minute apart, so only the shutdown can have written these counts.
      const first = await startServer({ env: { ...p.env, PLANS, USAGE_FLUSH_MS: '60000' } });
      cleanups.push(() => stopServer(first));
      const a = await newAccount(first.url);
      const ep = await newEndpoint(first.url, a.key);
      for (let i = 0; i < 3; i++) expect((await capture(first.url, ep.slug, `c${i}`)).status).toBe(200);
      await Bun.sleep(200);
      expect((await usageOf(first.url, a.key)).used).toBe(0);
      await stopServer(first, { keepData: true });

      const second = await start({ ...p.env, ...ENV }, first.dataDir);
      expect(await usageOf(second.url, a.key)).toMatchObject({ used: 3, remaining: 2 });
      // The restarted node learns the total at its first flush, and refuses at the quota.
      expect((await capture(second.url, ep.slug, 'c3')).status).toBe(200);
      await usedReaches(second.url, a.key, 4);
      expect((await capture(second.url, ep.slug, 'c4')).status).toBe(200);
      expect((await capture(second.url, ep.slug, 'c5')).status).toBe(429);
    }, RESTART_TEST_MS);

    if (backend !== 'server') return;

    test('nodes sharing Postgres share one quota', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const n1 = await start({ ...p.env, ...ENV });
      const n2 = await start({ ...p.env, ...ENV });
      const a = await newAccount(n1.url);
      const ep = await newEndpoint(n1.url, a.key);
      for (let i = 0; i < 3; i++) expect((await capture(n1.url, ep.slug, `n1-${i}`)).status).toBe(200);
      await usedReaches(n2.url, a.key, 3);
      expect((await capture(n2.url, ep.slug, 'n2-0')).status).toBe(200);
      await usedReaches(n1.url, a.key, 4);
      expect((await capture(n2.url, ep.slug, 'n2-1')).status).toBe(200);
      // n2 counted the fifth itself; n1 sees it after n2's flush and its own next read.
      expect((await capture(n2.url, ep.slug, 'n2-2')).status).toBe(429);
      await usedReaches(n1.url, a.key, 5);
      await Bun.sleep(FLUSH_MS * 4);
      expect((await capture(n1.url, ep.slug, 'n1-late')).status).toBe(429);
      expect((await usageOf(n2.url, a.key)).used).toBe(5);
    });

    test("the quota follows the account's plan column; an unknown plan falls back to free", async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const s = await start({ ...p.env, ...ENV });
      const sql = postgres(p.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
      cleanups.push(() => sql.end());
      const a = await newAccount(s.url);
      const ep = await newEndpoint(s.url, a.key);
      for (let i = 0; i < 5; i++) expect((await capture(s.url, ep.slug, `f${i}`)).status).toBe(200);
      expect((await capture(s.url, ep.slug, 'refused')).status).toBe(429);

      await sql`UPDATE users SET plan = 'pro' WHERE id = ${a.userId}`;
      expect(await usageOf(s.url, a.key)).toMatchObject({ plan: 'pro', limit: 8 });
      // The capture path picks the plan up at its next read.
      await Bun.sleep(FLUSH_MS * 4);
      for (let i = 0; i < 3; i++) expect((await capture(s.url, ep.slug, `p${i}`)).status).toBe(200);
      expect((await capture(s.url, ep.slug, 'refused')).status).toBe(429);
      expect(await usedReaches(s.url, a.key, 8)).toMatchObject({ used: 8, limit: 8, remaining: 0, plan: 'pro' });

      await sql`UPDATE users SET plan = 'retired-plan' WHERE id = ${a.userId}`;
      expect(await usageOf(s.url, a.key)).toMatchObject({ plan: 'free', limit: 5, remaining: 0, used: 8 });
    });
  });
}
