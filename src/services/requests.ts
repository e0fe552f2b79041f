/** Captured requests of the caller's endpoints: list, page, get one, clear. */
import type { Clock } from '../clock';
import { AppError } from '../errors';
import { captureIdFloor, isCaptureId } from '../ids';
import type { Capture } from '../model/capture';
import * as endpointStore from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { decodeCursor, encodeCursor } from './cursors';
import { getOwnEndpoint } from './endpoints';
import { markPinned, pinnedIdsOf } from './pins';
import { parseLimit, pinnedOnly } from './search-params';
import { getReadableEndpoint, readableEndpoints, scopeOf, visibleScopes } from './visibility';

/** A list's `limit` as the query string gives it (parseLimit: search's rule and words); above LIST_MAX_LIMIT is capped. */
export function clampLimit(ctx: Ctx, limit: string | undefined): number {
  const n = parseLimit(limit, ctx.config.listMaxLimit);
  return n === undefined ? ctx.config.listDefaultLimit : Math.min(n, ctx.config.listMaxLimit);
}

/** `limit` and `pinned` (as the query string gives it: `true`, `false`, empty) are checked before the endpoint is looked up. */
export async function listRequests(ctx: Ctx, user: UserRow, slug: string, limit?: string, pinned?: string): Promise<Capture[]> {
  const onlyPinned = pinnedOnly(pinned);
  const n = clampLimit(ctx, limit);
  const ep = await getReadableEndpoint(ctx, user, slug);
  if (!onlyPinned) return markPinned(ctx, await ctx.captures.list(scopeOf(ep), n));
  const ids = await pinnedIdsOf(ctx, [ep.id]);
  if (ids.length === 0) return [];
  const kept = await ctx.captures.search({ scopes: [scopeOf(ep)], ids, limit: n, offset: 0, order: 'desc' });
  return kept.map((c) => ({ ...c, pinned: true }));
}

/**
 * A position in the endpoint's captures for `after` (a stream's Last-Event-ID, a wait's start):
 * after the newest capture stored, as `newestId` has it, but never later than the moment the call
 * came in (`at`, the server's clock). The newest stored capture alone lets a slow answer count a
 * webhook sent right after the call as older, when the shipper stored it before the read (seen on
 * a loaded CI machine: the wait never saw its webhook); the moment alone would drop one sent while
 * the call was still on its way. So: captures stored before the call stay out, one received from
 * the call on is always in, and one in flight with the call is in unless it was stored by the read.
 */
export async function positionAt(ctx: Ctx, user: UserRow, slug: string, at: number): Promise<{ position: string; at: number }> {
  const ep = await getReadableEndpoint(ctx, user, slug);
  const [newest] = await ctx.captures.list(scopeOf(ep), 1);
  const stored = newest?.id ?? captureIdFloor(0);
  const moment = captureIdFloor(at);
  return { position: stored < moment ? stored : moment, at };
}

export async function pageRequests(ctx: Ctx, user: UserRow, slug: string, limit?: string, cursor?: string) {
  const n = clampLimit(ctx, limit);
  const ep = await getReadableEndpoint(ctx, user, slug);
  const before = cursor ? await decodeCursor(ctx, ep.id, cursor) : undefined;
  // One extra row tells whether another page exists without a count.
  const rows = await ctx.captures.list(scopeOf(ep), n + 1, before);
  const items = await markPinned(ctx, rows.slice(0, n));
  const last = items.at(-1);
  const hasMore = rows.length > n;
  return { items, cursor: hasMore && last ? await encodeCursor(ctx, ep.id, last) : null, hasMore };
}

export async function getRequest(ctx: Ctx, user: UserRow, id: string): Promise<Capture> {
  if (!isCaptureId(id)) throw new AppError('not_found', 'request not found');
  const found = await ctx.captures.get(id, await visibleScopes(ctx, user));
  if (!found) throw new AppError('not_found', 'request not found');
  return (await markPinned(ctx, [found]))[0] ?? found;
}

/** One capture and the endpoint it was sent to (`GET /api/requests/{id}`), read in one visibility check. */
export async function getRequestWithEndpoint(ctx: Ctx, user: UserRow, id: string): Promise<Capture & { endpointSlug: string; endpointUrl: string }> {
  if (!isCaptureId(id)) throw new AppError('not_found', 'request not found');
  const endpoints = await readableEndpoints(ctx, user);
  const found = await ctx.captures.get(id, endpoints.map(scopeOf));
  const endpoint = found && endpoints.find((e) => e.id === found.endpointId);
  if (!found || !endpoint) throw new AppError('not_found', 'request not found');
  const capture = (await markPinned(ctx, [found]))[0] ?? found;
  return { ...capture, endpointSlug: endpoint.slug, endpointUrl: `${ctx.config.receiverUrl}/w/${endpoint.slug}` };
}

/**
 * Clears an endpoint's captures by moving its watermark: captures received up to now disappear at
 * once on every query, whatever the store's delete latency.
 */
export async function clearRequests(ctx: Ctx, user: UserRow, slug: string): Promise<void> {
  const ep = await getOwnEndpoint(ctx, user, slug);
  const at = ctx.clock.now();
  await endpointStore.clearEndpoint(ctx.db, ep.id, at);
  await passed(ctx.clock, at);
}

/**
 * Waits (at most a few milliseconds) until the clock reads past `at`. The watermark hides captures
 * received up to and including its millisecond; a request sent after the clear answered, but
 * within that same millisecond, was hidden with them (a tight clear-then-send loop lost 30%).
 * Answering only once the millisecond is over puts every later capture after the watermark. A
 * test's clock that does not move is waited on for no longer than the bound.
 */
async function passed(clock: Clock, at: number): Promise<void> {
  for (let i = 0; i < 5 && clock.now() <= at; i++) await Bun.sleep(1);
}
