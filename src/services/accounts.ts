/** Account deletion: endpoints (their captures queued for purging), keys, sessions, the user. */
import * as accounts from '../stores/state/accounts';
import * as endpointStore from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { announceChange } from './endpoints';

export async function deleteAccount(ctx: Ctx, user: UserRow): Promise<void> {
  const eps = await endpointStore.listUserEndpoints(ctx.db, user.id);
  await endpointStore.deleteEndpoints(
    ctx.db,
    eps.map((e) => e.id),
    Date.now(),
  );
  await accounts.deleteUser(ctx.db, user.id);
  for (const e of eps) announceChange(ctx, e.slug);
}
