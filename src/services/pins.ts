/**
 * Pinning (docs/retention.md): a pinned capture is kept past its plan's retention. Pins count
 * against the endpoint owner's account (PIN_LIMIT each); records read through the API say
 * `pinned: true`.
 */
import { AppError } from '../errors';
import type { Capture } from '../model/capture';
import * as pinStore from '../stores/state/pins';
import * as endpointStore from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { getRequest } from './requests';

/** Pins a capture the caller may read; pinning it again changes nothing. */
export async function pin(ctx: Ctx, user: UserRow, id: string, now = ctx.clock.now()): Promise<Capture> {
  const capture = await getRequest(ctx, user, id);
  const ep = await endpointStore.findEndpointById(ctx.db, capture.endpointId);
  if (!ep) throw new AppError('not_found', 'request not found');
  const limit = ctx.config.retention.pinLimit;
  const done = await pinStore.pinCapture(
    ctx.db,
    { captureId: capture.id, endpointId: ep.id, accountId: ep.userId ?? user.id, receivedAt: capture.receivedAt, pinnedAt: now, pinnedBy: user.id },
    limit,
  );
  if (done === 'limit') {
    throw new AppError('pin_limit', `this account already has ${limit} pinned requests (PIN_LIMIT); unpin one first`);
  }
  return { ...capture, pinned: true };
}

/**
 * Unpins a capture the caller may read; unpinning one that is not pinned changes nothing. Only the
 * endpoint's owner, or whoever pinned it, may: a team member who merely reads a shared endpoint
 * must not take the owner's pins away (retention would then remove those captures).
 */
export async function unpin(ctx: Ctx, user: UserRow, id: string): Promise<void> {
  const capture = await getRequest(ctx, user, id);
  if ((await pinStore.unpinCapture(ctx.db, capture.id, user.id)) === 'forbidden') {
    throw new AppError('forbidden', "only the endpoint's owner, or whoever pinned this request, can unpin it");
  }
}

/** The records with `pinned: true` on those that are pinned (one lookup for the page). */
export async function markPinned(ctx: Ctx, captures: Capture[]): Promise<Capture[]> {
  if (captures.length === 0) return captures;
  const pinned = await pinStore.pinnedAmong(
    ctx.db,
    captures.map((c) => c.id),
  );
  return pinned.size === 0 ? captures : captures.map((c) => (pinned.has(c.id) ? { ...c, pinned: true } : c));
}

/** Ids of the pinned captures of these endpoints (the `?pinned=true` filter). */
export async function pinnedIdsOf(ctx: Ctx, endpointIds: string[]): Promise<string[]> {
  return (await pinStore.pinsOfEndpoints(ctx.db, endpointIds)).map((p) => p.captureId);
}
