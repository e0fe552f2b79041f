import { describe, expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { capture, joinTeam, newEndpoint, paidTeam, TEAMS_ENV } from './teams-support';

interface Activity {
  slug: string;
  count: number;
  lastReceivedAt: number | null;
}

interface Rec {
  id: string;
  receivedAt: number;
}

describeBackends(
  'endpoint activity (GET /api/endpoints/activity)',
  (h) => {
    const activity = async (token: string) => {
      const r = await call<Activity[]>(h.url, 'GET', '/api/endpoints/activity', { token });
      expect(r.status).toBe(200);
      return r.body;
    };

    /** Every capture of an endpoint once all `n` are stored (the shipper writes them a moment later). */
    const stored = (token: string, slug: string, n: number) =>
      eventually(async () => {
        const list = (await call<Rec[]>(h.url, 'GET', `/api/endpoints/${slug}/requests?limit=1000`, { token })).body;
        return list.length === n ? list : null;
      }, 15_000);

    describe('answers', () => {
      test('own and shared endpoints with exact counts and the newest receivedAt; a cleared endpoint 0 and null; another account\'s never', async () => {
        const [owner, member, outsider] = await Promise.all([newAccount(h.url), newAccount(h.url), newAccount(h.url)]);
        const busy = await newEndpoint(h.url, owner.key, 'busy');
        const cleared = await newEndpoint(h.url, owner.key, 'cleared');
        const quiet = await newEndpoint(h.url, owner.key, 'quiet');
        const mine = await newEndpoint(h.url, member.key, 'mine');
        const theirs = await newEndpoint(h.url, outsider.key, 'theirs');
        for (let i = 0; i < 3; i++) await capture(h.url, busy.slug, `b${i}`);
        for (let i = 0; i < 2; i++) await capture(h.url, cleared.slug, `c${i}`);
        await capture(h.url, mine.slug, 'm');
        await capture(h.url, theirs.slug, 't');
        const busyRecs = await stored(owner.key, busy.slug, 3);
        await stored(owner.key, cleared.slug, 2);
        const mineRecs = await stored(member.key, mine.slug, 1);
        await stored(outsider.key, theirs.slug, 1);
        expect((await call(h.url, 'DELETE', `/api/endpoints/${cleared.slug}/requests`, { token: owner.key })).status).toBe(204);

        const newest = (recs: Rec[]) => Math.max(...recs.map((r) => r.receivedAt));
        expect(await activity(owner.key)).toEqual([
          { slug: busy.slug, count: 3, lastReceivedAt: newest(busyRecs) },
          { slug: cleared.slug, count: 0, lastReceivedAt: null },
          { slug: quiet.slug, count: 0, lastReceivedAt: null },
        ]);

        // Not shared yet: the member sees only their own.
        expect(await activity(member.key)).toEqual([{ slug: mine.slug, count: 1, lastReceivedAt: newest(mineRecs) }]);
        const team = await paidTeam(h.url, owner, 10, 'Activity');
        await joinTeam(h.url, owner, team, member);
        const share = await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: busy.id } });
        expect(share.status).toBe(201);
        // Own first, then shared.
        expect(await activity(member.key)).toEqual([
          { slug: mine.slug, count: 1, lastReceivedAt: newest(mineRecs) },
          { slug: busy.slug, count: 3, lastReceivedAt: newest(busyRecs) },
        ]);
        expect(await activity(outsider.key)).toEqual([{ slug: theirs.slug, count: 1, lastReceivedAt: expect.any(Number) }]);

        // A capture after the clear counts again, alone.
        await capture(h.url, cleared.slug, 'after');
        const after = await stored(owner.key, cleared.slug, 1);
        expect((await activity(owner.key)).find((a) => a.slug === cleared.slug)).toEqual({ slug: cleared.slug, count: 1, lastReceivedAt: newest(after) });
      });

      test('an account without endpoints gets []; no credentials 401', async () => {
        const a = await newAccount(h.url);
        expect(await activity(a.key)).toEqual([]);
        expect((await call(h.url, 'GET', '/api/endpoints/activity')).status).toBe(401);
      });
    });
  },
  TEAMS_ENV,
);
