/**
 * The trust path shared by ID-JAG assertions and logout tokens (SPEC 4.8): explicit `typ`, issuer
 * from the configured set, an algorithm from that issuer's allow-list, a key from that issuer's
 * JWKS. Claims are then read only from the verified payload. Each token kind adds its own claim
 * rules on top; the distinct `typ` keeps one kind from ever passing as the other (RFC 8725 §3.11).
 */
import { base64url, compactVerify, errors } from 'jose';
import { AppError } from '../../errors';
import { errorMessage, isRecord } from '../../unknown';
import type { JwksCache, KeyResolver } from './jwks';
import { findProvider, type IdJagAlg, type IdJagProvider } from './providers';

export interface TokenTrustDeps {
  providers: readonly IdJagProvider[];
  /** `{base_url}/api/` (SPEC 4.10), compared exactly. */
  audience: string;
  keys: JwksCache;
  /** Current time in ms since the epoch; defaults to Date.now. */
  now?: () => number;
  /** Tolerated clock difference with the issuer, applied to exp, iat and nbf. Default 60. */
  clockSkewSeconds?: number;
}

export const DEFAULT_CLOCK_SKEW_SECONDS = 60;
/** Far above any real assertion; bounds the work an anonymous caller can make us do. */
export const MAX_TOKEN_LENGTH = 16 * 1024;
/** jti is kept forever (SPEC 4.8), so an issuer-chosen value must stay a sane database key. */
const MAX_ID_CLAIM_LENGTH = 1024;
const MAX_KID_LENGTH = 256;

export type Claims = Record<string, unknown>;

export interface TokenKind {
  /** Expected header `typ`, without the optional `application/` prefix, lowercase. */
  typ: string;
  /** Used in error messages: 'assertion' or 'logout token'. */
  name: string;
}

export interface VerifiedJwt {
  provider: IdJagProvider;
  claims: Claims;
}

/** Marks a failure to obtain the issuer's keys, as opposed to the token not matching them. */
class KeysUnavailable extends Error {}

const COMPACT_JWS = /^[A-Za-z0-9_-]+\.[A-Za-z0-9_-]+\.[A-Za-z0-9_-]*$/;
const utf8 = new TextDecoder('utf-8', { fatal: true });

/** Caller-chosen text echoed in an error description, quoted and cut short. */
function echo(value: string): string {
  return JSON.stringify(value.length > 100 ? `${value.slice(0, 100)}…` : value);
}



