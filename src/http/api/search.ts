import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import * as search from '../../services/search';
import { MAX_HEADER_FILTERS, MAX_Q_LENGTH, readSearchQuery } from '../../services/search-params';
import { authMacro } from '../auth';
import { AUTH_ERRORS, errors, RequestRecord } from './models';

const TIME = 'a duration back from now (30s, 15m, 2h, 7d, 1w), ms since the epoch, or ISO 8601 (no zone = UTC)';

/** `header`, repeatable: one string or several (search, count and exports). */
export const headerParam = () =>
  t.Optional(
    t.Union([t.String(), t.Array(t.String())], {
      description:
        'name:value — a header of exactly this name (any case) whose value contains value (case-insensitive); ' +
        `name or name: — the header is present. Repeat for more (all must hold, at most ${MAX_HEADER_FILTERS}); ` +
        `each ≤ ${MAX_Q_LENGTH} chars. E.g. x-github-event:push`,
    }),
  );

// The schemas document the parameters; the values are read from the URL itself (so a repeated
// one is refused, not silently picked) and checked by the service, which names each bad one.
const criteria = {
  slug: t.Optional(t.String({ description: 'Only this endpoint (404 unless you may read it)' })),
  method: t.Optional(t.String({ description: 'HTTP method, any case' })),
  q: t.Optional(t.String({ description: `Case-insensitive text in path, body, header values or query string (≤ ${MAX_Q_LENGTH} chars)` })),
  header: headerParam(),
  from: t.Optional(t.String({ description: `Earliest receivedAt, inclusive: ${TIME}` })),
  to: t.Optional(t.String({ description: `Latest receivedAt, inclusive: ${TIME}` })),
  pinned: t.Optional(t.String({ description: 'true: only pinned captures; false or absent: all' })),
};

const paramsOf = (request: Request) => readSearchQuery(new URL(request.url).searchParams);

export const searchRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/search', detail: { tags: ['search'] } })
    .use(authMacro(ctx))
    .get('/requests', ({ user, request }) => search.searchRequests(ctx, user, paramsOf(request)), {
      auth: 'account',
      query: t.Object({
        ...criteria,
        limit: t.Optional(t.String({ description: `Default ${ctx.config.search.defaultLimit}, capped at ${ctx.config.search.maxLimit}` })),
        offset: t.Optional(t.String({ description: `Rows to skip, at most ${ctx.config.search.maxOffset}` })),
        order: t.Optional(t.String({ description: 'asc or desc (default) by receivedAt' })),
      }),
      response: { 200: t.Array(RequestRecord), ...errors(400, ...AUTH_ERRORS, 404) },
      detail: { summary: 'Captured requests matching the filters, across every endpoint you can read' },
    })
    .get('/requests/count', ({ user, request }) => search.countRequests(ctx, user, paramsOf(request)), {
      auth: 'account',
      query: t.Object(criteria),
      response: { 200: t.Object({ count: t.Integer() }), ...errors(400, ...AUTH_ERRORS, 404) },
      detail: { summary: 'How many captured requests match the filters (limit, offset and order are ignored)' },
    });
