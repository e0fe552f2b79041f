import { describe, expect, test } from 'bun:test';
import { call, eventually, itemAt, newAccount } from '../support/client';
import { startServer, stopServer } from '../support/server';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import {
  capture,
  createTeam,
  joinTeam,
  newEndpoint,
  nowSeconds,
  paidTeam,
  setStripeSubscription,
  TEAMS_ENV,
  type Account,
  type Team,
} from './teams-support';

interface Rec {
  id: string;
  endpointId: string;
  body: string;
}

interface Shared {
  owner: Account;
  member: Account;
  outsider: Account;
  team: Team;
  ep: { id: string; slug: string; name: string };
  ids: string[];
}

/** What one account can see of one endpoint through every read path. */
interface Access {
  list: number;
  listedIds: string[];
  page: number;
  pagedIds: string[];
  get: number[];
  searchBySlug: number;
  searchIds: string[];
  countBySlug: number;
  count: number;
}

describeBackends(
  'shared endpoints (SPEC 4.5 sharing)',
  (h) => {
    async function access(base: string, token: string, slug: string, ids: string[]): Promise<Access> {
      const list = await call<Rec[]>(base, 'GET', `/api/endpoints/${slug}/requests`, { token });
      const page = await call<{ items: Rec[] }>(base, 'GET', `/api/endpoints/${slug}/requests/paginated?limit=1`, { token });
      const get = await Promise.all(ids.map((id) => call(base, 'GET', `/api/requests/${id}`, { token })));
      const bySlug = await call<Rec[]>(base, 'GET', `/api/search/requests?slug=${slug}`, { token });
      const all = await call<Rec[]>(base, 'GET', '/api/search/requests?limit=1000', { token });
      const countBySlug = await call<{ count: number }>(base, 'GET', `/api/search/requests/count?slug=${slug}`, { token });
      const count = await call<{ count: number }>(base, 'GET', '/api/search/requests/count', { token });
      const wanted = new Set(ids);
      return {
        list: list.status,
        listedIds: list.status === 200 ? list.body.map((r) => r.id).sort() : [],
        page: page.status,
        pagedIds: page.status === 200 ? page.body.items.map((r) => r.id) : [],
        get: get.map((r) => r.status),
        searchBySlug: bySlug.status,
        searchIds: all.body.map((r) => r.id).filter((id) => wanted.has(id)).sort(),
        countBySlug: countBySlug.status === 200 ? countBySlug.body.count : -countBySlug.status,
        count: count.body.count,
      };
    }

    function expectFullAccess(a: Access, ids: string[]): void {
      expect(a.list).toBe(200);
      expect(a.listedIds).toEqual([...ids].sort());
      expect(a.page).toBe(200);
      expect(a.pagedIds.length).toBe(1);
      expect(a.get).toEqual(ids.map(() => 200));
      expect(a.searchBySlug).toBe(200);
      expect(a.searchIds).toEqual([...ids].sort());
      expect(a.countBySlug).toBe(ids.length);
      expect(a.count).toBeGreaterThanOrEqual(ids.length);
    }

    function expectNoAccess(a: Access, ids: string[]): void {
      expect(a.list).toBe(404);
      expect(a.listedIds).toEqual([]);
      expect(a.page).toBe(404);
      expect(a.get).toEqual(ids.map(() => 404));
      expect(a.searchBySlug).toBe(404);
      expect(a.searchIds).toEqual([]);
      expect(a.countBySlug).toBe(-404);
    }

    /** Owner with a paid team, a member, an outsider, and an endpoint with two captures shared with the team. */
    async function shared(base = h.url): Promise<Shared> {
      const [owner, member, outsider] = await Promise.all([newAccount(base), newAccount(base), newAccount(base)]);
      const team = await paidTeam(base, owner, 10, 'Sharing');
      await joinTeam(base, owner, team, member);
      const ep = await newEndpoint(base, owner.key, 'payments');
      const ids = [await capture(base, ep.slug, 'first'), await capture(base, ep.slug, 'second')];
      await eventually(async () => (await call(base, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: owner.key })).body.length === 2);
      const r = await call(base, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } });
      if (r.status !== 201) throw new Error(`share: ${r.status} ${r.text}`);
      return { owner, member, outsider, team, ep, ids };
    }

    describe('sharing', () => {
      test('the owner shares an endpoint (201); again is 200; members see it in the team listing, outsiders get 404', async () => {
        const s = await shared();
        const again = await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key, body: { endpointId: s.ep.id } });
        expect(again.status).toBe(200);
        const listing = await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key });
        expect(listing.status).toBe(200);
        expect(listing.body).toEqual([
          {
            id: s.ep.id,
            slug: s.ep.slug,
            name: 'payments',
            url: `${h.url}/w/${s.ep.slug}`,
            createdAt: expect.any(Number),
            ownerId: s.owner.userId,
            ownerEmail: s.owner.email,
            sharedAt: again.body.sharedAt,
          },
        ]);
        expect(itemAt(listing.body).sharedAt).toMatch(/^\d{4}-\d{2}-\d{2}T/);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.outsider.key })).status).toBe(404);
      });

      test('without an active subscription sharing is refused with 402 and nothing is shared', async () => {
        const owner = await newAccount(h.url);
        const team = await createTeam(h.url, owner.key);
        const ep = await newEndpoint(h.url, owner.key);
        const r = await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } });
        expect(r.status).toBe(402);
        expect(r.body.code).toBe('payment_required');
        expect(r.body.error).toContain('subscription');
        expect((await call(h.url, 'GET', `/api/teams/${team.id}/endpoints`, { token: owner.key })).body).toEqual([]);
      });

      test('only an endpoint\'s owner shares it, only into a team they are in', async () => {
        const s = await shared();
        const other = await paidTeam(h.url, s.outsider, 5, 'Outsider team');
        // A member cannot pass someone else's endpoint on to a team of theirs.
        const theirTeam = await paidTeam(h.url, s.member, 5, 'Member team');
        const passOn = await call(h.url, 'POST', `/api/teams/${theirTeam.id}/endpoints`, { token: s.member.key, body: { endpointId: s.ep.id } });
        expect(passOn.status).toBe(404);
        // An outsider cannot share someone else's endpoint into their own team, nor theirs into a team they are not in.
        expect((await call(h.url, 'POST', `/api/teams/${other.id}/endpoints`, { token: s.outsider.key, body: { endpointId: s.ep.id } })).status).toBe(404);
        const outsiderEp = await newEndpoint(h.url, s.outsider.key, 'spam');
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.outsider.key, body: { endpointId: outsiderEp.id } })).status).toBe(404);
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key, body: {} })).status).toBe(400);
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key, body: { endpointId: 'ep_nope' } })).status).toBe(404);
        expect((await call(h.url, 'GET', `/api/teams/${theirTeam.id}/endpoints`, { token: s.member.key })).body).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${other.id}/endpoints`, { token: s.outsider.key })).body).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key })).body.map((e: { id: string }) => e.id)).toEqual([s.ep.id]);
        // The member's other team sees nothing of it.
        const third = await newAccount(h.url);
        await joinTeam(h.url, s.member, theirTeam, third);
        expectNoAccess(await access(h.url, third.key, s.ep.slug, s.ids), s.ids);
      });
    });

    describe('what members see', () => {
      test('list, paginated list, get one, search and count: members see the shared captures, outsiders nothing', async () => {
        const s = await shared();
        expectFullAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        expectFullAccess(await access(h.url, s.owner.key, s.ep.slug, s.ids), s.ids);
        expectNoAccess(await access(h.url, s.outsider.key, s.ep.slug, s.ids), s.ids);
        expect((await access(h.url, s.outsider.key, s.ep.slug, s.ids)).count).toBe(0);
        // One by id names the shared endpoint it was sent to, for the member as for the owner.
        const one = await call<{ endpointSlug: string; endpointUrl: string }>(h.url, 'GET', `/api/requests/${s.ids[0]}`, { token: s.member.key });
        expect(one.body.endpointSlug).toBe(s.ep.slug);
        expect(one.body.endpointUrl).toEndWith(`/w/${s.ep.slug}`);
        // A member's search covers their own endpoints and shared ones together.
        const mine = await newEndpoint(h.url, s.member.key, 'own');
        const own = await capture(h.url, mine.slug, 'mine');
        const all = await eventually(async () => {
          const r = await call<Rec[]>(h.url, 'GET', '/api/search/requests', { token: s.member.key });
          return r.body.length === 3 ? r.body : null;
        });
        expect(all.map((r) => r.id).sort()).toEqual([...s.ids, own].sort());
        // …and the owner does not see the member's unshared endpoint.
        expect((await call(h.url, 'GET', `/api/endpoints/${mine.slug}/requests`, { token: s.owner.key })).status).toBe(404);
        expect((await call(h.url, 'GET', `/api/requests/${own}`, { token: s.owner.key })).status).toBe(404);
      });

      test('the live stream: a member streams the shared endpoint, an outsider gets 404', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        const id = await capture(h.url, s.ep.slug, 'live one');
        await live.until(() => live.events.length === 1);
        live.close();
        expect(live.ids).toEqual([id]);
        expect(JSON.parse(live.events[0]?.data ?? '{}').body).toBe('live one');
        const denied = await SseClient.open(`${h.url}/api/stream/${s.ep.slug}`, { token: s.outsider.key });
        expect(denied.response.status).toBe(404);
      });

      test('members cannot change, clear or delete an endpoint they do not own, nor read its configuration', async () => {
        const s = await shared();
        await call(h.url, 'PATCH', `/api/endpoints/${s.ep.slug}`, { token: s.owner.key, body: { notificationUrl: 'https://example.com/owner-only-hook' } });
        const made = await call(h.url, 'POST', `/api/endpoints/${s.ep.slug}/notification-secret`, { token: s.owner.key });
        expect(made.status).toBe(201);
        const attempts = [
          // The notification secret is the owner's alone: a member can neither replace nor remove it.
          await call(h.url, 'POST', `/api/endpoints/${s.ep.slug}/notification-secret`, { token: s.member.key }),
          await call(h.url, 'DELETE', `/api/endpoints/${s.ep.slug}/notification-secret`, { token: s.member.key }),
          await call(h.url, 'PATCH', `/api/endpoints/${s.ep.slug}`, { token: s.member.key, body: { name: 'pwned', mockResponse: { status: 500, body: 'x', headers: {} } } }),
          await call(h.url, 'DELETE', `/api/endpoints/${s.ep.slug}/requests`, { token: s.member.key }),
          await call(h.url, 'DELETE', `/api/endpoints/${s.ep.slug}`, { token: s.member.key }),
          await call(h.url, 'GET', `/api/endpoints/${s.ep.slug}`, { token: s.member.key }),
          await call(h.url, 'POST', '/api/send-test', { token: s.member.key, body: { slug: s.ep.slug, method: 'POST', headers: {}, body: 'x' } }),
        ];
        for (const r of attempts) {
          expect(r.status).toBe(404);
          expect(typeof r.body.error).toBe('string');
          expect(r.text).not.toContain('owner-only-hook');
          expect(r.text).not.toContain(made.body.secret);
        }
        expect((await call(h.url, 'GET', '/api/endpoints', { token: s.member.key })).body).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key })).text).not.toContain(made.body.secret);
        const ep = await call(h.url, 'GET', `/api/endpoints/${s.ep.slug}`, { token: s.owner.key });
        expect(ep.body.name).toBe('payments');
        expect(ep.body.notificationSigning).toEqual({ createdAt: made.body.createdAt });
        expect(ep.body.mockResponse).toBeNull();
        expect((await call<Rec[]>(h.url, 'GET', `/api/endpoints/${s.ep.slug}/requests`, { token: s.owner.key })).body.length).toBe(2);
        // The member cannot unshare it either (403), nor remove it from the team listing.
        const unshare = await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${s.ep.id}`, { token: s.member.key });
        expect(unshare.status).toBe(403);
        expect(unshare.body.error).toContain('owner');
        expectFullAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
      });
    });

    describe('losing access, at once', () => {
      test('when the share ends (204), every read path and an open stream close for the member', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        const outsiderTry = await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${s.ep.id}`, { token: s.outsider.key });
        expect(outsiderTry.status).toBe(404);
        const r = await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${s.ep.id}`, { token: s.owner.key });
        expect(r.status).toBe(204);
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        expectFullAccess(await access(h.url, s.owner.key, s.ep.slug, s.ids), s.ids);
        await live.until(() => live.ended, 5_000);
        // Told why, so a client stops instead of reconnecting into a 404.
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
        await capture(h.url, s.ep.slug, 'after unshare');
        await Bun.sleep(300);
        expect(live.events.length).toBe(1);
        expect((await SseClient.open(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key })).response.status).toBe(404);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key })).body).toEqual([]);
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${s.ep.id}`, { token: s.owner.key })).status).toBe(404);
      });

      test('when the member leaves', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/leave`, { token: s.member.key })).status).toBe(204);
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        await live.until(() => live.ended, 5_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
      });

      test('when the member is removed', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/members/${s.member.userId}`, { token: s.owner.key })).status).toBe(204);
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        await live.until(() => live.ended, 5_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
      });

      test('when the member deletes their account: their stream ends (credential_revoked), the owner\'s goes on', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        const owners = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.owner.key });
        expect((await call(h.url, 'DELETE', '/api/account', { token: s.member.session })).status).toBe(204);
        await live.until(() => live.ended, 3_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"credential_revoked"}']]);
        const id = await capture(h.url, s.ep.slug, 'after the member left');
        await owners.until(() => owners.events.length === 1);
        expect(owners.ids).toEqual([id]);
        expect(live.events.length).toBe(1);
        owners.close();
      });

      test("when the team's owner deletes their account: the team goes with it, and another member's shared endpoint closes for the members at once", async () => {
        const s = await shared();
        const sharer = await newAccount(h.url);
        await joinTeam(h.url, s.owner, s.team, sharer);
        const ep = await newEndpoint(h.url, sharer.key, 'sharer');
        const id = await capture(h.url, ep.slug, 'before');
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: sharer.key, body: { endpointId: ep.id } })).status).toBe(201);
        await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: s.member.key })).body.length === 1);
        const live = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: s.member.key });
        const sharers = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: sharer.key });
        const ownersEp = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        expect((await call(h.url, 'DELETE', '/api/account', { token: s.owner.session })).status).toBe(204);
        // The owner's own shared endpoint is deleted with the account: that is the reason given.
        await ownersEp.until(() => ownersEp.ended, 5_000);
        expect(ownersEp.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"endpoint_deleted"}']]);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}`, { token: s.member.key })).status).toBe(404);
        expect((await call(h.url, 'GET', '/api/teams', { token: sharer.key })).body).toEqual([]);
        expectNoAccess(await access(h.url, s.member.key, ep.slug, [id]), [id]);
        // Well inside the periodic re-check (STREAM_RECHECK_MS, 60 s): the deletion was announced.
        await live.until(() => live.ended, 5_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
        // The sharer keeps their endpoint and its stream.
        const after = await capture(h.url, ep.slug, 'after');
        await sharers.until(() => sharers.events.length === 1);
        expect(sharers.ids).toEqual([after]);
        sharers.close();
      });

      test('when the team is deleted: memberships and shares are gone', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}`, { token: s.owner.key })).status).toBe(204);
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        expectFullAccess(await access(h.url, s.owner.key, s.ep.slug, s.ids), s.ids);
        await live.until(() => live.ended, 5_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
      });

      test('while the subscription is not active; back when it is', async () => {
        const s = await shared();
        const live = await SseClient.live(`${h.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
        await setStripeSubscription(h.url, { teamId: s.team.id, type: 'customer.subscription.updated', status: 'past_due', seats: 10 });
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
        await live.until(() => live.ended, 5_000);
        expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
        // Memberships and shares were kept: paying again restores access.
        await setStripeSubscription(h.url, { teamId: s.team.id, type: 'customer.subscription.updated', status: 'active', seats: 10, created: nowSeconds() + 1 });
        expectFullAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
      });

      test('a member who leaves takes their shared endpoints with them; the team owner may unshare a member\'s endpoint', async () => {
        const s = await shared();
        const m2 = await newAccount(h.url);
        await joinTeam(h.url, s.owner, s.team, m2);
        const mEp = await newEndpoint(h.url, s.member.key, 'member-ep');
        const mIds = [await capture(h.url, mEp.slug, 'm1')];
        await eventually(async () => (await call(h.url, 'GET', `/api/endpoints/${mEp.slug}/requests`, { token: s.member.key })).body.length === 1);
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key, body: { endpointId: mEp.id } })).status).toBe(201);
        expectFullAccess(await access(h.url, s.owner.key, mEp.slug, mIds), mIds);
        expectFullAccess(await access(h.url, m2.key, mEp.slug, mIds), mIds);
        // Another member may not unshare it; the team's owner may.
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${mEp.id}`, { token: m2.key })).status).toBe(403);
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${mEp.id}`, { token: s.owner.key })).status).toBe(204);
        expectNoAccess(await access(h.url, m2.key, mEp.slug, mIds), mIds);
        // The endpoint's owner may unshare it too.
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key, body: { endpointId: mEp.id } })).status).toBe(201);
        expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${mEp.id}`, { token: s.member.key })).status).toBe(204);
        expectNoAccess(await access(h.url, m2.key, mEp.slug, mIds), mIds);
        // Shared again, then the member leaves: the share goes with them.
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key, body: { endpointId: mEp.id } })).status).toBe(201);
        expectFullAccess(await access(h.url, m2.key, mEp.slug, mIds), mIds);
        expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/leave`, { token: s.member.key })).status).toBe(204);
        expectNoAccess(await access(h.url, s.owner.key, mEp.slug, mIds), mIds);
        expectNoAccess(await access(h.url, m2.key, mEp.slug, mIds), mIds);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key })).body.map((e: { id: string }) => e.id)).toEqual([s.ep.id]);
        // The member still has their endpoint and its captures.
        expectFullAccess(await access(h.url, s.member.key, mEp.slug, mIds), mIds);
      });

      test('deleting the endpoint removes the share', async () => {
        const s = await shared();
        expect((await call(h.url, 'DELETE', `/api/endpoints/${s.ep.slug}`, { token: s.owner.key })).status).toBe(204);
        expect((await call(h.url, 'GET', `/api/teams/${s.team.id}/endpoints`, { token: s.member.key })).body).toEqual([]);
        expectNoAccess(await access(h.url, s.member.key, s.ep.slug, s.ids), s.ids);
      });
    });

    // Two nodes need one shared Postgres and NATS; the embedded backend is one process by design.
    if (h.backend === 'server') describe('on every node', () => {
      test('an unshare on one node takes effect at once on another, reads and open streams alike', async () => {
        const node2 = await startServer({ env: { ...h.provisioned.env, ...TEAMS_ENV } });
        try {
          const s = await shared();
          expectFullAccess(await access(node2.url, s.member.key, s.ep.slug, s.ids), s.ids);
          const live = await SseClient.live(`${node2.url}/api/stream/${s.ep.slug}`, { token: s.member.key });
          expect((await call(h.url, 'DELETE', `/api/teams/${s.team.id}/endpoints/${s.ep.id}`, { token: s.owner.key })).status).toBe(204);
          expectNoAccess(await access(node2.url, s.member.key, s.ep.slug, s.ids), s.ids);
          await live.until(() => live.ended, 5_000);
          expect(live.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"access_revoked"}']]);
          // The same for leaving.
          const again = await call(h.url, 'POST', `/api/teams/${s.team.id}/endpoints`, { token: s.owner.key, body: { endpointId: s.ep.id } });
          expect(again.status).toBe(201);
          expectFullAccess(await access(node2.url, s.member.key, s.ep.slug, s.ids), s.ids);
          expect((await call(h.url, 'POST', `/api/teams/${s.team.id}/leave`, { token: s.member.key })).status).toBe(204);
          expectNoAccess(await access(node2.url, s.member.key, s.ep.slug, s.ids), s.ids);
        } finally {
          await stopServer(node2);
        }
      });
    });
  },
  TEAMS_ENV,
);
