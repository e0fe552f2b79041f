/** Account deletion: endpoints (their captures queued for purging), keys, sessions, the user. */
import * as accounts from '../stores/state/accounts';
import * as endpointStore from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { announceRevoked } from './credential-revocation';
import { writeEndpoints } from './endpoint-writes';

/**
 * One transaction: the account's endpoints go with it (announced), its rows cascade. Its keys and
 * sessions are announced revoked too, so its streams of endpoints it reads through a team end.
 */
export async function deleteAccount(ctx: Ctx, user: UserRow): Promise<void> {
  await writeEndpoints(ctx, async (w) => {
    await endpointStore.deleteUserEndpoints(w, user.id, ctx.clock.now());
    await accounts.deleteUser(w.tx, user.id);
  });
  announceRevoked(ctx.bus, [user.id]);
}
