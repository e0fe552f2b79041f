/**
 * Search and count captured requests across every endpoint the caller may read (SPEC 4.2).
 * Visibility comes only from `getReadableEndpoint` / `visibleScopes`, so sharing rules added
 * there apply here too, and each scope carries its endpoint's clear watermark.
 */
import type { Capture } from '../model/capture';
import type { EndpointScope, SearchFilter } from '../stores/captures/types';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { pinnedIdsOf, markPinned } from './pins';
import { getReadableEndpoint, scopeOf, visibleScopes } from './visibility';
import { parseSearchCriteria, parseSearchPage, type RawSearchQuery, type SearchCriteria } from './search-params';

/** One endpoint when `slug` is given (404 unless readable), otherwise every readable one. */
async function scopesFor(ctx: Ctx, user: UserRow, slug: string | undefined): Promise<EndpointScope[]> {
  if (slug === undefined) return visibleScopes(ctx, user);
  return [scopeOf(await getReadableEndpoint(ctx, user, slug))];
}

/** The filter; with `pinned`, only the pinned captures of those endpoints. */
async function filterOf(ctx: Ctx, scopes: EndpointScope[], c: SearchCriteria): Promise<SearchFilter> {
  const filter: SearchFilter = { scopes };
  if (c.pinned) filter.ids = await pinnedIdsOf(ctx, scopes.map((s) => s.endpointId));
  if (c.method !== undefined) filter.method = c.method;
  if (c.q !== undefined) filter.q = c.q;
  if (c.headers !== undefined) filter.headers = c.headers;
  if (c.from !== undefined) filter.from = c.from;
  if (c.to !== undefined) filter.to = c.to;
  return filter;
}

/** Matching request records, ordered by (receivedAt, id); `raw` is the query string as sent. */
export async function searchRequests(ctx: Ctx, user: UserRow, raw: RawSearchQuery, now = ctx.clock.now()): Promise<Capture[]> {
  // Parameters are checked before any lookup, so a bad value is a 400 even for an unknown slug.
  const p = parseSearchPage(raw, ctx.config.search, now);
  const scopes = await scopesFor(ctx, user, p.slug);
  if (scopes.length === 0) return [];
  const filter = await filterOf(ctx, scopes, p);
  if (filter.ids?.length === 0) return [];
  return markPinned(ctx, await ctx.captures.search({ ...filter, limit: p.limit, offset: p.offset, order: p.order }));
}

/** How many request records match; the same criteria as search, without paging. */
export async function countRequests(ctx: Ctx, user: UserRow, raw: RawSearchQuery, now = ctx.clock.now()): Promise<{ count: number }> {
  const c = parseSearchCriteria(raw, now);
  const scopes = await scopesFor(ctx, user, c.slug);
  if (scopes.length === 0) return { count: 0 };
  const filter = await filterOf(ctx, scopes, c);
  if (filter.ids?.length === 0) return { count: 0 };
  return { count: await ctx.captures.count(filter) };
}
