import { expect, test } from 'bun:test';
import { SlugActors, type EndpointSnapshot } from '../../src/engine/actors';

const snapshot = (slug: string, n: number): EndpointSnapshot => ({
  id: `ep_${n}`,
  slug,
  userId: null,
  ownerKeyId: null,
  mockResponse: null,
  notificationUrl: null,
  signing: null,
  expiresAt: null,
});

test('a failed re-read keeps serving the snapshot it had (the state store is down)', async () => {
  let down = false;
  let loads = 0;
  const actors = new SlugActors({
    maxAgeMs: 20,
    loadMany: async (slugs) => {
      loads++;
      if (down) throw Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
      return new Map(slugs.map((slug) => [slug, snapshot(slug, loads)]));
    },
  });
  expect(await actors.get('abc')).toEqual(snapshot('abc', 1));
  down = true;
  await Bun.sleep(30);
  // Expired: re-read fails, the old snapshot answers, and is served without retrying every call.
  expect(await actors.get('abc')).toEqual(snapshot('abc', 1));
  expect(actors.get('abc')).toEqual(snapshot('abc', 1));
  expect(loads).toBe(2);
  // An unknown slug still fails: there is nothing to serve.
  expect(Promise.resolve(actors.get('other'))).rejects.toThrow('ECONNREFUSED');
});

test('revalidateAll makes every snapshot re-read on its next use', async () => {
  let n = 0;
  const actors = new SlugActors({
    loadMany: async (slugs) => {
      n++;
      return new Map(slugs.map((slug) => [slug, snapshot(slug, n)]));
    },
  });
  expect((await actors.get('abc'))?.id).toBe('ep_1');
  expect((await actors.get('abc'))?.id).toBe('ep_1');
  await Bun.sleep(2);
  actors.revalidateAll();
  await Bun.sleep(2);
  expect((await actors.get('abc'))?.id).toBe('ep_2');
  expect((await actors.get('abc'))?.id).toBe('ep_2');
});
