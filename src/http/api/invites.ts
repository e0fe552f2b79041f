/** SPEC 4.6: invites addressed to the caller's email. */
import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import * as invites from '../../services/invites';
import { publicTeam } from '../../services/teams';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, NoContent } from './models';
import { TeamBody } from './teams';

const InviteBody = t.Object({
  id: t.String(),
  teamId: t.String(),
  teamName: t.String(),
  email: t.String(),
  invitedBy: t.Union([t.String(), t.Null()], { description: "Inviter's email" }),
  status: t.String({ description: 'pending' }),
  createdAt: t.String({ description: 'ISO 8601' }),
  expiresAt: t.String({ description: 'ISO 8601: createdAt + INVITE_TTL_DAYS; after it the invite is gone from this list and cannot be used' }),
});

export const inviteRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/invites', detail: { tags: ['teams'] } })
    .use(authMacro(ctx))
    .get('', ({ user }) => invites.listMyInvites(ctx, user), {
      auth: 'account',
      response: { 200: t.Array(InviteBody), ...errors(...AUTH_ERRORS) },
      detail: { summary: "Pending invites addressed to your account's email" },
    })
    .post(
      '/:inviteId/accept',
      async ({ user, params }) => publicTeam(await invites.acceptInvite(ctx, user, params.inviteId)),
      {
        auth: 'account',
        response: { 200: TeamBody, ...errors(...AUTH_ERRORS, 402, 404, 409) },
        detail: {
          summary:
            'Accept: you become a member and get the team (402 without an active subscription or a free seat; 409 once used or expired; 403 `address_not_confirmed` when the team takes only members with a confirmed address and yours is not, the invite stays pending)',
        },
      },
    )
    .post(
      '/:inviteId/decline',
      async ({ user, params, set }) => {
        await invites.declineInvite(ctx, user, params.inviteId);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404, 409) }, detail: { summary: 'Decline: the invite ends (409 once used or expired)' } },
    );
