import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import * as pins from '../../services/pins';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, RequestRecord } from './models';

const PinParams = t.Object({ id: t.String({ description: "The captured request's id (req_…)" }) });

/** Pinning (docs/retention.md): a pinned capture is kept past its plan's retention. */
export const pinRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
    .use(authMacro(ctx))
    .post('/requests/:id/pin', ({ user, params }) => pins.pin(ctx, user, params.id), {
      auth: 'account',
      params: PinParams,
      response: { 200: RequestRecord, ...errors(...AUTH_ERRORS, 404, 409) },
      detail: {
        summary: "Pin a captured request: it is kept past the plan's retention and listed by GET /api/search/requests?pinned=true",
        description:
          `Pinning a pinned request changes nothing (200). An account holds at most ${ctx.config.retention.pinLimit} pins ` +
          '(PIN_LIMIT), counted on the account that pins (a team member\'s pins on a shared endpoint count against the member, ' +
          'not the owner); past that, 409 with code "pin_limit".',
      },
    })
    .delete(
      '/requests/:id/pin',
      async ({ user, params, set }) => {
        await pins.unpin(ctx, user, params.id);
        set.status = 204;
      },
      {
        auth: 'account',
        params: PinParams,
        response: { 204: t.Void(), ...errors(...AUTH_ERRORS, 404) },
        detail: {
          summary: "Unpin a captured request: it is removed with the others once past the plan's retention (204, also when it was not pinned)",
          description: "Only the endpoint's owner, or whoever pinned the request, may unpin it: a team member unpinning the owner's pin is 403. " +
            'Whoever pinned it may unpin it even after losing read access (having left the team), since it counts against them.',
        },
      },
    );
