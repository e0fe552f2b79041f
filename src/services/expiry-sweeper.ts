/**
 * Background clean-up: expired endpoints (sandbox endpoints of unclaimed agent keys, and accounts'
 * endpoints created with `expiresIn`), deleted and their captures queued for purging exactly as
 * DELETE /api/endpoints/{slug} does, and agent registrations long past their window. Readers and
 * the receiver treat an endpoint as gone from its expiresAt on; this only removes the rows.
 * Every API node runs it; the deletes are idempotent, so nodes never conflict.
 */
import { log } from '../log';
import { deleteRegistrationsExpiredBefore } from '../stores/state/agent';
import { deleteEndpoints, listExpiredEndpoints } from '../stores/state/endpoints';
import type { Ctx } from './context';
import { writeEndpoints } from './endpoint-writes';
import { runEvery, type Periodic } from './periodic';
import { errorMessage } from '../unknown';

const DAY_MS = 24 * 3600_000;
/** A registration stays pollable this long after its window closed. */
export const REGISTRATION_RETENTION_MS = 7 * DAY_MS;

/** Expired endpoints deleted per transaction, and transactions per sweep at most (the rest wait a minute). */
const SWEEP_BATCH = 500;
const SWEEP_BATCHES = 20;

export async function sweepOnce(ctx: Ctx, now = ctx.clock.now()): Promise<void> {
  // Many CI runs' endpoints may expire in the same minute: batches until none is left, bounded.
  for (let i = 0; i < SWEEP_BATCHES; i++) {
    const expired = await listExpiredEndpoints(ctx.db, now, SWEEP_BATCH);
    if (expired.length === 0) break;
    await writeEndpoints(ctx, (w) =>
      deleteEndpoints(
        w,
        expired.map((e) => e.id),
        now,
      ),
    );
    if (expired.length < SWEEP_BATCH) break;
  }
  await deleteRegistrationsExpiredBefore(ctx.db, now - REGISTRATION_RETENTION_MS);
}

/** Starts the periodic sweep; `stop` waits for a sweep under way. */
export function startExpirySweeper(ctx: Ctx, intervalMs = 60_000): Periodic {
  return runEvery(
    intervalMs,
    () => sweepOnce(ctx),
    (e) => log.warn('expiry sweep failed', { error: errorMessage(e) }),
  );
}
