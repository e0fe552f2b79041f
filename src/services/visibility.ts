/**
 * Read visibility: which endpoints a caller may read captures of (list, page, get one, search,
 * export, stream). The one place sharing (teams) is decided for reads; writes use `getOwnEndpoint`.
 */
import { AppError } from '../errors';
import type { EndpointScope } from '../stores/captures/types';
import * as endpointStore from '../stores/state/endpoints';
import type { EndpointRow, UserRow } from '../stores/state/schema';
import * as shareStore from '../stores/state/team-shares';
import type { Ctx } from './context';
import { isExpired } from './endpoints';

/**
 * The endpoint behind a slug if this user may READ its captures (list, page, search, stream);
 * 404 otherwise. Every read path goes through this or `visibleScopes`, so sharing (teams) is
 * decided in one place. Writes use `getOwnEndpoint`.
 *
 * Readable: the user's own endpoints, and endpoints shared with a team the user is in while that
 * team's subscription is active. Postgres is asked on every call (no cache), so leaving, removal,
 * unsharing, team deletion or a lapsed subscription takes effect on the next read on every node.
 */
export async function getReadableEndpoint(ctx: Pick<Ctx, 'db' | 'clock'>, user: UserRow, slug: string): Promise<EndpointRow> {
  const row = await endpointStore.findEndpointBySlug(ctx.db, slug);
  // Expired is gone, as on the receiver, though the sweeper has not deleted the row yet.
  if (row && !isExpired(row, ctx.clock.now()) && (row.userId === user.id || (await shareStore.isSharedWithUser(ctx.db, row.id, user.id)))) return row;
  throw new AppError('not_found', 'endpoint not found');
}

export const scopeOf = (e: EndpointRow): EndpointScope => ({ endpointId: e.id, since: e.clearedAt });

/** Endpoints whose captures this user may read: own, and shared with the user's active teams. */
export async function readableEndpoints(ctx: Ctx, user: UserRow): Promise<EndpointRow[]> {
  const now = ctx.clock.now();
  const [own, shared] = await Promise.all([endpointStore.listUserEndpoints(ctx.db, user.id, now), shareStore.listSharedWithUser(ctx.db, user.id)]);
  return [...own, ...shared.filter((e) => !isExpired(e, now))];
}

/** The scopes of readableEndpoints, each with its clear watermark. */
export async function visibleScopes(ctx: Ctx, user: UserRow): Promise<EndpointScope[]> {
  return (await readableEndpoints(ctx, user)).map(scopeOf);
}
