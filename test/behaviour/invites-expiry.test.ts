import { expect, test } from 'bun:test';
import { call, newAccount } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { mailTo, paidTeam as paidTeamAt, TEAMS_ENV, type Account, type Team } from './teams-support';

/** Invites live INVITE_TTL_DAYS; the service runs in-process and its clock is moved past that. */
const TTL_DAYS = 7;
const TTL_MS = TTL_DAYS * 86_400_000;

describeInProcess(
  'invites expire after INVITE_TTL_DAYS',
  (h) => {
    // Five seconds short of its expiry an invite still counts; at its expiry it has expired.
    // Counted from the invite's own expiresAt: the wall clock under the test clock runs on.
    const almostExpire = (expiresAt: string) => h.clock.advance(Date.parse(expiresAt) - h.clock.now() - 5_000);
    const expire = () => h.clock.advance(5_000);
    const waitForExpiry = () => h.clock.advance(TTL_MS);
    // The Stripe event that pays for a team is signed at the service's time.
    const paidTeam = (base: string, owner: Account, seats: number, name: string) => paidTeamAt(base, owner, seats, name, h.clock.now());
    const invite = (owner: Account, team: Team, email: string) => call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email } });
    const myInvites = async (a: Account) => (await call(h.url, 'GET', '/api/invites', { token: a.key })).body as { id: string; createdAt: string; expiresAt: string }[];
    const pendingOf = async (owner: Account, team: Team) =>
      ((await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token: owner.key })).body.pendingInvites as { id: string }[]).map((i) => i.id);
    const seatsHeld = async (owner: Account, team: Team) => (await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.key })).body.subscription.pendingInvites;

    test('an expired invite leaves both lists, frees its seat and cannot be accepted, declined or withdrawn (409 / 404)', async () => {
      const owner = await newAccount(h.url);
      const invitee = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Expiring');
      const inv = await invite(owner, team, invitee.email);
      expect(inv.status).toBe(201);
      const listed = await myInvites(invitee);
      expect(listed.map((i) => i.id)).toEqual([inv.body.id]);
      expect(Date.parse(listed[0]!.expiresAt) - Date.parse(listed[0]!.createdAt)).toBe(TTL_MS);
      expect(await pendingOf(owner, team)).toEqual([inv.body.id]);
      expect(await seatsHeld(owner, team)).toBe(1);
      // The invitee signed up: their first mail is the address-verification link, the invite's comes after.
      expect(mailTo(h.server.dataDir, invitee.email).find((m) => m.text.includes('/api/invites/'))?.text).toContain(`It expires at ${listed[0]!.expiresAt}.`);

      // A second short of the TTL it still counts …
      almostExpire(listed[0]!.expiresAt);
      expect(await pendingOf(owner, team)).toEqual([inv.body.id]);
      expect(await seatsHeld(owner, team)).toBe(1);
      // … and at the TTL it is gone.
      expire();
      expect(await myInvites(invitee)).toEqual([]);
      expect(await pendingOf(owner, team)).toEqual([]);
      expect(await seatsHeld(owner, team)).toBe(0);
      for (const verb of ['accept', 'decline']) {
        const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/${verb}`, { token: invitee.key });
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('conflict');
        expect(r.body.error).toContain('expired');
      }
      expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${inv.body.id}`, { token: owner.key })).status).toBe(404);
      const members = (await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token: owner.key })).body.members as { userId: string }[];
      expect(members.map((m) => m.userId)).toEqual([owner.userId]);
      // Someone else still gets 404 for it, expired or not.
      expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: owner.key })).status).toBe(404);
    });

    test('the same address can be invited again once its invite expired, and the new invite works', async () => {
      const owner = await newAccount(h.url);
      const invitee = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Again');
      const first = await invite(owner, team, invitee.email);
      expect(first.status).toBe(201);
      // Not expired yet: still one pending invite per address.
      expect((await invite(owner, team, invitee.email)).status).toBe(409);

      waitForExpiry();
      // In another case: addresses compare case-insensitively, the expired row included.
      const second = await invite(owner, team, invitee.email.toUpperCase());
      expect(second.status).toBe(201);
      expect(second.body.id).not.toBe(first.body.id);
      expect(await pendingOf(owner, team)).toEqual([second.body.id]);
      expect((await myInvites(invitee)).map((i) => i.id)).toEqual([second.body.id]);
      // The old one stays unusable; the new one is accepted.
      const old = await call(h.url, 'POST', `/api/invites/${first.body.id}/accept`, { token: invitee.key });
      expect(old.status).toBe(409);
      expect(old.body.error).toContain('expired');
      const acc = await call(h.url, 'POST', `/api/invites/${second.body.id}/accept`, { token: invitee.key });
      expect(acc.status).toBe(200);
      expect(acc.body.id).toBe(team.id);
      expect(await pendingOf(owner, team)).toEqual([]);
    });

    test('an expired invite no longer holds a seat: a full team can invite someone else', async () => {
      const owner = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 2, 'Two seats'); // the owner and one more
      const a = `a.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
      const b = `b.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;
      expect((await invite(owner, team, a)).status).toBe(201);
      const full = await invite(owner, team, b);
      expect(full.status).toBe(402);
      expect(full.body.code).toBe('payment_required');
      waitForExpiry();
      expect((await invite(owner, team, b)).status).toBe(201);
    });
  },
  { ...TEAMS_ENV, INVITE_TTL_DAYS: String(TTL_DAYS) },
);
