import { describe, expect, test } from 'bun:test';
import { call, itemAt, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';
import { createTeam, joinTeam, paidTeam, TEAMS_ENV, verificationToken, type Team } from './teams-support';

const ISO = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/;

describeBackends(
  'teams (SPEC 4.5)',
  (h) => {
    const teamIds = async (token: string) => (await call<Team[]>(h.url, 'GET', '/api/teams', { token })).body.map((t) => t.id);

    describe('create and list', () => {
      test('any account creates a team: 201, Team object with an ISO 8601 createdAt, owner = caller', async () => {
        const a = await newAccount(h.url);
        const before = Date.now();
        const r = await call(h.url, 'POST', '/api/teams', { token: a.key, body: { name: '  Platform  ' } });
        expect(r.status).toBe(201);
        expect(Object.keys(r.body).sort()).toEqual(['confirmedMembersOnly', 'createdAt', 'id', 'name', 'ownerId']);
        expect(r.body.confirmedMembersOnly).toBe(false);
        expect(r.body.id).toStartWith('team_');
        expect(r.body.name).toBe('Platform');
        expect(r.body.ownerId).toBe(a.userId);
        expect(r.body.createdAt).toMatch(ISO);
        expect(Date.parse(r.body.createdAt)).toBeGreaterThanOrEqual(before - 1000);
        const list = await call<Team[]>(h.url, 'GET', '/api/teams', { token: a.session });
        expect(list.status).toBe(200);
        expect(list.body).toEqual([r.body]);
      });

      test('a bad name is a 400 JSON error and creates nothing', async () => {
        const a = await newAccount(h.url);
        for (const body of [{}, { name: '' }, { name: '   ' }, { name: 42 }, { name: 'x'.repeat(101) }, { name: 'two\nlines' }]) {
          const r = await call(h.url, 'POST', '/api/teams', { token: a.key, body });
          expect(r.status).toBe(400);
          expect(typeof r.body.error).toBe('string');
        }
        expect(await teamIds(a.key)).toEqual([]);
      });

      test('the list holds teams owned and joined, never anyone else\'s', async () => {
        const a = await newAccount(h.url);
        const b = await newAccount(h.url);
        const c = await newAccount(h.url);
        const ta = await paidTeam(h.url, a, 5, 'A team');
        const tb = await createTeam(h.url, b.key, 'B team');
        await joinTeam(h.url, a, ta, b);
        expect((await teamIds(b.key)).sort()).toEqual([ta.id, tb.id].sort());
        expect(await teamIds(a.key)).toEqual([ta.id]);
        expect(await teamIds(c.key)).toEqual([]);
      });

      test('an account owns at most TEAM_LIMIT teams: past that 409 team_limit, created again after a delete', async () => {
        const a = await newAccount(h.url);
        const b = await newAccount(h.url);
        // Teams joined do not count: a is a member of b's team.
        await joinTeam(h.url, b, await paidTeam(h.url, b, 5, 'B team'), a);
        // Three at once against a cap of three (TEAM_LIMIT below): the count is taken under a lock.
        const first = await createTeam(h.url, a.key, 'one');
        const racing = await Promise.all(['two', 'three', 'four'].map((name) => call<Team>(h.url, 'POST', '/api/teams', { token: a.key, body: { name } })));
        expect(racing.map((r) => r.status).sort()).toEqual([201, 201, 409]);
        const over = await call(h.url, 'POST', '/api/teams', { token: a.session, body: { name: 'five' } });
        expect(over.status).toBe(409);
        expect(over.body.code).toBe('team_limit');
        expect(over.body.error).toContain('you already own 3 teams');
        expect(over.body.limit).toBe(3);
        expect((await teamIds(a.key)).length).toBe(4);
        expect((await call(h.url, 'DELETE', `/api/teams/${first.id}`, { token: a.key })).status).toBe(204);
        expect((await call(h.url, 'POST', '/api/teams', { token: a.key, body: { name: 'five' } })).status).toBe(201);
        // Another account's cap is its own.
        expect((await call(h.url, 'POST', '/api/teams', { token: b.key, body: { name: 'B two' } })).status).toBe(201);
      });

      test("the OpenAPI document states this server's TEAM_LIMIT, not the default", async () => {
        const doc = (await call<{ paths: Record<string, { post?: { summary?: string } }> }>(h.url, 'GET', '/docs/json')).body;
        expect(doc.paths['/api/teams']?.post?.summary).toContain('At most 3 owned teams (TEAM_LIMIT)');
      });

      test('without credentials every team route is 401', async () => {
        const a = await newAccount(h.url);
        const t = await createTeam(h.url, a.key);
        for (const [method, path] of [
          ['GET', '/api/teams'],
          ['POST', '/api/teams'],
          ['GET', `/api/teams/${t.id}/members`],
          ['DELETE', `/api/teams/${t.id}`],
          ['GET', '/api/invites'],
        ] as const) {
          const r = await call(h.url, method, path, method === 'POST' ? { body: { name: 'x' } } : {});
          expect(r.status).toBe(401);
        }
      });
    });

    describe('owner-only routes, tried by a member and by an outsider', () => {
      test('rename: owner 200; member 403 with a JSON error; outsider 404; the name stays', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await paidTeam(h.url, owner, 5, 'Before');
        await joinTeam(h.url, owner, t, member);

        const byMember = await call(h.url, 'PATCH', `/api/teams/${t.id}`, { token: member.key, body: { name: 'Hijacked' } });
        expect(byMember.status).toBe(403);
        expect(byMember.body.error).toContain('owner');
        const byOutsider = await call(h.url, 'PATCH', `/api/teams/${t.id}`, { token: outsider.key, body: { name: 'Hijacked' } });
        expect(byOutsider.status).toBe(404);
        expect(typeof byOutsider.body.error).toBe('string');
        expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: owner.key })).body[0]?.name).toBe('Before');

        const ok = await call(h.url, 'PATCH', `/api/teams/${t.id}`, { token: owner.key, body: { name: 'After' } });
        expect(ok.status).toBe(200);
        expect(ok.body).toEqual({ ...t, name: 'After' });
        expect((await call(h.url, 'PATCH', `/api/teams/${t.id}`, { token: owner.key, body: { name: ' ' } })).status).toBe(400);
        expect((await call<Team[]>(h.url, 'GET', '/api/teams', { token: member.key })).body[0]?.name).toBe('After');
      });

      test('delete: member 403, outsider 404, owner 204; then the team is gone for everyone', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await paidTeam(h.url, owner);
        await joinTeam(h.url, owner, t, member);

        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}`, { token: member.key })).status).toBe(403);
        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}`, { token: outsider.key })).status).toBe(404);
        expect(await teamIds(member.key)).toEqual([t.id]);

        const del = await call(h.url, 'DELETE', `/api/teams/${t.id}`, { token: owner.key });
        expect(del.status).toBe(204);
        expect(del.text).toBe('');
        expect(await teamIds(owner.key)).toEqual([]);
        expect(await teamIds(member.key)).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: owner.key })).status).toBe(404);
        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}`, { token: owner.key })).status).toBe(404);
      });

      test('remove member: owner 204; a member removing another 403; outsider 404; owner cannot be removed', async () => {
        const owner = await newAccount(h.url);
        const m1 = await newAccount(h.url);
        const m2 = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await paidTeam(h.url, owner);
        await joinTeam(h.url, owner, t, m1);
        await joinTeam(h.url, owner, t, m2);

        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${m2.userId}`, { token: m1.key })).status).toBe(403);
        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${m2.userId}`, { token: outsider.key })).status).toBe(404);
        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${owner.userId}`, { token: m1.key })).status).toBe(403);
        const removeOwner = await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${owner.userId}`, { token: owner.key });
        expect(removeOwner.status).toBe(409);
        expect(removeOwner.body.error).toContain('delete the team');
        expect((await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${outsider.userId}`, { token: owner.key })).status).toBe(404);
        expect(await teamIds(m2.key)).toEqual([t.id]);

        const r = await call(h.url, 'DELETE', `/api/teams/${t.id}/members/${m2.userId}`, { token: owner.key });
        expect(r.status).toBe(204);
        expect(await teamIds(m2.key)).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: m2.key })).status).toBe(404);
        const members = (await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: owner.key })).body.members;
        expect(members.map((m: { userId: string }) => m.userId)).toEqual([owner.userId, m1.userId]);
      });
    });

    describe('leave', () => {
      test('a member leaves (204) and the team is gone from their list', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const t = await paidTeam(h.url, owner);
        await joinTeam(h.url, owner, t, member);
        const r = await call(h.url, 'POST', `/api/teams/${t.id}/leave`, { token: member.key });
        expect(r.status).toBe(204);
        expect(await teamIds(member.key)).toEqual([]);
        expect((await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: member.key })).status).toBe(404);
        // Leaving again, or leaving a team one never joined, finds no team.
        expect((await call(h.url, 'POST', `/api/teams/${t.id}/leave`, { token: member.key })).status).toBe(404);
        const members = (await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: owner.key })).body.members;
        expect(members).toEqual([{ userId: owner.userId, email: owner.email, role: 'owner', emailVerified: false }]);
      });

      test('the owner is refused with a clear error telling them to delete the team', async () => {
        const owner = await newAccount(h.url);
        const t = await createTeam(h.url, owner.key);
        const r = await call(h.url, 'POST', `/api/teams/${t.id}/leave`, { token: owner.key });
        expect(r.status).toBe(409);
        expect(r.body.code).toBe('conflict');
        expect(r.body.error).toContain('delete the team');
        expect(await teamIds(owner.key)).toEqual([t.id]);
      });

      test('an outsider cannot leave a team they are not in', async () => {
        const owner = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await createTeam(h.url, owner.key);
        expect((await call(h.url, 'POST', `/api/teams/${t.id}/leave`, { token: outsider.key })).status).toBe(404);
      });
    });

    describe('members list', () => {
      test('members with roles and pending invites with ISO 8601 times; members may read it, outsiders get 404', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await paidTeam(h.url, owner);
        await joinTeam(h.url, owner, t, member);
        const inv = await call(h.url, 'POST', `/api/teams/${t.id}/invite`, { token: owner.key, body: { email: 'pending.person@example.com' } });
        expect(inv.status).toBe(201);

        for (const token of [owner.key, member.key]) {
          const r = await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token });
          expect(r.status).toBe(200);
          expect(r.body).toEqual({
            members: [
              { userId: owner.userId, email: owner.email, role: 'owner', emailVerified: false },
              { userId: member.userId, email: member.email, role: 'member', emailVerified: false },
            ],
            pendingInvites: [{ id: inv.body.id, email: 'pending.person@example.com', createdAt: inv.body.createdAt }],
          });
          expect(itemAt(r.body.pendingInvites).createdAt).toMatch(ISO);
        }
        const denied = await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: outsider.key });
        expect(denied.status).toBe(404);
        expect(denied.text).not.toContain(owner.email);
        expect((await call(h.url, 'GET', `/api/teams/team_doesnotexist/members`, { token: owner.key })).status).toBe(404);
      });

      test('each member says whether their address is proven: a sign-up alone is not, its mailed link is', async () => {
        const owner = await newAccount(h.url);
        const proven = await newAccount(h.url);
        const unproven = await newAccount(h.url);
        const t = await paidTeam(h.url, owner);
        await joinTeam(h.url, owner, t, proven);
        await joinTeam(h.url, owner, t, unproven);
                const link = await verificationToken(h.server.dataDir, proven.email);
        expect((await call(h.url, 'POST', '/api/auth/verify-email', { body: { token: link } })).status).toBe(200);
        const listed = (await call(h.url, 'GET', `/api/teams/${t.id}/members`, { token: owner.key })).body.members;
        expect(listed.map((m) => [m.email, m.emailVerified])).toEqual([
          [owner.email, false],
          [proven.email, true],
          [unproven.email, false],
        ]);
      });

      test('GET /api/teams/{id} shows the role and subscription to members only', async () => {
        const owner = await newAccount(h.url);
        const member = await newAccount(h.url);
        const outsider = await newAccount(h.url);
        const t = await paidTeam(h.url, owner, 3);
        await joinTeam(h.url, owner, t, member);
        const mine = await call(h.url, 'GET', `/api/teams/${t.id}`, { token: owner.key });
        expect(mine.status).toBe(200);
        expect(mine.body).toMatchObject({ ...t, role: 'owner', subscription: { status: 'active', active: true, seats: 3, seatsUsed: 2, pendingInvites: 0, pricePerSeatUsd: 12 } });
        expect((await call(h.url, 'GET', `/api/teams/${t.id}`, { token: member.key })).body.role).toBe('member');
        expect((await call(h.url, 'GET', `/api/teams/${t.id}`, { token: outsider.key })).status).toBe(404);
      });
    });
  },
  // A small cap, so the limit is reached in a few calls (the default is 20).
  { ...TEAMS_ENV, TEAM_LIMIT: '3' },
);
