import { describe, expect, test } from 'bun:test';
import { call, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { createTeam, mailTo, nowSeconds, paidTeam, setStripeSubscription, TEAMS_ENV, type Account, type Team } from './teams-support';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

interface Invite {
  id: string;
  teamId: string;
  teamName: string;
  email: string;
  invitedBy: string | null;
  status: string;
  createdAt: string;
  expiresAt: string;
}

const uniqueEmail = (label: string) => `${label}.${Date.now()}.${Math.random().toString(36).slice(2, 8)}@example.com`;

describeBackends(
  'invites (SPEC 4.5 invite, 4.6)',
  (h) => {
    const invite = (owner: Account, team: Team, email: string) => call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email } });
    const myInvites = async (token: string) => (await call<Invite[]>(h.url, 'GET', '/api/invites', { token })).body;
    const members = async (token: string, team: Team) => (await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token })).body;

    async function signUp(email: string): Promise<Account> {
      const s = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
      if (s.status !== 201) throw new Error(`signup: ${s.status} ${s.text}`);
      const k = await call(h.url, 'POST', '/api/api-keys', { token: s.body.token, body: { name: 't' } });
      return { session: s.body.token, key: k.body.key, email, userId: s.body.user.id };
    }

    describe('inviting', () => {
      test('the owner invites by email: 201, the invite is pending, and a mail goes to that address', async () => {
        const owner = await newAccount(h.url);
        const team = await paidTeam(h.url, owner, 5, 'Mail Team');
        const email = uniqueEmail('invitee');
        const r = await invite(owner, team, email);
        expect(r.status).toBe(201);
        expect(r.body.id).toStartWith('inv_');
        expect(r.body.email).toBe(email);
        expect(r.body.createdAt).toMatch(ISO);
        expect((await members(owner.key, team)).pendingInvites).toEqual([r.body]);
        const mail = mailTo(h.server.dataDir, email);
        expect(mail.length).toBe(1);
        expect(mail[0]?.subject).toContain('Mail Team');
        expect(mail[0]?.text).toContain(owner.email);
        expect(mail[0]?.text).toContain(`/api/invites/${r.body.id}/accept`);
        // A person is sent to the dashboard's Teams page, where Accept and Decline are.
        expect(mail[0]?.text).toContain(`${h.url}/teams to accept or decline it`);
      });

      test('someone without an account is invited; the invite appears when they sign up with that address', async () => {
        const owner = await newAccount(h.url);
        const team = await paidTeam(h.url, owner, 5, 'Future');
        const email = uniqueEmail('future');
        const r = await invite(owner, team, email);
        expect(r.status).toBe(201);
        // Sign-up in another case: addresses compare case-insensitively.
        const newcomer = await signUp(email.toUpperCase());
        const list = await myInvites(newcomer.key);
        expect(list).toEqual([
          {
            id: r.body.id,
            teamId: team.id,
            teamName: 'Future',
            email,
            invitedBy: owner.email,
            status: 'pending',
            createdAt: r.body.createdAt,
            // INVITE_TTL_DAYS defaults to 7.
            expiresAt: new Date(Date.parse(r.body.createdAt) + 7 * 86_400_000).toISOString(),
          },
        ]);
        const acc = await call(h.url, 'POST', `/api/invites/${r.body.id}/accept`, { token: newcomer.key });
        expect(acc.status).toBe(200);
        expect(acc.body).toEqual(team);
        expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: newcomer.key })).body.map((t) => t.id)).toEqual([team.id]);
        const m = await members(owner.key, team);
        expect(m.members).toContainEqual({ userId: newcomer.userId, email: email.toUpperCase(), role: 'member', emailVerified: false });
        expect(m.pendingInvites).toEqual([]);
        expect(await myInvites(newcomer.key)).toEqual([]);
      });

      test('without an active subscription inviting is refused with 402 and nothing is created or sent', async () => {
        const owner = await newAccount(h.url);
        const team = await createTeam(h.url, owner.key);
        const email = uniqueEmail('unpaid');
        const r = await invite(owner, team, email);
        expect(r.status).toBe(402);
        expect(r.body.code).toBe('payment_required');
        expect(r.body.error).toContain('subscription');
        expect((await members(owner.key, team)).pendingInvites).toEqual([]);
        expect(mailTo(h.server.dataDir, email)).toEqual([]);
        // A canceled subscription refuses the same way.
        await setStripeSubscription(h.url, { teamId: team.id, status: 'canceled', seats: 5 });
        expect((await invite(owner, team, email)).status).toBe(402);
      });

      test('an existing member or a duplicate pending address is a 409; a bad address is a 400', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const first = await invite(owner, team, member.email);
        await call(h.url, 'POST', `/api/invites/${first.body.id}/accept`, { token: member.key });

        const again = await invite(owner, team, member.email.toUpperCase());
        expect(again.status).toBe(409);
        expect(again.body.error).toContain('already a member');
        expect((await invite(owner, team, owner.email)).status).toBe(409);

        const email = uniqueEmail('dup');
        expect((await invite(owner, team, email)).status).toBe(201);
        const dup = await invite(owner, team, ` ${email.toUpperCase()} `);
        expect(dup.status).toBe(409);
        expect(dup.body.error).toContain('pending invite');

        for (const bad of ['', 'not-an-email', 'a@b', 'x@example.com, y@example.com', 'a@example.com\r\nBcc: z@example.com']) {
          const r = await invite(owner, team, bad);
          expect(r.status).toBe(400);
          expect(typeof r.body.error).toBe('string');
        }
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: {} })).status).toBe(400);
        expect((await members(owner.key, team)).pendingInvites.length).toBe(1);
      });

      test('only the owner invites: a member gets 403, an outsider 404, and no invite exists', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const inv = await invite(owner, team, member.email);
        await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: member.key });
        const email = uniqueEmail('sneaky');
        const byMember = await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: member.key, body: { email } });
        expect(byMember.status).toBe(403);
        expect(typeof byMember.body.error).toBe('string');
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: outsider.key, body: { email } })).status).toBe(404);
        expect((await members(owner.key, team)).pendingInvites).toEqual([]);
        expect(mailTo(h.server.dataDir, email)).toEqual([]);
      });
    });

    describe('seats (the owner takes one; pending invites hold one each)', () => {
      test('invites stop at the seat count with 402; a declined invite frees its seat', async () => {
        const owner = await newAccount(h.url);
        const team = await paidTeam(h.url, owner, 3);
        const a = await signUp(uniqueEmail('seat-a'));
        expect((await invite(owner, team, a.email)).status).toBe(201);
        expect((await invite(owner, team, uniqueEmail('seat-b'))).status).toBe(201);
        const full = await invite(owner, team, uniqueEmail('seat-c'));
        expect(full.status).toBe(402);
        expect(full.body.error).toContain('seat');
        const mine = await myInvites(a.key);
        expect((await call(h.url, 'POST', `/api/invites/${mine[0]?.id}/decline`, { token: a.key })).status).toBe(204);
        expect((await invite(owner, team, uniqueEmail('seat-c'))).status).toBe(201);
      });

      test('accepting needs a free seat: with seats lowered to the member count, accept is 402 and the invite stays pending', async () => {
        const owner = await newAccount(h.url);
        const team = await paidTeam(h.url, owner, 2);
        const a = await newAccount(h.url);
        const inv = await invite(owner, team, a.email);
        await setStripeSubscription(h.url, { teamId: team.id, type: 'customer.subscription.updated', seats: 1 });
        const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key });
        expect(r.status).toBe(402);
        expect(r.body.error).toContain('seat');
        expect((await members(owner.key, team)).members.length).toBe(1);
        expect((await myInvites(a.key)).map((i) => i.id)).toEqual([inv.body.id]);
        await setStripeSubscription(h.url, { teamId: team.id, type: 'customer.subscription.updated', seats: 2, created: nowSeconds() + 1 });
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key })).status).toBe(200);
      });

      test('accepting needs an active subscription', async () => {
        const owner = await newAccount(h.url);
        const team = await paidTeam(h.url, owner, 5);
        const a = await newAccount(h.url);
        const inv = await invite(owner, team, a.email);
        await setStripeSubscription(h.url, { teamId: team.id, type: 'customer.subscription.deleted', status: 'canceled' });
        const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key });
        expect(r.status).toBe(402);
        expect((await members(owner.key, team)).members.length).toBe(1);
      });
    });

    describe('accept and decline', () => {
      test('an invite is used once: accept, then accept or decline again is 409', async () => {
        const owner = await newAccount(h.url);
        const a = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const inv = await invite(owner, team, a.email);
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key })).status).toBe(200);
        const twice = await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key });
        expect(twice.status).toBe(409);
        expect(twice.body.error).toContain('accepted');
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/decline`, { token: a.key })).status).toBe(409);
        // Leaving does not revive the used invite.
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/leave`, { token: a.key })).status).toBe(204);
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key })).status).toBe(409);
        expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: a.key })).body).toEqual([]);
      });

      test('decline ends the invite (204): it leaves both lists and cannot be accepted after', async () => {
        const owner = await newAccount(h.url);
        const a = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const inv = await invite(owner, team, a.email);
        const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/decline`, { token: a.key });
        expect(r.status).toBe(204);
        expect(await myInvites(a.key)).toEqual([]);
        expect((await members(owner.key, team)).pendingInvites).toEqual([]);
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key })).status).toBe(409);
        expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: a.key })).body).toEqual([]);
        // A new invite to the same address can be sent after a decline.
        expect((await invite(owner, team, a.email)).status).toBe(201);
      });

      test('another account cannot see, accept or decline an invite addressed to someone else', async () => {
        const owner = await newAccount(h.url);
        const a = await newAccount(h.url);
        const thief = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const inv = await invite(owner, team, a.email);
        expect(await myInvites(thief.key)).toEqual([]);
        expect(await myInvites(owner.key)).toEqual([]);
        for (const action of ['accept', 'decline']) {
          const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/${action}`, { token: thief.key });
          expect(r.status).toBe(404);
          expect(typeof r.body.error).toBe('string');
        }
        // Not even the owner who sent it can accept it for someone else.
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: owner.key })).status).toBe(404);
        expect((await members(owner.key, team)).members.map((m: { userId: string }) => m.userId)).toEqual([owner.userId]);
        expect((await myInvites(a.key)).map((i) => i.id)).toEqual([inv.body.id]);
        expect((await call(h.url, 'POST', '/api/invites/inv_unknown/accept', { token: a.key })).status).toBe(404);
      });

      test('the owner can withdraw a pending invite; a member cannot', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const a = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const mInv = await invite(owner, team, member.email);
        await call(h.url, 'POST', `/api/invites/${mInv.body.id}/accept`, { token: member.key });
        const inv = await invite(owner, team, a.email);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${inv.body.id}`, { token: member.key })).status).toBe(403);
        expect((await myInvites(a.key)).length).toBe(1);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${inv.body.id}`, { token: owner.key })).status).toBe(204);
        expect(await myInvites(a.key)).toEqual([]);
        const r = await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key });
        expect(r.status).toBe(409);
        // Said in the words the dashboard uses ("Withdraw"), not the stored status.
        expect([r.body.error, r.body.code]).toEqual(["the team's owner withdrew this invite; ask them to invite you again", 'conflict']);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${inv.body.id}`, { token: owner.key })).status).toBe(404);
      });

      test('deleting the team ends its pending invites', async () => {
        const owner = await newAccount(h.url);
        const a = await newAccount(h.url);
        const team = await paidTeam(h.url, owner);
        const inv = await invite(owner, team, a.email);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}`, { token: owner.key })).status).toBe(204);
        expect(await myInvites(a.key)).toEqual([]);
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: a.key })).status).toBe(404);
      });
    });
  },
  TEAMS_ENV,
);
