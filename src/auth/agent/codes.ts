/**
 * Short codes of the agent flows: user codes (RFC 8628 §6.1), emailed OTPs (OWASP ASVS 5 §6.5–6.6)
 * and claim tokens. All randomness is CSPRNG with rejection sampling: `byte % n` would make some
 * characters likelier than others whenever n does not divide 256.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { secretToken, sha256Hex } from '../../ids';

/** RFC 8628 §6.1: no vowels (so no accidental words) and no digits (so no 0/O or 1/I mix-ups). */
export const USER_CODE_ALPHABET = 'BCDFGHJKLMNPQRSTVWXZ';
export const USER_CODE_LENGTH = 8;

/** SPEC 5.7 / 8. */
export const OTP_DIGITS = 6;
export const OTP_TTL_MS = 10 * 60_000;
export const OTP_MAX_ATTEMPTS = 5;

/** Uniform integers in [0, n) for n ≤ 256, drawn from random bytes with rejection sampling. */
function uniformBelow256(n: number, count: number): number[] {
  // Bytes at or above the largest multiple of n would bias the low residues; draw again instead.
  const limit = 256 - (256 % n);
  const out: number[] = [];
  const buf = new Uint8Array(count * 2);
  while (out.length < count) {
    crypto.getRandomValues(buf);
    for (const b of buf) {
      if (b < limit) out.push(b % n);
      if (out.length === count) break;
    }
  }
  return out;
}

/** `BCDFGHJK` → `BCDF-GHJK`. */
export function formatUserCode(canonical: string): string {
  return `${canonical.slice(0, 4)}-${canonical.slice(4)}`;
}

/**
 * A fresh user code in display form.
 *
 * @example
 * generateUserCode() // 'QZTW-KBDM'
 */
export function generateUserCode(): string {
  const chars = uniformBelow256(USER_CODE_ALPHABET.length, USER_CODE_LENGTH).map((i) => USER_CODE_ALPHABET.charAt(i));
  return formatUserCode(chars.join(''));
}

const USER_CODE = new RegExp(`^[${USER_CODE_ALPHABET}]{${USER_CODE_LENGTH}}$`);
/** Generous bound on typed input, so odd inputs cost nothing to reject. */
const MAX_USER_CODE_INPUT = 64;

/**
 * The canonical 8-character form of a typed user code, or null. Whitespace, punctuation and symbols
 * are dropped and ASCII letters uppercased, so `qztw kbdm`, `QZTW-KBDM` and `qztw.kbdm` all match.
 * Store and look up codes in this form.
 *
 * @example
 * normalizeUserCode(' qztw-kbdm ') // 'QZTWKBDM'
 * normalizeUserCode('QZTW-KBDA')   // null: A is not in the alphabet
 */
export function normalizeUserCode(input: string): string | null {
  if (typeof input !== 'string' || input.length > MAX_USER_CODE_INPUT) return null;
  const stripped = input.replace(/[\s\p{P}\p{S}\p{Cf}]/gu, '');
  // ASCII-only uppercasing: toUpperCase would turn e.g. 'ß' into 'SS' and forge a valid code.
  const upper = stripped.replace(/[a-z]/g, (c) => String.fromCharCode(c.charCodeAt(0) - 32));
  return USER_CODE.test(upper) ? upper : null;
}

/** 2^32 rounded down to a multiple of 10^6: 32-bit draws at or above it are redrawn. */
const OTP_RANGE = 10 ** OTP_DIGITS;
const OTP_LIMIT = Math.floor(2 ** 32 / OTP_RANGE) * OTP_RANGE;

/**
 * A 6-digit one-time code, uniform over 000000–999999.
 *
 * @example
 * generateOtp() // '048213'
 */
export function generateOtp(): string {
  const buf = new Uint32Array(1);
  for (;;) {
    crypto.getRandomValues(buf);
    const v = buf[0] ?? OTP_LIMIT;
    if (v < OTP_LIMIT) return String(v % OTP_RANGE).padStart(OTP_DIGITS, '0');
  }
}

