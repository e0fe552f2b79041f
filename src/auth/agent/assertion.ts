/**
 * Flow 3 of SPEC 4.8: verify an identity assertion (ID-JAG,
 * draft-ietf-oauth-identity-assertion-authz-grant). Storage-free: replay of `jti` is the caller's
 * job (see replay.ts), so the result carries jti and exp for it to record.
 */
import { AppError } from '../../errors';
import { isWellFormedEmail } from '../../model/email';
import { checkAudience, checkTimes, requireIdClaim, verifySignedJwt, type TokenKind, type TokenTrustDeps } from './signed-jwt';

export const ID_JAG_TYP = 'oauth-id-jag+jwt';
export const ID_JAG_TOKEN_TYPE = 'urn:ietf:params:oauth:token-type:id-jag';

const ID_JAG: TokenKind = { typ: ID_JAG_TYP, name: 'assertion' };

export type VerifyIdJagDeps = TokenTrustDeps;

export interface VerifiedAssertion {
  iss: string;
  sub: string;
  /** As asserted by the issuer; compare case-insensitively when matching accounts. */
  email: string;
  jti: string;
  /** Seconds since the epoch. */
  exp: number;
  /** The draft requires client_id, but it is informational here, so a missing one is tolerated. */
  clientId?: string;
}

/**
 * Verify an ID-JAG and return who it vouches for. Throws AppError with invalid_token,
 * invalid_issuer, invalid_audience, invalid_signature, credential_expired, missing_verified_email,
 * or temporarily_unavailable when the issuer's JWKS cannot be fetched.
 *
 * @example
 * const who = await verifyIdJag(body, { providers, audience: `${baseUrl}/api/`, keys });
 * await assertFirstUse(jtiStore, 'id-jag', who); // replay check, then bind a key to who.email
 */
export async function verifyIdJag(token: string, deps: VerifyIdJagDeps): Promise<VerifiedAssertion> {
  const { provider, claims } = await verifySignedJwt(token, ID_JAG, deps);
  const sub = requireIdClaim(claims, 'sub', ID_JAG);
  const jti = requireIdClaim(claims, 'jti', ID_JAG);
  checkAudience(claims, deps.audience, ID_JAG);
  const { exp } = checkTimes(claims, ID_JAG, deps);

  // SPEC 4.8 (5): only an email the issuer itself verified may resolve or provision an account;
  // a verified phone number is not a substitute.
  if (claims.email_verified !== true || claims.email === undefined) {
    throw new AppError('missing_verified_email', 'assertion must carry an email with email_verified: true');
  }
  if (!isWellFormedEmail(claims.email)) {
    throw new AppError('missing_verified_email', 'assertion email is not a well-formed address');
  }

  const result: VerifiedAssertion = { iss: provider.iss, sub, email: claims.email, jti, exp };
  if (typeof claims.client_id === 'string' && claims.client_id !== '') result.clientId = claims.client_id;
  return result;
}
