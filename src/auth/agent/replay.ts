/**
 * Single use of assertion and logout-token ids (SPEC 4.8: replays are rejected permanently). The
 * verifiers stay storage-free; this is the one seam where a store plugs in.
 */
import { AppError } from '../../errors';

/** Assertions and logout tokens are tracked apart, so one kind's jti never blocks the other's. */
export type JtiPurpose = 'assertion' | 'logout';

export interface JtiRecord {
  purpose: JtiPurpose;
  iss: string;
  jti: string;
  /** Token expiry in seconds since the epoch; informational, since entries are kept forever. */
  exp: number;
}

export interface JtiStore {
  /**
   * Record the id if unseen and say whether this was its first use. Must be atomic (for Postgres,
   * `INSERT … ON CONFLICT DO NOTHING` and check the row count), or two racing requests both win.
   */
  recordFirstUse(entry: JtiRecord): Promise<boolean>;
}

/**
 * Throw replay_detected unless this (purpose, iss, jti) is new. jti is unique per issuer only, so
 * the issuer is part of the key.
 *
 * @example
 * await assertFirstUse(store, 'assertion', await verifyIdJag(body, deps));
 */
export async function assertFirstUse(
  store: JtiStore,
  purpose: JtiPurpose,
  token: { iss: string; jti: string; exp: number },
): Promise<void> {
  const first = await store.recordFirstUse({ purpose, iss: token.iss, jti: token.jti, exp: token.exp });
  const what = purpose === 'logout' ? 'logout token' : 'assertion';
  if (!first) throw new AppError('replay_detected', `${what} jti was already used`);
}

/** In-process store for tests and single-process development. */
export function createMemoryJtiStore(): JtiStore {
  const seen = new Set<string>();
  return {
    async recordFirstUse({ purpose, iss, jti }) {
      // JSON keeps the three parts unambiguous whatever characters they contain.
      const key = JSON.stringify([purpose, iss, jti]);
      if (seen.has(key)) return false;
      seen.add(key);
      return true;
    },
  };
}
