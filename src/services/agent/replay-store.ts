/** The Postgres JtiStore (src/auth/agent/replay.ts): kept forever, shared by nodes, atomic. */
import type { JtiStore } from '../../auth/agent/replay';
import type { Clock } from '../../clock';
import { recordJti, type Q } from '../../stores/state/agent';

/** Bound to a transaction, so a jti is spent only if the work it authorised commits. */
export function pgJtiStore(q: Q, clock: Clock): JtiStore {
  return {
    recordFirstUse: ({ purpose, iss, jti, exp }) => recordJti(q, { purpose, iss, jti, exp: Math.floor(exp), usedAt: clock.now() }),
  };
}
