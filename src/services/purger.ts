/** Removes the captures of deleted endpoints from the capture store, in the background. */
import { log } from '../log';
import * as endpointStore from '../stores/state/endpoints';
import type { Ctx } from './context';
import { runEvery, type Periodic } from './periodic';
import { errorMessage } from '../unknown';

/** One pass: up to 500 endpoints' captures purged, and marked done. */
export async function purgeOnce(ctx: Ctx): Promise<void> {
  const ids = await endpointStore.listPendingPurges(ctx.db, 500);
  if (ids.length > 0) {
    await ctx.captures.purge(ids);
    await endpointStore.donePurges(ctx.db, ids);
  }
}

/** Starts the periodic purge; `stop` waits for a pass under way. */
export function startPurger(ctx: Ctx, everyMs = 5_000): Periodic {
  return runEvery(
    everyMs,
    () => purgeOnce(ctx),
    (err) => log.warn('purge failed; will retry', { error: errorMessage(err) }),
  );
}
