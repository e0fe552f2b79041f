/**
 * The claim ceremony of an anonymous registration (SPEC 3.1, 4.8): a signed-in human names it by
 * claim token (the link) or user code (typed), sees who is asking, and confirms; the key is then
 * rebound to that account with post_claim_scopes. Also the agent's poll.
 */
import { hashClaimToken, hashUserCode, isClaimTokenFormat, normalizeUserCode, OTP_MAX_ATTEMPTS, userCodeForClaimToken } from '../../auth/agent/codes';
import { AppError } from '../../errors';
import {
  adoptSandbox,
  bindUnownedKey,
  countLiveSandbox,
  expireSandbox,
  findRegistrationByTokenHash,
  findRegistrationByUserCodeHash,
  revokeUnownedKey,
  updateRegistration,
  type Q,
} from '../../stores/state/agent';
import type { AgentRegistrationRow, UserRow } from '../../stores/state/schema';
import { writeEndpoints } from '../endpoint-writes';
import type { AgentDeps } from './deps';
import type { ClaimRef } from './input';
import { assertRoomForKey } from '../api-keys';
import { POST_CLAIM_SCOPES } from './keys';
import { isoTime, registrationType } from './present';
import { buckets, type RateMeter } from './rate-meter';

/** Looks a registration up by either reference; malformed references never reach the database. */
async function findByRef(q: Q, ref: ClaimRef, secret: string, lock: boolean): Promise<AgentRegistrationRow | null> {
  if ('claimToken' in ref) {
    if (!isClaimTokenFormat(ref.claimToken)) throw new AppError('invalid_claim_token', 'claim token is malformed');
    return findRegistrationByTokenHash(q, hashClaimToken(ref.claimToken), lock);
  }
  const code = normalizeUserCode(ref.userCode);
  if (!code) throw new AppError('invalid_claim_token', 'user code is malformed: it looks like XXXX-XXXX');
  return findRegistrationByUserCodeHash(q, hashUserCode(code, secret), lock);
}

/** The refusals shared by the claim page and the confirm step, in the order that informs best. */
function assertClaimable(reg: AgentRegistrationRow | null, now: number): asserts reg is AgentRegistrationRow & { keyId: string } {
  if (!reg || reg.type !== 'anonymous' || !reg.keyId) throw new AppError('invalid_claim_token', 'no registration has this claim token or user code');
  if (reg.status === 'claimed') throw new AppError('previously_claimed', 'this registration was already claimed');
  if (reg.status === 'denied') throw new AppError('claim_denied', 'a person refused this registration and its key was revoked; the agent must register again');
  if (reg.expiresAt <= now) throw new AppError('claim_expired', 'the claim window of this registration has closed; the agent must register again');
}

export interface ClaimPreview {
  registrationId: string;
  clientName: string;
  scopes: readonly string[];
  expiresAt: number;
  /** Live sandbox endpoints that will move into the account. */
  sandboxEndpoints: number;
}

/**
 * What the confirm page shows. Counted as a claim attempt per address, because a lookup by user
 * code says whether the code exists.
 */
export async function previewClaim(deps: AgentDeps, ref: ClaimRef, caller: { ip: string; meter: RateMeter }): Promise<ClaimPreview> {
  const { ctx } = deps;
  await caller.meter.consume(buckets.claimIp(caller.ip), ctx.config.agent.ratePerIp);
  const now = ctx.clock.now();
  const reg = await findByRef(ctx.db, ref, await deps.secret(), false);
  assertClaimable(reg, now);
  return {
    registrationId: reg.id,
    clientName: reg.clientName,
    scopes: POST_CLAIM_SCOPES,
    expiresAt: reg.expiresAt,
    sandboxEndpoints: await countLiveSandbox(ctx.db, reg.keyId, now),
  };
}

/**
 * Claim confirm: in one transaction, under the registration's row lock, rebind the key to the
 * account with post_claim_scopes, move its live sandbox endpoints into the account and mark the
 * registration claimed. A second confirm (racing or later) sees previously_claimed.
 */
