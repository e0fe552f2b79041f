/** Account deletion: endpoints (their captures queued for purging), keys, sessions, teams owned, the user. */
import * as accounts from '../stores/state/accounts';
import * as endpointStore from '../stores/state/endpoints';
import type { UserRow } from '../stores/state/schema';
import * as shareStore from '../stores/state/team-shares';
import type { Ctx } from './context';
import { announceRevoked } from './credential-revocation';
import { writeEndpoints } from './endpoint-writes';
import { announceTeamAccess } from './team-access';

/**
 * One transaction: the account's endpoints go with it (announced), its rows cascade. Its keys and
 * sessions are announced revoked too, so its streams of endpoints it reads through a team end.
 * The teams it owns cascade as well (docs/teams.md): what other members had shared with them is
 * announced, so members' open streams of those endpoints end as when the owner deletes the team.
 */
export async function deleteAccount(ctx: Ctx, user: UserRow): Promise<void> {
  const ownedShares = await writeEndpoints(ctx, async (w) => {
    const shares = await shareStore.listOwnedTeamsShares(w.tx, user.id);
    await endpointStore.deleteUserEndpoints(w, user.id, ctx.clock.now());
    await accounts.deleteUser(w.tx, user.id);
    return shares;
  });
  announceRevoked(ctx.bus, [user.id]);
  for (const change of ownedShares) announceTeamAccess(ctx.bus, change);
}
