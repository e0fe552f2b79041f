import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import { invalid } from '../../errors';
import * as requests from '../../services/requests';
import { givenOnce } from '../../services/search-params';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, listQuery, NoContent, pageQuery, RequestById, RequestPage, RequestRecord } from './models';

export const requestRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
    .use(authMacro(ctx))
    .get(
      '/endpoints/:slug/requests',
      ({ user, params, request }) => {
        const q = new URL(request.url).searchParams;
        // The plain list is one page, the newest: a script passing a cursor would get page 1
        // again and again, so the cursor is refused and the paged route named.
        if (q.has('cursor')) throw invalid(`cursor: the plain list takes no cursor (it answers the newest captures only); page with GET /api/endpoints/${params.slug}/requests/paginated, passing back the cursor each page returns`);
        return requests.listRequests(ctx, user, params.slug, givenOnce(q, 'limit'), givenOnce(q, 'pinned'));
      },
      {
        auth: 'account',
        query: listQuery(ctx.config.listMaxLimit),
        response: { 200: t.Array(RequestRecord), ...errors(400, ...AUTH_ERRORS, 404) },
        detail: {
          summary: `Captured requests, newest first (limit default ${ctx.config.listDefaultLimit}, max ${ctx.config.listMaxLimit}); pinned=true for the pinned ones only`,
          description: 'One page, the newest: it takes no cursor (400). To page, use /api/endpoints/{slug}/requests/paginated. A parameter given twice is 400.',
        },
      },
    )
    .get(
      '/endpoints/:slug/requests/paginated',
      ({ user, params, request }) => {
        const q = new URL(request.url).searchParams;
        return requests.pageRequests(ctx, user, params.slug, givenOnce(q, 'limit'), givenOnce(q, 'cursor'));
      },
      {
        auth: 'account',
        query: pageQuery(ctx.config.listMaxLimit),
        response: { 200: RequestPage, ...errors(400, ...AUTH_ERRORS, 404) },
        detail: { summary: 'Captured requests, newest first, one page at a time (pass cursor back)' },
      },
    )
    .delete(
      '/endpoints/:slug/requests',
      async ({ user, params, set }) => {
        await requests.clearRequests(ctx, user, params.slug);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: 'Delete every captured request of the endpoint; the endpoint stays' } },
    )
    .get('/requests/:id', ({ user, params }) => requests.getRequestWithEndpoint(ctx, user, params.id), {
      auth: 'account',
      response: { 200: RequestById, ...errors(...AUTH_ERRORS, 404) },
      detail: { summary: 'One captured request, with the slug and receiver URL of the endpoint it was sent to (endpointSlug, endpointUrl)' },
    });
