/**
 * Pinning (docs/retention.md): a pinned capture is kept past its plan's retention. A pin counts
 * against the account that made it (PIN_LIMIT each), also on an endpoint shared with it through a
 * team, so a member cannot fill the owner's cap; records read through the API say `pinned: true`.
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
    throw new AppError('pin_limit', `you already have ${limit} pinned requests (PIN_LIMIT, counting your pins on team endpoints); unpin one first`, {}, limit);
  }
  return { ...capture, pinned: true };
}

/**
 * Unpins a capture the caller may read; unpinning one that is not pinned changes nothing. Only the
 * endpoint's owner, or whoever pinned it, may: a team member who merely reads a shared endpoint
 * must not take the owner's pins away (retention would then remove those captures).
 */
export async function unpin(ctx: Ctx, user: UserRow, id: string): Promise<void> {
  // The caller's own pin counts against their cap: they may take it away even after leaving the
  // team that shared the endpoint (no read check; they pinned it, so they knew the id).
  if (await pinStore.unpinOwnPin(ctx.db, id, user.id)) return;
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
