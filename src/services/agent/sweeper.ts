/**
 * Background clean-up: expired endpoints (sandbox endpoints of unclaimed agent keys, and accounts'
 * endpoints created with `expiresIn`), deleted and their captures queued for purging exactly as
 * DELETE /api/endpoints/{slug} does, and agent registrations long past their window. Readers and
 * the receiver treat an endpoint as gone from its expiresAt on; this only removes the rows.
 * Every API node runs it; the deletes are idempotent, so nodes never conflict.
 */
import { log } from '../../log';
import { deleteRegistrationsExpiredBefore } from '../../stores/state/agent';
import { deleteEndpoints, listExpiredEndpoints } from '../../stores/state/endpoints';
import type { Ctx } from '../context';
import { writeEndpoints } from '../endpoint-writes';
import { runEvery, type Periodic } from '../periodic';
import { errorMessage } from '../../unknown';

const DAY_MS = 24 * 3600_000;
/** A registration stays pollable this long after its window closed. */
export const REGISTRATION_RETENTION_MS = 7 * DAY_MS;

export async function sweepOnce(ctx: Ctx, now = ctx.clock.now()): Promise<void> {
  const expired = await listExpiredEndpoints(ctx.db, now, 500);
  await writeEndpoints(ctx, (w) =>
    deleteEndpoints(
      w,
      expired.map((e) => e.id),
      now,
    ),
  );
  await deleteRegistrationsExpiredBefore(ctx.db, now - REGISTRATION_RETENTION_MS);
}

/** Starts the periodic sweep; `stop` waits for a sweep under way. */
export function startAgentSweeper(ctx: Ctx, intervalMs = 60_000): Periodic {
  return runEvery(
    intervalMs,
    () => sweepOnce(ctx),
    (e) => log.warn('agent sweep failed', { error: errorMessage(e) }),
  );
}
