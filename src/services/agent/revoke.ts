/**
 * `POST /api/agent/auth/revoke` (SPEC 4.8): an identity provider's logout token revokes every key
 * issued on its word for that subject. Keys are looked up in Postgres on every request, so the
 * revocation holds on every node from the commit on; live streams of those keys are told after it.
 */
import { verifyLogoutToken } from '../../auth/agent/logout-token';
import { assertFirstUse } from '../../auth/agent/replay';
import { inTransaction, revokeKeysOfSubject } from '../../stores/state/agent';
import type { AgentDeps } from './deps';
import { announceRevoked } from '../credential-revocation';
import { pgJtiStore } from './replay-store';

export async function revokeBySubject(deps: AgentDeps, logoutToken: string): Promise<{ revoked: number }> {
  const who = await verifyLogoutToken(logoutToken, { providers: deps.providers, audience: deps.audience, keys: deps.keys, now: () => deps.ctx.clock.now() });
  const owners = await inTransaction(deps.ctx.db, async (tx) => {
    await assertFirstUse(pgJtiStore(tx, deps.ctx.clock), 'logout', who);
    return revokeKeysOfSubject(tx, who.iss, who.sub, deps.ctx.clock.now());
  });
  // Claimed keys may have live streams open: they end, on every node.
  announceRevoked(deps.ctx.bus, owners);
  return { revoked: owners.length };
}
