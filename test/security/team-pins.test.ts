/**
 * A team member reads an endpoint shared with the team; reading is all they may do with the
 * owner's data. Pinning on a shared endpoint is allowed (it only keeps a capture longer, and counts
 * against the member's own PIN_LIMIT, so the owner's cap stays the owner's), but unpinning the owner's pin would hand that capture back to retention:
 * only the endpoint's owner, or whoever pinned it, may unpin (docs/retention.md, "Pinning").
 * Real HTTP on a real port, both backends; the subscription is set by a signed Stripe delivery.
 */
import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { capture, joinTeam, newEndpoint, paidTeam, TEAMS_ENV } from '../behaviour/teams-support';

const ADMIN_TOKEN = 'team-pins-admin-token-0123456789abcdef';

interface Rec {
  id: string;
  pinned?: boolean;
}

/** An owner's endpoint shared with a paid team that `member` has joined. */
async function sharedWithMember(base: string) {
  const owner = await newAccount(base);
  const member = await newAccount(base);
  const team = await paidTeam(base, owner);
  await joinTeam(base, owner, team, member);
  const ep = await newEndpoint(base, owner.key);
  expect((await call(base, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } })).status).toBe(201);
  return { owner, member, team, ep };
}

describeBackends(
  'unpinning on a shared endpoint',
  (h) => {
    test("a member cannot unpin the owner's pin; the owner can unpin the member's; a member can unpin their own", async () => {
      const { owner, member, ep } = await sharedWithMember(h.url);
      const ownersPin = await capture(h.url, ep.slug, 'kept by the owner');
      const membersPin = await capture(h.url, ep.slug, 'kept by the member');
      // Captures reach the store within the shipper's batch age.
      await eventually(async () => (await call<Rec[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: owner.key })).body.length === 2);
      const pinned = async (id: string) => (await call<Rec>(h.url, 'GET', `/api/requests/${id}`, { token: owner.key })).body.pinned === true;

      expect((await call(h.url, 'POST', `/api/requests/${ownersPin}/pin`, { token: owner.key })).status).toBe(200);
      // The member reads it, sees it pinned, and may not take the pin away.
      expect((await call<Rec>(h.url, 'GET', `/api/requests/${ownersPin}`, { token: member.key })).body.pinned).toBe(true);
      const refused = await call<{ code: string }>(h.url, 'DELETE', `/api/requests/${ownersPin}/pin`, { token: member.key });
      expect(refused.status).toBe(403);
      expect(refused.body.code).toBe('forbidden');
      expect(await pinned(ownersPin)).toBe(true);

      // The member's own pin: theirs to undo; and the owner may undo it too.
      expect((await call(h.url, 'POST', `/api/requests/${membersPin}/pin`, { token: member.key })).status).toBe(200);
      expect((await call(h.url, 'DELETE', `/api/requests/${membersPin}/pin`, { token: member.key })).status).toBe(204);
      expect(await pinned(membersPin)).toBe(false);
      expect((await call(h.url, 'POST', `/api/requests/${membersPin}/pin`, { token: member.key })).status).toBe(200);
      expect((await call(h.url, 'DELETE', `/api/requests/${membersPin}/pin`, { token: owner.key })).status).toBe(204);
      expect(await pinned(membersPin)).toBe(false);

      // Not pinned: 204 for a reader, as before. The owner unpins their own.
      expect((await call(h.url, 'DELETE', `/api/requests/${membersPin}/pin`, { token: member.key })).status).toBe(204);
      expect((await call(h.url, 'DELETE', `/api/requests/${ownersPin}/pin`, { token: owner.key })).status).toBe(204);
      expect(await pinned(ownersPin)).toBe(false);
    });

    test("a member's pins count against the member's own PIN_LIMIT, not the owner's; leaving the team, the member can still undo them", async () => {
      const { owner, member, team, ep } = await sharedWithMember(h.url);
      const a = await capture(h.url, ep.slug, 'capture a');
      const b = await capture(h.url, ep.slug, 'capture b');
      const c = await capture(h.url, ep.slug, 'capture c');
      const d = await capture(h.url, ep.slug, 'capture d');
      const e = await capture(h.url, ep.slug, 'capture e');
      await eventually(async () => (await call<Rec[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: owner.key })).body.length === 5);
      const pin = (token: string, id: string) => call<{ code?: string; error?: string }>(h.url, 'POST', `/api/requests/${id}/pin`, { token });

      // PIN_LIMIT is 2: the member takes two places of their own...
      expect((await pin(member.key, a)).status).toBe(200);
      expect((await pin(member.key, b)).status).toBe(200);
      const third = await pin(member.key, c);
      expect(third.status).toBe(409);
      expect(third.body.code).toBe('pin_limit');
      // ...and the owner's two places are untouched.
      expect((await pin(owner.key, c)).status).toBe(200);
      expect((await pin(owner.key, d)).status).toBe(200);
      expect((await pin(owner.key, e)).body.code).toBe('pin_limit');

      // The member leaves: they no longer read the endpoint, but may still take back their own pins.
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/leave`, { token: member.key })).status).toBe(204);
      expect((await call(h.url, 'GET', `/api/requests/${a}`, { token: member.key })).status).toBe(404);
      expect((await call(h.url, 'DELETE', `/api/requests/${a}/pin`, { token: member.key })).status).toBe(204);
      // Someone else's pin on an endpoint they no longer read stays a 404, and stays pinned.
      expect((await call(h.url, 'DELETE', `/api/requests/${c}/pin`, { token: member.key })).status).toBe(404);
      const pinned = await call<Rec[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?pinned=true`, { token: owner.key });
      expect(pinned.body.map((r) => r.id).sort()).toEqual([b, c, d].sort());
    });

    test("a deleted member's pins go at the next sweep: the captures return to retention, counted against nobody", async () => {
      const { owner, member, ep } = await sharedWithMember(h.url);
      const byMember = await capture(h.url, ep.slug, 'kept by the member');
      const byOwner = await capture(h.url, ep.slug, 'kept by the owner');
      await eventually(async () => (await call<Rec[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: owner.key })).body.length === 2);
      expect((await call(h.url, 'POST', `/api/requests/${byMember}/pin`, { token: member.key })).status).toBe(200);
      expect((await call(h.url, 'POST', `/api/requests/${byOwner}/pin`, { token: owner.key })).status).toBe(200);
      const pinnedIds = async () =>
        (await call<Rec[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?pinned=true`, { token: owner.key })).body.map((r) => r.id).sort();
      expect(await pinnedIds()).toEqual([byMember, byOwner].sort());

      const sweep = () => call<{ deadPins: number }>(h.url, 'POST', '/admin/api/retention', { token: ADMIN_TOKEN });
      // A sweep while the member's account exists keeps both pins.
      expect((await sweep()).status).toBe(200);
      expect(await pinnedIds()).toEqual([byMember, byOwner].sort());
      expect((await call(h.url, 'DELETE', '/api/account', { token: member.session, body: { password: 'correct horse battery' } })).status).toBe(204);
      const after = await sweep();
      expect(after.status).toBe(200);
      expect(after.body.deadPins).toBe(1);
      // The owner's pin stays; the deleted member's is gone, and the owner may pin it again.
      expect(await pinnedIds()).toEqual([byOwner]);
      expect((await call<Rec>(h.url, 'GET', `/api/requests/${byMember}`, { token: owner.key })).body.pinned ?? false).toBe(false);
    });
  },
  { ...TEAMS_ENV, PIN_LIMIT: '2', ADMIN_TOKEN },
);
