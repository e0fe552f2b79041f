import { Elysia, t } from 'elysia';
import { requireAccount } from '../../services/auth';
import type { Ctx } from '../../services/context';
import * as pins from '../../services/pins';
import { authPlugin } from '../auth';
import { RequestRecord } from './models';

const ErrorBody = t.Object({ error: t.String(), code: t.String() });

/** Pinning (docs/retention.md): a pinned capture is kept past its plan's retention. */
export const pinRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
    .use(authPlugin(ctx))
    .post('/requests/:id/pin', ({ principal, params }) => pins.pin(ctx, requireAccount(principal), params.id), {
      params: t.Object({ id: t.String({ description: 'The captured request\'s id (req_…)' }) }),
      response: { 200: RequestRecord, 404: ErrorBody, 409: ErrorBody },
      detail: {
        summary: 'Pin a captured request: it is kept past the plan\'s retention and listed by GET /api/search/requests?pinned=true',
        description:
          `Pinning a pinned request changes nothing (200). An account holds at most ${ctx.config.retention.pinLimit} pins ` +
          '(PIN_LIMIT), counted on the account that owns the endpoint; past that, 409 with code "pin_limit".',
      },
    })
    .delete(
      '/requests/:id/pin',
      async ({ principal, params, set }) => {
        await pins.unpin(ctx, requireAccount(principal), params.id);
        set.status = 204;
      },
      {
        params: t.Object({ id: t.String({ description: 'The captured request\'s id (req_…)' }) }),
        response: { 204: t.Void(), 404: ErrorBody },
        detail: { summary: 'Unpin a captured request: it is removed with the others once past the plan\'s retention (204, also when it was not pinned)' },
      },
    );
