import { Elysia, t } from 'elysia';
import { requireAccount } from '../../services/auth';
import type { Ctx } from '../../services/context';
import * as requests from '../../services/requests';
import { authPlugin } from '../auth';
import { LimitQuery, PageQuery, RequestPage, RequestRecord } from './models';

export const requestRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
    .use(authPlugin(ctx))
    .get(
      '/endpoints/:slug/requests',
      ({ principal, params, query }) => requests.listRequests(ctx, requireAccount(principal), params.slug, query.limit),
      {
        query: LimitQuery,
        response: { 200: t.Array(RequestRecord) },
        detail: { summary: `Captured requests, newest first (limit default ${ctx.config.listDefaultLimit}, max ${ctx.config.listMaxLimit})` },
      },
    )
    .get(
      '/endpoints/:slug/requests/paginated',
      ({ principal, params, query }) =>
        requests.pageRequests(ctx, requireAccount(principal), params.slug, query.limit, query.cursor),
      {
        query: PageQuery,
        response: { 200: RequestPage },
        detail: { summary: 'Captured requests, newest first, one page at a time (pass cursor back)' },
      },
    )
    .delete(
      '/endpoints/:slug/requests',
      async ({ principal, params, set }) => {
        await requests.clearRequests(ctx, requireAccount(principal), params.slug);
        set.status = 204;
      },
      { detail: { summary: 'Delete every captured request of the endpoint; the endpoint stays' } },
    )
    .get('/requests/:id', ({ principal, params }) => requests.getRequest(ctx, requireAccount(principal), params.id), {
      response: { 200: RequestRecord },
      detail: { summary: 'One captured request' },
    });
