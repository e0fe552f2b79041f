/**
 * `POST /api/agent/auth/claim/verify-otp` (SPEC 4.8 flow 2, 5.7): the emailed code, at most
 * OTP_MAX_ATTEMPTS tries within its lifetime, compared in constant time against the stored HMAC.
 * Only a match issues the key, bound to the account of the verified address; a match is a proof
 * of the mailbox, which recovers an account whose address was never proven (services/address-proof.ts).
 */
import { hashClaimToken, OTP_MAX_ATTEMPTS, otpMatches } from '../../auth/agent/codes';
import { AppError } from '../../errors';
import { countOtpAttempt, findRegistrationByTokenHash, inTransaction, updateRegistration } from '../../stores/state/agent';
import type { AgentDeps } from './deps';
import { issueAccountKey } from '../api-keys';
import { agentKeyName, POST_CLAIM_SCOPES } from './keys';
import { accountOfProvenAddress, announceRecovery, type Recovery } from '../address-proof';
import type { UserRow } from '../../stores/state/schema';
import { buckets, type RateMeter } from './rate-meter';

type Outcome = { ok: true; raw: string; scopes: string[]; user: UserRow; recovery: Recovery | null } | { ok: false; attemptsLeft: number };

export async function verifyOtp(deps: AgentDeps, input: { claimToken: string; otp: string }, caller: { ip: string; meter: RateMeter }) {
  const { ctx } = deps;
  const { agent } = ctx.config;
  await caller.meter.consume(buckets.otpIp(caller.ip), agent.ratePerIp);
  const tokenHash = hashClaimToken(input.claimToken);
  // Read once outside the transaction to charge the attempt to the address's email bucket too.
  const peek = await findRegistrationByTokenHash(ctx.db, tokenHash);
  if (!peek || peek.type !== 'verified_email' || !peek.email) {
    throw new AppError('invalid_claim_token', 'no email registration has this claim token');
  }
  await caller.meter.consume(buckets.otpEmail(peek.email), agent.ratePerEmail);
  const secret = await deps.secret();

  const outcome = await inTransaction(ctx.db, async (tx): Promise<Outcome> => {
    const reg = await findRegistrationByTokenHash(tx, tokenHash, true);
    if (!reg || reg.type !== 'verified_email' || !reg.email) throw new AppError('invalid_claim_token', 'no email registration has this claim token');
    if (reg.status === 'claimed') throw new AppError('previously_claimed', 'this code was already used; the key was issued then');
    if (reg.otpAttempts >= OTP_MAX_ATTEMPTS) throw new AppError('otp_expired', 'too many wrong codes; register again for a new one');
    if (reg.expiresAt <= ctx.clock.now() || !reg.otpHash) throw new AppError('otp_expired', 'the code has expired; register again for a new one');
    if (!otpMatches(input.otp, reg.otpHash, secret, reg.id)) {
      // Committed with the transaction: the wrong guess counts even though the request fails.
      const used = await countOtpAttempt(tx, reg.id);
      return { ok: false, attemptsLeft: Math.max(0, OTP_MAX_ATTEMPTS - used) };
    }
    // The recovery (if any) comes before the key, so the agent's key is not among those it revokes.
    const { user, recovery } = await accountOfProvenAddress(tx, reg.email, ctx.clock.now());
    const key = await issueAccountKey(tx, user.id, agentKeyName(reg.clientName), ctx.clock.now(), POST_CLAIM_SCOPES);
    await updateRegistration(tx, reg.id, { status: 'claimed', otpHash: null, keyId: key.row.id, claimedBy: user.id, claimedAt: ctx.clock.now() });
    return { ok: true, raw: key.raw, scopes: key.row.scopes, user, recovery };
  });

  if (!outcome.ok) {
    // The last wrong try says what the next answer (otp_expired) would: a new code means registering again.
    const next = outcome.attemptsLeft === 0 ? ': the code is locked; register again for a new one' : '';
    throw new AppError('otp_invalid', `wrong code; ${outcome.attemptsLeft} attempt${outcome.attemptsLeft === 1 ? '' : 's'} left${next}`);
  }
  if (outcome.recovery) announceRecovery(ctx, outcome.user, outcome.recovery, 'the one-time code mailed to it');
  return { credential_type: 'api_key' as const, credential: outcome.raw, scopes: outcome.scopes };
}
