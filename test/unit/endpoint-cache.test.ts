/**
 * The receiver's endpoint cache (engine/endpoint-cache.ts) on the real state store (PGlite, and Postgres
 * when the server backend is under test) through the real loader: bounded with least-recently-used
 * eviction, evicted slugs reload, invalidation wins over a load in flight, concurrent lookups of
 * one slug are one load, and cold slugs arriving together are one query.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { eq } from 'drizzle-orm';
import { EndpointCache, type EndpointSnapshot } from '../../src/engine/endpoint-cache';
import { loadEndpointSnapshots } from '../../src/engine/endpoint-snapshots';
import { insertUser } from '../../src/stores/state/accounts';
import { openPglite, openPostgres, type StateDb } from '../../src/stores/state/db';
import { endpoints } from '../../src/stores/state/schema';
import { BACKENDS, provision, type BackendEnv } from '../support/backends';
import { seedBase, seedEndpoints, seedSlug } from '../support/seed-endpoints';
import { seedPglite } from '../support/server';

const SEEDED = 2_000;

for (const backend of BACKENDS) {
  describe(`endpoint cache [${backend}]`, () => {
    let dir = '';
    let state: StateDb | null = null;
    let provisioned: BackendEnv | null = null;
    const base = seedBase();
    const slug = (i: number) => seedSlug(base, i);
    const db = () => {
      if (!state) throw new Error('not set up');
      return state.db;
    };
    const cache = (opts: { maxEntries?: number; maxBatch?: number } = {}) => new EndpointCache({ ...opts, loadMany: (slugs) => loadEndpointSnapshots(db(), slugs) });
    /** Whether the cache answers `s` without a load (a warm hit is synchronous). */
    const warm = (c: EndpointCache, s: string) => !(c.get(s) instanceof Promise);

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'hookcap-endpoint-cache-'));
      provisioned = await provision(backend);
      const url = provisioned.env.DATABASE_URL;
      if (!url) await seedPglite(dir);
      state = url ? await openPostgres(url) : await openPglite(dir);
      await insertUser(db(), { id: 'usr_cache', email: 'cache@example.com', createdAt: Date.now() });
      await seedEndpoints(db(), { userId: 'usr_cache', base, to: SEEDED });
    });
    afterAll(async () => {
      await state?.close();
      await provisioned?.cleanup();
      rmSync(dir, { recursive: true, force: true });
    });

    test('bounded: holds at most its size, evicts, and reloads an evicted slug with the right snapshot', async () => {
      const c = cache({ maxEntries: 50 });
      for (let i = 0; i < 200; i++) expect((await c.get(slug(i)))?.slug).toBe(slug(i));
      const s = c.stats();
      expect(s.entries).toBe(50);
      expect(s.evictions).toBe(150);
      expect(s.bytes).toBeGreaterThan(50 * 300);
      expect(warm(c, slug(0))).toBe(false);
      const again = await c.get(slug(0));
      expect(again?.id).toBe(`ep_seed_${base}`);
      expect(again?.userId).toBe('usr_cache');
      expect(warm(c, slug(0))).toBe(true);
      expect(c.stats().entries).toBe(50);
    });

    test('least recently used goes first: a slug hit between cold loads stays, where oldest-created would drop it', async () => {
      const c = cache({ maxEntries: 10 });
      await c.get(slug(0));
      for (let i = 1; i < 100; i++) {
        await c.get(slug(i));
        expect(warm(c, slug(0))).toBe(true);
      }
      // Left alone, it ages out like any other.
      for (let i = 100; i < 130; i++) await c.get(slug(i));
      expect(warm(c, slug(0))).toBe(false);
    });

    test('memory estimate follows the entries and falls back when they are invalidated', async () => {
      const c = cache();
      for (let i = 0; i < 20; i++) await c.get(slug(i));
      const full = c.stats().bytes;
      for (let i = 0; i < 20; i++) c.invalidate(slug(i));
      expect(c.stats()).toMatchObject({ entries: 0, bytes: 0 });
      expect(full).toBeGreaterThan(0);
    });

    test('invalidation drops the snapshot; the next capture reads the change', async () => {
      const c = cache();
      const s = slug(500);
      expect((await c.get(s))?.mockResponse).toBeNull();
      const mock = { status: 202, body: 'changed', headers: {} };
      await db().update(endpoints).set({ mockResponse: mock }).where(eq(endpoints.slug, s));
      // Still the cached snapshot until someone says it changed.
      expect((c.get(s) as EndpointSnapshot).mockResponse).toBeNull();
      c.invalidate(s);
      expect((await c.get(s))?.mockResponse).toEqual(mock);
    });

    test('an invalidation during a load wins: the stale result is not kept', async () => {
      const c = cache();
      const s = slug(501);
      const first = c.get(s);
      expect(first).toBeInstanceOf(Promise);
      c.invalidate(s);
      await first;
      expect(warm(c, s)).toBe(false);
      expect((await c.get(s))?.slug).toBe(s);
    });

    test('lookups of one cold slug made together are one load', async () => {
      const c = cache();
      const got = await Promise.all(Array.from({ length: 100 }, () => c.get(slug(700))));
      expect(new Set(got.map((g) => g?.id))).toEqual(new Set([`ep_seed_${base + 700}`]));
      expect(c.stats()).toMatchObject({ queries: 1, slugsLoaded: 1 });
    });

    test(`${SEEDED} distinct cold slugs (and as many unknown ones) at once: a handful of queries, every answer right`, async () => {
      const c = cache({ maxBatch: 500 });
      const unknown = (i: number) => seedSlug(base + SEEDED, i);
      const got = await Promise.all(Array.from({ length: SEEDED * 2 }, (_, i) => c.get(i % 2 ? unknown(i >> 1) : slug(i >> 1))));
      for (let i = 0; i < got.length; i++) {
        if (i % 2) expect(got[i]).toBeNull();
        else expect(got[i]?.slug).toBe(slug(i >> 1));
      }
      const s = c.stats();
      expect(s.slugsLoaded).toBe(SEEDED * 2);
      expect(s.queries).toBe(Math.ceil((SEEDED * 2) / 500));
      // The unknown ones are remembered, so they do not go back at once.
      expect(c.get(unknown(0))).toBeNull();
      expect(c.missingStats().entries).toBe(SEEDED);
    });

    test('a failed load fails the lookups waiting on it and leaves nothing cached', async () => {
      // A state store that is gone: a PGlite opened and closed again.
      await seedPglite(join(dir, 'gone'));
      const gone = await openPglite(join(dir, 'gone'));
      await gone.close();
      let from = gone.db;
      const c = new EndpointCache({ loadMany: (slugs) => loadEndpointSnapshots(from, slugs) });
      await expect(Promise.resolve(c.get(slug(900)))).rejects.toThrow();
      expect(c.stats().entries).toBe(0);
      from = db();
      expect((await c.get(slug(900)))?.slug).toBe(slug(900));
    });
  });
}
