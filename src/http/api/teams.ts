/** SPEC 4.5: teams, members, invites sent by a team, and endpoints shared with a team. */
import { Elysia, t } from 'elysia';
import { requireAccount } from '../../services/auth';
import type { Ctx } from '../../services/context';
import * as invites from '../../services/invites';
import * as teams from '../../services/teams';
import { authPlugin } from '../auth';

export const TeamBody = t.Object({
  id: t.String(),
  name: t.String(),
  ownerId: t.String(),
  createdAt: t.String({ description: 'ISO 8601' }),
});

const TeamName = t.Object({ name: t.String({ maxLength: 1000 }) });

const SubscriptionBody = t.Object({
  status: t.String({ description: "Stripe's status words (active, trialing, past_due, canceled, …), or none" }),
  active: t.Boolean(),
  seats: t.Integer(),
  seatsUsed: t.Integer({ description: 'Owner and members' }),
  pendingInvites: t.Integer({ description: 'Each pending invite holds a seat' }),
  pricePerSeatUsd: t.Integer(),
  currentPeriodEnd: t.Union([t.String(), t.Null()]),
});

const TeamDetail = t.Composite([TeamBody, t.Object({ role: t.String(), subscription: SubscriptionBody })]);

const PendingInviteBody = t.Object({ id: t.String(), email: t.String(), createdAt: t.String({ description: 'ISO 8601' }) });

const MembersBody = t.Object({
  members: t.Array(t.Object({ userId: t.String(), email: t.String(), role: t.String({ description: 'owner or member' }) })),
  pendingInvites: t.Array(PendingInviteBody),
});

const SharedEndpointBody = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  url: t.String(),
  createdAt: t.Integer({ description: 'ms since epoch, as on endpoints' }),
  ownerId: t.String(),
  ownerEmail: t.String(),
  sharedAt: t.String({ description: 'ISO 8601' }),
});

export const teamRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/teams', detail: { tags: ['teams'] } })
    .use(authPlugin(ctx))
    .get('', async ({ principal }) => (await teams.listTeams(ctx, requireAccount(principal))).map(teams.publicTeam), {
      response: { 200: t.Array(TeamBody) },
      detail: { summary: 'Teams you own or belong to' },
    })
    .post(
      '',
      async ({ principal, body, set }) => {
        const team = await teams.createTeam(ctx, requireAccount(principal), body.name);
        set.status = 201;
        return teams.publicTeam(team);
      },
      { body: TeamName, response: { 201: TeamBody }, detail: { summary: 'Create a team (any account); you are its owner' } },
    )
    .get('/:teamId', ({ principal, params }) => teams.getTeam(ctx, requireAccount(principal), params.teamId), {
      response: { 200: TeamDetail },
      detail: { summary: 'One team with your role and its Teams subscription (members only)' },
    })
    .patch(
      '/:teamId',
      async ({ principal, params, body }) => teams.publicTeam(await teams.renameTeam(ctx, requireAccount(principal), params.teamId, body.name)),
      { body: TeamName, response: { 200: TeamBody }, detail: { summary: 'Rename the team (owner only)' } },
    )
    .delete(
      '/:teamId',
      async ({ principal, params, set }) => {
        await teams.deleteTeam(ctx, requireAccount(principal), params.teamId);
        set.status = 204;
      },
      { detail: { summary: 'Delete the team with every membership, invite and share (owner only)' } },
    )
    .get('/:teamId/members', ({ principal, params }) => teams.listMembers(ctx, requireAccount(principal), params.teamId), {
      response: { 200: MembersBody },
      detail: { summary: 'Members and pending invites (members only)' },
    })
    .delete(
      '/:teamId/members/:userId',
      async ({ principal, params, set }) => {
        await teams.removeMember(ctx, requireAccount(principal), params.teamId, params.userId);
        set.status = 204;
      },
      { detail: { summary: 'Remove a member (owner only); endpoints they shared leave the team' } },
    )
    .post(
      '/:teamId/leave',
      async ({ principal, params, set }) => {
        await teams.leaveTeam(ctx, requireAccount(principal), params.teamId);
        set.status = 204;
      },
      { detail: { summary: 'Leave the team (members; the owner deletes the team instead, 409)' } },
    )
    .post(
      '/:teamId/invite',
      async ({ principal, params, body, set }) => {
        const invite = await invites.inviteMember(ctx, requireAccount(principal), params.teamId, body.email);
        set.status = 201;
        return invites.publicPendingInvite(invite);
      },
      {
        body: t.Object({ email: t.String({ maxLength: 254 }) }),
        response: { 201: PendingInviteBody },
        detail: { summary: 'Invite an email address (owner only; needs an active subscription and a free seat, else 402)' },
      },
    )
    .delete(
      '/:teamId/invites/:inviteId',
      async ({ principal, params, set }) => {
        await invites.revokeInvite(ctx, requireAccount(principal), params.teamId, params.inviteId);
        set.status = 204;
      },
      { detail: { summary: 'Withdraw a pending invite (owner only)' } },
    )
    .get('/:teamId/endpoints', ({ principal, params }) => teams.listTeamEndpoints(ctx, requireAccount(principal), params.teamId), {
      response: { 200: t.Array(SharedEndpointBody) },
      detail: { summary: 'Endpoints shared with the team; members read their captures by slug' },
    })
    .post(
      '/:teamId/endpoints',
      async ({ principal, params, body, set }) => {
        const shared = await teams.shareEndpoint(ctx, requireAccount(principal), params.teamId, body.endpointId);
        set.status = shared.created ? 201 : 200;
        return shared.endpoint;
      },
      {
        body: t.Object({ endpointId: t.String({ maxLength: 200 }) }),
        response: { 200: SharedEndpointBody, 201: SharedEndpointBody },
        detail: { summary: 'Share one of your endpoints with the team (needs an active subscription, else 402); 200 if already shared' },
      },
    )
    .delete(
      '/:teamId/endpoints/:endpointId',
      async ({ principal, params, set }) => {
        await teams.unshareEndpoint(ctx, requireAccount(principal), params.teamId, params.endpointId);
        set.status = 204;
      },
      { detail: { summary: "Unshare an endpoint (its owner, or the team's owner)" } },
    );