const OTP_FORMAT = /^[0-9]{6}$/;
const HEX_SHA256 = /^[0-9a-f]{64}$/;

function assertSecret(secret: string | Uint8Array): void {
  if (secret.length === 0) throw new Error('OTP HMAC secret must not be empty');
}

/**
 * HMAC-SHA256 (hex) of an OTP, keyed by the server secret and bound to one registration. A plain
 * hash of a 6-digit code is reversed by trying all 10^6 values; the key prevents that offline, and
 * the registration id stops a code issued for one registration from working on another.
 *
 * @example
 * const stored = hashOtp(otp, config.serverSecret, registrationId);
 */
export function hashOtp(otp: string, secret: string | Uint8Array, registrationId: string): string {
  assertSecret(secret);
  // Length-prefixed fields keep (id, otp) pairs from colliding through a shifted separator.
  const message = `hookcap-otp-v1\n${registrationId.length}:${registrationId}\n${otp.length}:${otp}`;
  return createHmac('sha256', secret).update(message).digest('hex');
}

/**
 * Whether `otp` is the code stored as `storedHash` for this registration, compared in constant
 * time. A malformed OTP or stored hash is simply no match.
 */
export function otpMatches(otp: string, storedHash: string, secret: string | Uint8Array, registrationId: string): boolean {
  if (typeof otp !== 'string' || !OTP_FORMAT.test(otp) || !HEX_SHA256.test(storedHash)) return false;
  const expected = Buffer.from(storedHash, 'hex');
  const actual = Buffer.from(hashOtp(otp, secret, registrationId), 'hex');
  return expected.length === actual.length && timingSafeEqual(expected, actual);
}

const CLAIM_TOKEN = /^clm_[A-Za-z0-9_-]{43}$/;

export interface ClaimToken {
  /** Shown to the agent once; never stored. */
  token: string;
  /** SHA-256 hex, the value to store and look up by. */
  hash: string;
}

/**
 * A new claim token (`clm_` + 256 random bits) and the hash to store.
 *
 * @example
 * const { token, hash } = generateClaimToken();
 */
export function generateClaimToken(): ClaimToken {
  const token = secretToken('clm');
  return { token, hash: sha256Hex(token) };
}

export function hashClaimToken(token: string): string {
  return sha256Hex(token);
}

/** Cheap shape check, so malformed input gets invalid_claim_token without a lookup. */
export function isClaimTokenFormat(token: unknown): token is string {
  return typeof token === 'string' && CLAIM_TOKEN.test(token);
}

/**
 * The user code that belongs to a claim token, in display form. Derived (HMAC keyed by the server
 * secret) rather than drawn, so the poll can echo it without the plain code ever being stored;
 * only `hashUserCode` of it is kept. Uniform over the alphabet by rejection sampling.
 *
 * @example
 * userCodeForClaimToken(token, secret) // 'QZTW-KBDM', the same for the same token and secret
 */
export function userCodeForClaimToken(claimToken: string, secret: string | Uint8Array): string {
  assertSecret(secret);
  const n = USER_CODE_ALPHABET.length;
  const limit = 256 - (256 % n);
  let chars = '';
  for (let round = 0; chars.length < USER_CODE_LENGTH; round++) {
    const digest = createHmac('sha256', secret).update(`hookcap-user-code-v1\n${round}\n${claimToken}`).digest();
    for (const b of digest) {
      if (b < limit) chars += USER_CODE_ALPHABET.charAt(b % n);
      if (chars.length === USER_CODE_LENGTH) break;
    }
  }
  return formatUserCode(chars);
}

/**
 * HMAC-SHA256 (hex) of a canonical user code: the stored lookup key. An 8-letter code has about
 * 34 bits, so a plain hash would fall to an offline search; the server secret prevents that.
 */
export function hashUserCode(canonical: string, secret: string | Uint8Array): string {
  assertSecret(secret);
  return createHmac('sha256', secret).update(`hookcap-user-code-lookup-v1\n${canonical}`).digest('hex');
}