function decodeSegment(segment: string): Claims | null {
  try {
    const value: unknown = JSON.parse(utf8.decode(base64url.decode(segment)));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

function parseClaimBytes(bytes: Uint8Array): Claims | null {
  try {
    const value: unknown = JSON.parse(utf8.decode(bytes));
    return isRecord(value) ? value : null;
  } catch {
    return null;
  }
}

/** Media-type comparison of `typ` per RFC 7515 §4.1.9: case-insensitive, `application/` optional. */
function typMatches(typ: unknown, expected: string): boolean {
  return typeof typ === 'string' && typ.toLowerCase().replace(/^application\//, '') === expected;
}

function isAllowedAlg(alg: string, provider: IdJagProvider): alg is IdJagAlg {
  return (provider.algs as readonly string[]).includes(alg);
}

function guardedResolver(resolver: KeyResolver): KeyResolver {
  return async (header, token) => {
    try {
      return await resolver(header, token);
    } catch (e) {
      if (
        e instanceof errors.JWKSNoMatchingKey ||
        e instanceof errors.JWKSMultipleMatchingKeys ||
        e instanceof errors.JOSENotSupported
      ) {
        throw e;
      }
      throw new KeysUnavailable('issuer keys could not be loaded', { cause: e });
    }
  };
}

/**
 * jose leaves the choice among several keys without a `kid` to the caller; try each, and accept
 * only a real signature match.
 */
async function verifyCompactSignature(token: string, getKey: KeyResolver, algorithms: IdJagAlg[]): Promise<Uint8Array> {
  try {
    return (await compactVerify(token, getKey, { algorithms })).payload;
  } catch (e) {
    if (!(e instanceof errors.JWKSMultipleMatchingKeys)) throw e;
    for await (const key of e) {
      try {
        return (await compactVerify(token, key, { algorithms })).payload;
      } catch (inner) {
        if (!(inner instanceof errors.JWSSignatureVerificationFailed)) throw inner;
      }
    }
    throw new errors.JWSSignatureVerificationFailed();
  }
}

function mapVerifyError(e: unknown, kind: TokenKind, iss: string): never {
  if (e instanceof AppError) throw e;
  if (e instanceof KeysUnavailable) {
    // The issuer's key endpoint failed, not the caller: say so, and let them retry. Why it failed
    // is for the operator, on the 503's one log line (src/http/errors.ts).
    throw new AppError('temporarily_unavailable', `keys of issuer ${iss} could not be fetched; retry later`).withLogFields({ issuer: iss, keysError: errorMessage(e.cause) });
  }
  if (e instanceof errors.JWKSNoMatchingKey) {
    throw new AppError('invalid_signature', `no key of issuer ${iss} matches the ${kind.name}`);
  }
  if (
    e instanceof errors.JWSSignatureVerificationFailed ||
    e instanceof errors.JOSEAlgNotAllowed ||
    e instanceof errors.JOSENotSupported
  ) {
    throw new AppError('invalid_signature', `${kind.name} signature verification failed`);
  }
  if (e instanceof errors.JWSInvalid) throw new AppError('invalid_token', `${kind.name} is malformed`);
  throw e;
}

/**
 * Check header, issuer, algorithm and signature, and return the verified claims.
 * Claim rules (aud, times, ids) are left to the caller through the helpers below.
 */
export async function verifySignedJwt(token: string, kind: TokenKind, deps: TokenTrustDeps): Promise<VerifiedJwt> {
  const malformed = (why: string) => new AppError('invalid_token', `${kind.name} is malformed: ${why}`);
  if (typeof token !== 'string') throw malformed('not a string');
  const jwt = token.trim();
  if (jwt.length > MAX_TOKEN_LENGTH) throw malformed('too long');
  if (!COMPACT_JWS.test(jwt)) throw malformed('not a compact JWS');
  const [headerPart = '', payloadPart = ''] = jwt.split('.');

  const header = decodeSegment(headerPart);
  if (!header) throw malformed('header is not a JSON object');
  if (!typMatches(header.typ, kind.typ)) {
    throw new AppError('invalid_token', `${kind.name} header typ must be "${kind.typ}"`);
  }
  // We understand no JWS extensions, and b64:false would change what the signature covers.
  if (header.crit !== undefined || header.b64 !== undefined) throw malformed('unsupported crit or b64 header');
  if (typeof header.alg !== 'string' || header.alg === '') throw malformed('missing alg');
  if (header.kid !== undefined && (typeof header.kid !== 'string' || header.kid.length > MAX_KID_LENGTH)) {
    throw malformed('kid must be a short string');
  }

  // The provider is picked by the unverified iss; its keys then prove (or refute) that choice.
  const unverified = decodeSegment(payloadPart);
  if (!unverified) throw malformed('payload is not a JSON object');
  if (typeof unverified.iss !== 'string' || unverified.iss === '') throw malformed('missing iss');
  const provider = findProvider(deps.providers, unverified.iss);
  if (!provider) throw new AppError('invalid_issuer', `issuer ${echo(unverified.iss)} is not trusted`);

  const alg = header.alg;
  if (!isAllowedAlg(alg, provider)) {
    throw new AppError('invalid_signature', `alg ${echo(alg)} is not allowed for issuer ${provider.iss}`);
  }

  let payload: Uint8Array;
  try {
    const getKey = guardedResolver(deps.keys.resolverFor(provider));
    payload = await verifyCompactSignature(jwt, getKey, [...provider.algs]);
  } catch (e) {
    mapVerifyError(e, kind, provider.iss);
  }

  const claims = parseClaimBytes(payload);
  if (!claims) throw malformed('payload is not a JSON object');
  if (claims.iss !== provider.iss) throw new AppError('invalid_issuer', `issuer is not ${provider.iss}`);
  return { provider, claims };
}

/** A required non-empty string claim, bounded in length. */
export function requireIdClaim(claims: Claims, name: string, kind: TokenKind): string {
  const v = claims[name];
  if (typeof v !== 'string' || v === '') {
    throw new AppError('invalid_token', `${kind.name} is missing the ${name} claim`);
  }
  if (v.length > MAX_ID_CLAIM_LENGTH) throw new AppError('invalid_token', `${kind.name} ${name} claim is too long`);
  return v;
}

function numericDate(claims: Claims, name: string, kind: TokenKind, required: true): number;
function numericDate(claims: Claims, name: string, kind: TokenKind, required: false): number | null;
function numericDate(claims: Claims, name: string, kind: TokenKind, required: boolean): number | null {
  const v = claims[name];
  if (v === undefined && !required) return null;
  if (typeof v !== 'number' || !Number.isFinite(v)) {
    throw new AppError('invalid_token', `${kind.name} ${name} claim must be a NumericDate`);
  }
  // exp is stored (replay records) as a 64-bit integer; anything past year 9999 is junk, not a date.
  if (Math.abs(v) > MAX_NUMERIC_DATE) throw new AppError('invalid_token', `${kind.name} ${name} claim is out of range`);
  return v;
}

/** 9999-12-31T23:59:59Z in seconds: the latest NumericDate accepted. */
const MAX_NUMERIC_DATE = 253_402_300_799;

/**
 * `aud` must name us and only us: jose accepts any matching member of an array, but a token meant
 * for several audiences could be replayed by any of them, so an array must have exactly one member.
 */
export function checkAudience(claims: Claims, audience: string, kind: TokenKind): void {
  const aud = claims.aud;
  if (aud === undefined) throw new AppError('invalid_token', `${kind.name} is missing the aud claim`);
  const ok = typeof aud === 'string' ? aud === audience : Array.isArray(aud) && aud.length === 1 && aud[0] === audience;
  if (!ok) throw new AppError('invalid_audience', `${kind.name} audience must be exactly ${audience}`);
}

export interface TokenTimes {
  exp: number;
  iat: number;
}

/**
 * exp and iat are required. Expired (beyond skew) → credential_expired; iat or nbf further in the
 * future than the skew → invalid_signature, the SPEC 7.2 code for claims that fail verification.
 */
export function checkTimes(claims: Claims, kind: TokenKind, deps: TokenTrustDeps): TokenTimes {
  const exp = numericDate(claims, 'exp', kind, true);
  const iat = numericDate(claims, 'iat', kind, true);
  const nbf = numericDate(claims, 'nbf', kind, false);
  const now = (deps.now ?? Date.now)() / 1000;
  const skew = deps.clockSkewSeconds ?? DEFAULT_CLOCK_SKEW_SECONDS;
  // A NaN here would make every comparison below false and accept any token: fail closed instead.
  if (!Number.isFinite(now) || !Number.isFinite(skew) || skew < 0) {
    throw new Error('token time check needs a finite clock and a non-negative clockSkewSeconds');
  }
  if (now >= exp + skew) throw new AppError('credential_expired', `${kind.name} has expired`);
  if (iat > now + skew) throw new AppError('invalid_signature', `${kind.name} iat is in the future`);
  if (nbf !== null && nbf > now + skew) throw new AppError('invalid_signature', `${kind.name} is not valid yet`);
  return { exp, iat };
}
