/** Removes the captures of deleted endpoints from the capture store, in the background. */
import { log } from '../log';
import * as endpointStore from '../stores/state/endpoints';
import type { Ctx } from './context';
import { errorMessage } from '../unknown';

export function startPurger(ctx: Ctx, everyMs = 5_000): () => void {
  let running = false;
  const tick = async () => {
    if (running) return;
    running = true;
    try {
      const ids = await endpointStore.listPendingPurges(ctx.db, 500);
      if (ids.length > 0) {
        await ctx.captures.purge(ids);
        await endpointStore.donePurges(ctx.db, ids);
      }
    } catch (err) {
      log.warn('purge failed; will retry', { error: errorMessage(err) });
    } finally {
      running = false;
    }
  };
  const timer = setInterval(() => void tick(), everyMs);
  return () => clearInterval(timer);
}
