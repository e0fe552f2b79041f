/**
 * A team's owner may take only members with a confirmed address (docs/teams.md, "Only members with
 * a confirmed address"): off by default, as SPEC 4.6 has it; while on, accepting an invite needs a
 * proven address (403 `address_not_confirmed`, the invite stays pending); turning it on is refused
 * while a member's address is unproven. Real HTTP, real mail (the SMTP sink or the outbox), both
 * backends; addresses are proven with the sign-up's mailed link.
 */
import { expect, test } from 'bun:test';
import { call, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { SMTP_SINK_URL, USE_SMTP } from './agent-support';
import { verificationLink } from './password-reset-support';
import { createTeam, joinTeam, paidTeam, TEAMS_ENV, type Account, type Team } from './teams-support';

describeBackends(
  'teams: only members with a confirmed address',
  (h) => {
    const invite = async (owner: Account, team: Team, email: string): Promise<string> => {
      const r = await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email } });
      if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
      return r.body.id;
    };
    const accept = (who: Account, inviteId: string) => call(h.url, 'POST', `/api/invites/${inviteId}/accept`, { token: who.key });
    const setting = (who: Account, team: Team, body: Record<string, unknown>) => call(h.url, 'PATCH', `/api/teams/${team.id}`, { token: who.key, body });
    const teamOf = async (owner: Account, team: Team) => (await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.key })).body;
    const memberEmails = async (owner: Account, team: Team) => (await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token: owner.key })).body.members.map((m) => m.email);
    /** Proves `who`'s address with the link their sign-up mailed. */
    const confirm = async (who: Account) => {
      const { token } = await verificationLink(h.server, who.email);
      expect((await call(h.url, 'POST', '/api/auth/verify-email', { body: { token } })).status).toBe(200);
    };

    test('off by default: every Team object says so, and an unproven addressee accepts as SPEC 4.6 has it', async () => {
      const owner = await newAccount(h.url);
      const invitee = await newAccount(h.url);
      const created = await createTeam(h.url, owner.key, 'Default');
      expect(created.confirmedMembersOnly).toBe(false);
      expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: owner.key })).body).toEqual([created]);
      const team = await paidTeam(h.url, owner, 5, 'Paid default');
      expect((await teamOf(owner, team)).confirmedMembersOnly).toBe(false);
      const r = await accept(invitee, await invite(owner, team, invitee.email));
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ ...team, confirmedMembersOnly: false });
      expect(await memberEmails(owner, team)).toEqual([owner.email, invitee.email]);
    });

    test('on: an unproven addressee gets 403 address_not_confirmed and stays invited; once proven, the accept succeeds', async () => {
      const owner = await newAccount(h.url);
      const invitee = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Confirmed only');
      // The owner's own address is never proven here: it is not checked.
      const on = await setting(owner, team, { confirmedMembersOnly: true });
      expect(on.status).toBe(200);
      expect(on.body).toEqual({ ...team, confirmedMembersOnly: true });
      expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: owner.key })).body).toEqual([on.body]);

      const inviteId = await invite(owner, team, invitee.email);
      const refused = await accept(invitee, inviteId);
      expect(refused.status).toBe(403);
      expect(refused.headers.get('content-type') ?? '').toContain('application/json');
      expect(refused.body.code).toBe('address_not_confirmed');
      expect(refused.body.error).toContain(invitee.email);
      expect(refused.body.error).toContain('Resend verification email on the Account page');
      expect(refused.body.error).toContain('then accept again');
      // Nothing written: still invited, not a member, the seat still held by the invite.
      expect((await call(h.url, 'GET', '/api/invites', { token: invitee.key })).body.map((i) => [i.id, i.status])).toEqual([[inviteId, 'pending']]);
      expect(await memberEmails(owner, team)).toEqual([owner.email]);
      expect((await teamOf(owner, team)).subscription).toMatchObject({ seatsUsed: 1, pendingInvites: 1 });
      expect((await call(h.url, 'GET', '/api/teams', { token: invitee.key })).body).toEqual([]);

      // Declining is not gated: it gives nobody access.
      const decliner = await newAccount(h.url);
      expect((await call(h.url, 'POST', `/api/invites/${await invite(owner, team, decliner.email)}/decline`, { token: decliner.key })).status).toBe(204);

      await confirm(invitee);
      const ok = await accept(invitee, inviteId);
      expect(ok.status).toBe(200);
      expect(ok.body).toEqual(on.body);
      const listed = (await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token: owner.key })).body.members;
      expect(listed.map((m) => [m.email, m.role, m.emailVerified])).toEqual([
        [owner.email, 'owner', false],
        [invitee.email, 'member', true],
      ]);
    });

    test('turning it on while members are unproven is 409 naming them, and changes nothing; it turns on once none is left', async () => {
      const owner = await newAccount(h.url);
      const first = await newAccount(h.url);
      const second = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Mixed');
      await joinTeam(h.url, owner, team, first);
      await joinTeam(h.url, owner, team, second);

      const both = await setting(owner, team, { name: 'Renamed', confirmedMembersOnly: true });
      expect(both.status).toBe(409);
      expect(both.body.code).toBe('conflict');
      expect(both.body.error).toContain(`2 members have not confirmed their address (${first.email}, ${second.email})`);
      expect(both.body.error).toContain('remove them, or ask them to confirm it');
      // One transaction: the rename that came with it did not happen either.
      expect(await teamOf(owner, team)).toMatchObject({ name: 'Mixed', confirmedMembersOnly: false });
      expect(await memberEmails(owner, team)).toEqual([owner.email, first.email, second.email]);

      await confirm(first);
      const one = await setting(owner, team, { confirmedMembersOnly: true });
      expect(one.status).toBe(409);
      expect(one.body.error).toContain(`1 member has not confirmed their address (${second.email})`);

      expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/members/${second.userId}`, { token: owner.key })).status).toBe(204);
      const on = await setting(owner, team, { confirmedMembersOnly: true });
      expect(on.status).toBe(200);
      expect(on.body.confirmedMembersOnly).toBe(true);

      // Off again: an unproven addressee accepts as before.
      const off = await setting(owner, team, { confirmedMembersOnly: false });
      expect(off.status).toBe(200);
      expect(off.body).toEqual({ ...team, confirmedMembersOnly: false });
      expect((await accept(second, await invite(owner, team, second.email))).status).toBe(200);
    });

    test('only the owner sets it: a member gets 403 as for a rename, an outsider 404; nothing changes', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const outsider = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Owners only');
      await confirm(member);
      await joinTeam(h.url, owner, team, member);

      const byMember = await setting(member, team, { confirmedMembersOnly: true });
      expect(byMember.status).toBe(403);
      expect(byMember.body.code).toBe('forbidden');
      expect(byMember.body.error).toContain("only the team's owner");
      const byOutsider = await setting(outsider, team, { confirmedMembersOnly: true });
      expect(byOutsider.status).toBe(404);
      expect(byOutsider.body.code).toBe('not_found');
      expect((await teamOf(owner, team)).confirmedMembersOnly).toBe(false);
    });

    test('a body without either field, or with a field of the wrong type, is 400 and changes nothing', async () => {
      const owner = await newAccount(h.url);
      const team = await createTeam(h.url, owner.key, 'Typed');
      for (const body of [
        {},
        { confirmedMembersOnly: 'true' },
        { confirmedMembersOnly: 1 },
        { confirmedMembersOnly: null },
        { confirmedMembersOnly: [true] },
        { name: 5, confirmedMembersOnly: true },
        { name: ' ', confirmedMembersOnly: true },
      ]) {
        const r = await setting(owner, team, body);
        expect([JSON.stringify(body), r.status, r.body.code]).toEqual([JSON.stringify(body), 400, 'validation']);
        expect(typeof r.body.error).toBe('string');
      }
      expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: owner.key })).body).toEqual([team]);
    });
  },
  // Mail to the SMTP sink when the server backend runs (where verificationLink reads it), else the outbox.
  { ...TEAMS_ENV, ...(USE_SMTP ? { SMTP_URL: SMTP_SINK_URL } : {}) },
);
