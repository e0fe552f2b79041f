/**
 * The one way endpoints are written: in a transaction whose changed slugs are announced on the
 * bus (`config.endpoint`) after it commits, so every node's endpoint cache drops its snapshot and
 * stream guards re-read the row. The store's endpoint writes need the `EndpointWrite` this hands
 * out, so no write can forget the announcement, and none is announced before it is visible.
 *
 * @example
 * const row = await writeEndpoints(ctx, (w) => store.updateEndpoint(w, id, { name }, now));
 */
import { encodeJson, subjects } from '../bus/types';
import { inTransaction } from '../stores/state/db';
import type { EndpointWrite } from '../stores/state/endpoints';
import type { Ctx } from './context';

export async function writeEndpoints<T>(ctx: Pick<Ctx, 'db' | 'bus' | 'endpointCache'>, fn: (w: EndpointWrite) => Promise<T>): Promise<T> {
  const changed = new Set<string>();
  const out = await inTransaction(ctx.db, (tx) => fn({ tx, changed }));
  for (const slug of changed) {
    // The bus reaches this node too, but asynchronously over NATS: drop the local snapshot now.
    ctx.endpointCache?.invalidate(slug);
    ctx.bus.publish(subjects.endpointChanged, encodeJson({ slug }));
  }
  return out;
}
