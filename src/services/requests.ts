/** Captured requests of the caller's endpoints: list, page, get one, clear. */
import { AppError } from '../errors';
import { isCaptureId } from '../ids';
import type { Capture } from '../model/capture';
import type { EndpointScope } from '../stores/captures/types';
import * as endpointStore from '../stores/state/endpoints';
import type { EndpointRow, UserRow } from '../stores/state/schema';
import * as teamStore from '../stores/state/teams';
import type { Ctx } from './context';
import { decodeCursor, encodeCursor } from './cursors';
import { getOwnEndpoint } from './endpoints';
import { markPinned } from './pins';

/**
 * The endpoint behind a slug if this user may READ its captures (list, page, search, stream);
 * 404 otherwise. Every read path goes through this or `visibleScopes`, so sharing (teams) is
 * decided in one place. Writes use `getOwnEndpoint`.
 *
 * Readable: the user's own endpoints, and endpoints shared with a team the user is in while that
 * team's subscription is active. Postgres is asked on every call (no cache), so leaving, removal,
 * unsharing, team deletion or a lapsed subscription takes effect on the next read on every node.
 */
export async function getReadableEndpoint(ctx: Pick<Ctx, 'db'>, user: UserRow, slug: string): Promise<EndpointRow> {
  const row = await endpointStore.findEndpointBySlug(ctx.db, slug);
  if (row && (row.userId === user.id || (await teamStore.isSharedWithUser(ctx.db, row.id, user.id)))) return row;
  throw new AppError('not_found', 'endpoint not found');
}

export const scopeOf = (e: EndpointRow): EndpointScope => ({ endpointId: e.id, since: e.clearedAt });

export function clampLimit(ctx: Ctx, limit: number | undefined): number {
  if (limit === undefined) return ctx.config.listDefaultLimit;
  if (!Number.isInteger(limit) || limit < 1) throw new AppError('validation', 'limit must be a positive integer');
  return Math.min(limit, ctx.config.listMaxLimit);
}

export async function listRequests(ctx: Ctx, user: UserRow, slug: string, limit?: number): Promise<Capture[]> {
  const ep = await getReadableEndpoint(ctx, user, slug);
  return markPinned(ctx, await ctx.captures.list(scopeOf(ep), clampLimit(ctx, limit)));
}

export async function pageRequests(ctx: Ctx, user: UserRow, slug: string, limit?: number, cursor?: string) {
  const ep = await getReadableEndpoint(ctx, user, slug);
  const n = clampLimit(ctx, limit);
  const before = cursor ? await decodeCursor(ctx, ep.id, cursor) : undefined;
  // One extra row tells whether another page exists without a count.
  const rows = await ctx.captures.list(scopeOf(ep), n + 1, before);
  const items = await markPinned(ctx, rows.slice(0, n));
  const last = items.at(-1);
  const hasMore = rows.length > n;
  return { items, cursor: hasMore && last ? await encodeCursor(ctx, ep.id, last) : null, hasMore };
}

/** Endpoints whose captures this user may read: own, and shared with the user's active teams. */
export async function readableEndpoints(ctx: Ctx, user: UserRow): Promise<EndpointRow[]> {
  const [own, shared] = await Promise.all([endpointStore.listUserEndpoints(ctx.db, user.id), teamStore.listSharedWithUser(ctx.db, user.id)]);
  return [...own, ...shared];
}

/** The scopes of readableEndpoints, each with its clear watermark. */
export async function visibleScopes(ctx: Ctx, user: UserRow): Promise<EndpointScope[]> {
  return (await readableEndpoints(ctx, user)).map(scopeOf);
}

export async function getRequest(ctx: Ctx, user: UserRow, id: string): Promise<Capture> {
  if (!isCaptureId(id)) throw new AppError('not_found', 'request not found');
  const found = await ctx.captures.get(id, await visibleScopes(ctx, user));
  if (!found) throw new AppError('not_found', 'request not found');
  return (await markPinned(ctx, [found]))[0] ?? found;
}

/**
 * Clears an endpoint's captures by moving its watermark: captures received up to now disappear at
 * once on every query, whatever the store's delete latency.
 */
export async function clearRequests(ctx: Ctx, user: UserRow, slug: string): Promise<void> {
  const ep = await getOwnEndpoint(ctx, user, slug);
  await endpointStore.clearEndpoint(ctx.db, ep.id, Date.now());
}
