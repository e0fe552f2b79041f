/** SPEC 4.5: teams, members, invites sent by a team, and endpoints shared with a team. */
import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import * as invites from '../../services/invites';
import * as teams from '../../services/teams';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, NoContent } from './models';

export const TeamBody = t.Object({
  id: t.String(),
  name: t.String(),
  ownerId: t.String(),
  createdAt: t.String({ description: 'ISO 8601' }),
  confirmedMembersOnly: t.Boolean({
    description:
      'Beyond SPEC 2.7: while true, an invite is accepted only by an account whose address is proven (403 `address_not_confirmed` otherwise). False unless the owner turned it on (PATCH)',
  }),
});

const TeamName = t.Object({ name: t.String({ maxLength: 1000 }) });

const TeamChange = t.Object({
  name: t.Optional(t.String({ maxLength: 1000 })),
  confirmedMembersOnly: t.Optional(
    t.Boolean({
      description:
        'Only members with a confirmed address: accepting an invite needs a proven address. Turning it on is 409 `conflict` while a member (not the owner) has an unproven one; the message names them',
    }),
  ),
});

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
  members: t.Array(
    t.Object({
      userId: t.String(),
      email: t.String(),
      role: t.String({ description: 'owner or member' }),
      emailVerified: t.Boolean({
        description: 'Whether the member\'s address was ever proven (beyond SPEC 2.8). Sign-up alone proves nothing: an unproven member may not own the address shown',
      }),
    }),
  ),
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
    .use(authMacro(ctx))
    .get('', async ({ user }) => (await teams.listTeams(ctx, user)).map(teams.publicTeam), {
      auth: 'account',
      response: { 200: t.Array(TeamBody), ...errors(...AUTH_ERRORS) },
      detail: { summary: 'Teams you own or belong to' },
    })
    .post(
      '',
      async ({ user, body, set }) => {
        const team = await teams.createTeam(ctx, user, body.name);
        set.status = 201;
        return teams.publicTeam(team);
      },
      { auth: 'account', body: TeamName, response: { 201: TeamBody, ...errors(400, ...AUTH_ERRORS, 409) }, detail: { summary: `Create a team (any account); you are its owner. At most ${ctx.config.teamLimit} owned teams (TEAM_LIMIT): past that, 409 with code "team_limit"` } },
    )
    .get('/:teamId', ({ user, params }) => teams.getTeam(ctx, user, params.teamId), {
      auth: 'account',
      response: { 200: TeamDetail, ...errors(...AUTH_ERRORS, 404) },
      detail: { summary: 'One team with your role and its Teams subscription (members only)' },
    })
    .patch(
      '/:teamId',
      async ({ user, params, body }) => teams.publicTeam(await teams.updateTeam(ctx, user, params.teamId, body)),
      {
        auth: 'account',
        body: TeamChange,
        response: { 200: TeamBody, ...errors(400, ...AUTH_ERRORS, 404, 409) },
        detail: {
          summary: 'Rename the team and/or set confirmedMembersOnly (owner only; at least one of the two, else 400)',
          description:
            'Turning `confirmedMembersOnly` on is 409 `conflict` while a member has not confirmed their address (the message says how many, and who): remove them or have them confirm first. Nothing changes on a refusal. The team as GET shows it may be sent back whole with fields changed: its read-only fields (id, ownerId, role, subscription, …) are ignored; any other field is 400.',
        },
      },
    )
    .delete(
      '/:teamId',
      async ({ user, params, set }) => {
        await teams.deleteTeam(ctx, user, params.teamId);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: 'Delete the team with every membership, invite and share (owner only)' } },
    )
    .get('/:teamId/members', ({ user, params }) => teams.listMembers(ctx, user, params.teamId), {
      auth: 'account',
      response: { 200: MembersBody, ...errors(...AUTH_ERRORS, 404) },
      detail: { summary: 'Members and pending invites (members only)' },
    })
    .delete(
      '/:teamId/members/:userId',
      async ({ user, params, set }) => {
        await teams.removeMember(ctx, user, params.teamId, params.userId);
        set.status = 204;
      },
      {
        auth: 'account',
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404, 409) },
        detail: { summary: 'Remove a member (owner only; the owner cannot be removed, 409); endpoints they shared leave the team' },
      },
    )
    .post(
      '/:teamId/leave',
      async ({ user, params, set }) => {
        await teams.leaveTeam(ctx, user, params.teamId);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404, 409) }, detail: { summary: 'Leave the team (members; the owner deletes the team instead, 409)' } },
    )
    .post(
      '/:teamId/invite',
      async ({ user, params, body, set }) => {
        const invite = await invites.inviteMember(ctx, user, params.teamId, body.email);
        set.status = 201;
        return invites.publicPendingInvite(invite);
      },
      {
        auth: 'account',
        body: t.Object({ email: t.String({ maxLength: 254 }) }),
        response: { 201: PendingInviteBody, ...errors(400, ...AUTH_ERRORS, 402, 404, 409, 503) },
        detail: { summary: 'Invite an email address (owner only; needs an active subscription and a free seat, else 402; 503 when the mail could not be sent, nothing saved)' },
      },
    )
    .delete(
      '/:teamId/invites/:inviteId',
      async ({ user, params, set }) => {
        await invites.revokeInvite(ctx, user, params.teamId, params.inviteId);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: 'Withdraw a pending invite (owner only)' } },
    )
    .get('/:teamId/endpoints', ({ user, params }) => teams.listTeamEndpoints(ctx, user, params.teamId), {
      auth: 'account',
      response: { 200: t.Array(SharedEndpointBody), ...errors(...AUTH_ERRORS, 404) },
      detail: { summary: 'Endpoints shared with the team; members read their captures by slug' },
    })
    .post(
      '/:teamId/endpoints',
      async ({ user, params, body, set }) => {
        const shared = await teams.shareEndpoint(ctx, user, params.teamId, body.endpointId);
        set.status = shared.created ? 201 : 200;
        return shared.endpoint;
      },
      {
        auth: 'account',
        body: t.Object({ endpointId: t.String({ maxLength: 200 }) }),
        response: { 200: SharedEndpointBody, 201: SharedEndpointBody, ...errors(400, ...AUTH_ERRORS, 402, 404) },
        detail: { summary: 'Share one of your endpoints with the team (needs an active subscription, else 402); 200 if already shared' },
      },
    )
    .delete(
      '/:teamId/endpoints/:endpointId',
      async ({ user, params, set }) => {
        await teams.unshareEndpoint(ctx, user, params.teamId, params.endpointId);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: "Unshare an endpoint (its owner, or the team's owner)" } },
    );
