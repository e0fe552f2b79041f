import { expect, test } from 'bun:test';
import { EndpointCache, type EndpointSnapshot } from '../../src/engine/endpoint-cache';

const snapshot = (slug: string, n: number): EndpointSnapshot => ({
  id: `ep_${n}`,
  slug,
  userId: null,
  ownerKeyId: null,
  mockResponse: null,
  notificationUrl: null,
  signing: null,
  notificationKey: null,
  expiresAt: null,
});

test('a failed re-read keeps serving the snapshot it had (the state store is down)', async () => {
  let down = false;
  let loads = 0;
  const endpointCache = new EndpointCache({
    maxAgeMs: 20,
    loadMany: async (slugs) => {
      loads++;
      if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return new Map(slugs.map((slug) => [slug, snapshot(slug, loads)]));
    },
  });
  expect(await endpointCache.get('abc')).toEqual(snapshot('abc', 1));
  down = true;
  await Bun.sleep(30);
  // Expired: the old snapshot answers at once while the re-read runs; the re-read fails, and the
  // snapshot is served on without retrying every call.
  expect(endpointCache.get('abc')).toEqual(snapshot('abc', 1));
  await Bun.sleep(10);
  expect(loads).toBe(2);
  expect(endpointCache.get('abc')).toEqual(snapshot('abc', 1));
  await Bun.sleep(10);
  expect(loads).toBe(2);
  // An unknown slug still fails: there is nothing to serve.
  expect(Promise.resolve(endpointCache.get('other'))).rejects.toThrow('ECONNREFUSED');
});

/** A cache whose every load returns the next version of each snapshot (ep_1, ep_2, …). */
function versionedCache(): EndpointCache {
  let n = 0;
  return new EndpointCache({
    loadMany: async (slugs) => {
      n++;
      return new Map(slugs.map((slug) => [slug, snapshot(slug, n)]));
    },
  });
}

test('revalidateAll makes every snapshot re-read on its next use', async () => {
  const endpointCache = versionedCache();
  expect((await endpointCache.get('abc'))?.id).toBe('ep_1');
  expect((await endpointCache.get('abc'))?.id).toBe('ep_1');
  await Bun.sleep(2);
  endpointCache.revalidateAll();
  await Bun.sleep(2);
  expect((await endpointCache.get('abc'))?.id).toBe('ep_2');
  expect((await endpointCache.get('abc'))?.id).toBe('ep_2');
});

test('an expired snapshot answers at once while it is re-read in the background; the next use gets the new one', async () => {
  let n = 0;
  let release: (() => void) | null = null;
  const endpointCache = new EndpointCache({
    maxAgeMs: 20,
    loadMany: async (slugs) => {
      n++;
      // The re-read is held until the test lets it go, to show nobody waits for it.
      if (n > 1) await new Promise<void>((r) => (release = r));
      return new Map(slugs.map((slug) => [slug, snapshot(slug, n)]));
    },
  });
  expect((await endpointCache.get('abc'))?.id).toBe('ep_1');
  await Bun.sleep(30);
  // Every use during the re-read is answered synchronously with the snapshot held.
  for (let i = 0; i < 5; i++) expect(endpointCache.get('abc')).toEqual(snapshot('abc', 1));
  await Bun.sleep(5);
  expect(n).toBe(2); // one re-read for all of them
  expect(release).not.toBeNull();
  (release as unknown as () => void)();
  await Bun.sleep(5);
  expect(endpointCache.get('abc')).toEqual(snapshot('abc', 2));
});

test('after revalidateAll the re-read is waited for, not answered from the old snapshot', async () => {
  const endpointCache = versionedCache();
  expect((await endpointCache.get('abc'))?.id).toBe('ep_1');
  await Bun.sleep(2);
  endpointCache.revalidateAll();
  const next = endpointCache.get('abc');
  expect(next).toBeInstanceOf(Promise);
  expect((await next)?.id).toBe('ep_2');
});

test('snapshots loaded together go stale at different ages, between 80% and all of the max age', async () => {
  let now = 1_000_000;
  const reread = new Set<string>();
  let first = true;
  const endpointCache = new EndpointCache({
    maxAgeMs: 1_000,
    clock: { now: () => now },
    loadMany: async (slugs) => {
      if (!first) for (const slug of slugs) reread.add(slug);
      return new Map(slugs.map((slug) => [slug, snapshot(slug, 1)]));
    },
  });
  const slugs = Array.from({ length: 200 }, (_, i) => `slug${i}`);
  await Promise.all(slugs.map((slug) => endpointCache.get(slug)));
  first = false;
  const touchAll = async () => {
    for (const slug of slugs) endpointCache.get(slug);
    await Bun.sleep(5); // the background re-reads' batch
  };
  now += 799;
  await touchAll();
  expect(reread.size).toBe(0);
  now += 101; // 900 ms: some are stale, not all
  await touchAll();
  expect(reread.size).toBeGreaterThan(0);
  expect(reread.size).toBeLessThan(slugs.length);
  now += 101; // past the max age: every one has been re-read
  await touchAll();
  expect(reread.size).toBe(slugs.length);
});
