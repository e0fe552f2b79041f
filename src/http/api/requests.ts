import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import { invalid } from '../../errors';
import * as requests from '../../services/requests';
import { givenOnce } from '../../services/search-params';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, listQuery, NoContent, pageQuery, Position, RequestById, RequestPage, RequestRecord } from './models';

export const requestRoutes = (ctx: Ctx) => {
  /** When each position call came in (its transform hook), read by its handler. */
  const arrivals = new WeakMap<Request, number>();
  return new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
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
    .get('/endpoints/:slug/position', ({ user, params, request }) => requests.positionAt(ctx, user, params.slug, arrivals.get(request) ?? ctx.clock.now()), {
      // The moment is read before the caller is authenticated (a key looked up in Postgres can
      // take a while under load), so a webhook sent right after this call is never older than it.
      transform: ({ request }) => void arrivals.set(request, ctx.clock.now()),
      auth: 'account',
      response: { 200: Position, ...errors(...AUTH_ERRORS, 404) },
      detail: {
        summary: 'A position for `after` (and a stream\'s Last-Event-ID): every capture the endpoint receives from this call on has a greater id',
        description:
          'The lowest capture id of the moment the server read the call (its clock). Waiting for a webhook that is sent right after: take the position, then wait after it. ' +
          'Not the newest stored capture\'s id, which lags captures not yet stored and can include ones stored while the call was answered.',
      },
    })
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
};