export async function confirmClaim(deps: AgentDeps, user: UserRow, ref: ClaimRef, caller: { ip: string; meter: RateMeter }) {
  const { ctx } = deps;
  await caller.meter.consume(buckets.claimIp(caller.ip), ctx.config.agent.ratePerIp);
  const secret = await deps.secret();
  const now = ctx.clock.now();
  // Receivers cache endpoint snapshots (owner, expiry): the adopted ones are announced after commit.
  const { reg, slugs } = await writeEndpoints(ctx, async (w) => {
    const found = await findByRef(w.tx, ref, secret, true);
    assertClaimable(found, now);
    await assertRoomForKey(w.tx, user.id);
    if (!(await bindUnownedKey(w.tx, found.keyId, user.id, [...POST_CLAIM_SCOPES]))) {
      throw new AppError('invalid_claim_token', 'the key of this registration no longer exists');
    }
    const adopted = await adoptSandbox(w, found.keyId, user.id, now);
    await updateRegistration(w.tx, found.id, { status: 'claimed', claimedBy: user.id, claimedAt: now });
    return { reg: found, slugs: adopted };
  });
  return {
    registration_id: reg.id,
    status: 'claimed' as const,
    client_name: reg.clientName,
    scopes: [...POST_CLAIM_SCOPES],
    endpoints_adopted: slugs.length,
  };
}

/**
 * Claim deny: the person shown the confirm page refuses. In one transaction under the
 * registration's row lock: the registration is marked denied (final; confirm is then claim_denied),
 * its unowned key is revoked (every later call with it is 401, on every node: keys are looked up
 * in Postgres each time) and its live sandbox endpoints expire now (senders get 404; the sweeper
 * deletes them and purges their captures). Counted as a claim attempt like confirm. The denying
 * user is recorded (`denied_by`) with the time.
 */
export async function denyClaim(deps: AgentDeps, user: UserRow, ref: ClaimRef, caller: { ip: string; meter: RateMeter }) {
  const { ctx } = deps;
  await caller.meter.consume(buckets.claimIp(caller.ip), ctx.config.agent.ratePerIp);
  const secret = await deps.secret();
  const now = ctx.clock.now();
  const { reg, slugs } = await writeEndpoints(ctx, async (w) => {
    const found = await findByRef(w.tx, ref, secret, true);
    assertClaimable(found, now);
    await revokeUnownedKey(w.tx, found.keyId, now);
    const ended = await expireSandbox(w, found.keyId, now);
    await updateRegistration(w.tx, found.id, { status: 'denied', deniedAt: now, deniedBy: user.id });
    return { reg: found, slugs: ended };
  });
  return {
    registration_id: reg.id,
    status: 'denied' as const,
    client_name: reg.clientName,
    endpoints_ended: slugs.length,
  };
}

/**
 * The agent's poll (`POST /api/agent/auth/poll {claim_token}`): pending (echoing user_code for
 * the anonymous flow) until claimed or denied (both final); claim_expired once a pending window has closed.
 */
export async function pollRegistration(deps: AgentDeps, claimToken: string) {
  const reg = await findRegistrationByTokenHash(deps.ctx.db, hashClaimToken(claimToken));
  if (!reg) throw new AppError('invalid_claim_token', 'no registration has this claim token');
  const base = { registration_id: reg.id, registration_type: registrationType(reg.type) };
  if (reg.status === 'claimed') {
    return { ...base, status: 'claimed' as const, scopes: [...POST_CLAIM_SCOPES], claimed_at: isoTime(reg.claimedAt ?? reg.createdAt) };
  }
  if (reg.status === 'denied') {
    return { ...base, status: 'denied' as const, denied_at: isoTime(reg.deniedAt ?? reg.createdAt) };
  }
  if (reg.expiresAt <= deps.ctx.clock.now()) throw new AppError('claim_expired', 'the registration was not completed in time; register again');
  // A code locked by wrong guesses can never complete the registration: "pending" would keep an
  // agent polling until the window closes. Said as verify-otp says it.
  if (reg.type === 'verified_email' && reg.otpAttempts >= OTP_MAX_ATTEMPTS) throw new AppError('otp_expired', 'too many wrong codes; register again for a new one');
  const pending = { ...base, status: 'pending' as const, claim_token_expires: isoTime(reg.expiresAt) };
  return reg.type === 'anonymous' ? { ...pending, user_code: userCodeForClaimToken(claimToken, await deps.secret()) } : pending;
}
