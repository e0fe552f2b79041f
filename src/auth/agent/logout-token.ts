/**
 * Revoke (SPEC 4.8): verify a logout token per OpenID Connect Back-Channel Logout 1.0 §2.4–2.6
 * over the same trust path as assertions. Replay of `jti` is the caller's job (purpose `logout`).
 */
import { AppError } from '../../errors';
import { isRecord } from '../../unknown';
import {
  checkAudience,
  checkTimes,

  requireIdClaim,
  verifySignedJwt,
  type TokenKind,
  type TokenTrustDeps,
} from './signed-jwt';

export const LOGOUT_TYP = 'logout+jwt';
export const BACKCHANNEL_LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

const LOGOUT: TokenKind = { typ: LOGOUT_TYP, name: 'logout token' };

export type VerifyLogoutTokenDeps = TokenTrustDeps;

export interface VerifiedLogoutToken {
  iss: string;
  /** Revocation is by issuer and subject, so sub is required here even though §2.4 allows sid alone. */
  sub: string;
  jti: string;
  /** Seconds since the epoch. */
  exp: number;
}

/**
 * Verify a logout token. Throws AppError with invalid_token, invalid_issuer, invalid_audience,
 * invalid_signature, credential_expired, or temporarily_unavailable when the issuer's JWKS cannot
 * be fetched.
 *
 * @example
 * const who = await verifyLogoutToken(body, { providers, audience: `${baseUrl}/api/`, keys });
 * await assertFirstUse(jtiStore, 'logout', who); // then revoke keys of (who.iss, who.sub)
 */
export async function verifyLogoutToken(token: string, deps: VerifyLogoutTokenDeps): Promise<VerifiedLogoutToken> {
  const { provider, claims } = await verifySignedJwt(token, LOGOUT, deps);
  const jti = requireIdClaim(claims, 'jti', LOGOUT);

  // §2.4: the events member is what tells a logout token apart from an ID token, and nonce is
  // forbidden so that an ID token (which may carry one) is never taken for a logout request.
  const events = claims.events;
  if (!isRecord(events) || !isRecord(events[BACKCHANNEL_LOGOUT_EVENT])) {
    throw new AppError('invalid_token', `logout token events must contain ${BACKCHANNEL_LOGOUT_EVENT} with an object value`);
  }
  if (claims.nonce !== undefined) throw new AppError('invalid_token', 'logout token must not contain nonce');
  if (claims.sid !== undefined && typeof claims.sid !== 'string') {
    throw new AppError('invalid_token', 'logout token sid claim must be a string');
  }
  const sub = requireIdClaim(claims, 'sub', LOGOUT);

  checkAudience(claims, deps.audience, LOGOUT);
  const { exp } = checkTimes(claims, LOGOUT, deps);
  return { iss: provider.iss, sub, jti, exp };
}
