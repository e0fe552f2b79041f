/** Byte-level helpers shared by the schemes: HMAC, strict decoding, constant-time comparison. */
import { createHash, createHmac, timingSafeEqual } from 'node:crypto';
import type { HashAlgorithm } from './types';

/** The closed set of signatureError values (see docs/providers.md). */
export const SignatureError = {
  missingHeader: (name: string) => `missing_header: ${name}`,
  missingField: (name: string) => `missing_field: ${name}`,
  badFormat: (name: string) => `bad_format: ${name}`,
  timestampOutsideTolerance: 'timestamp_outside_tolerance',
  mismatch: 'mismatch',
  invalidSecret: 'invalid_secret',
} as const;

export function hmac(algorithm: HashAlgorithm, key: string | Uint8Array, parts: readonly (string | Uint8Array)[]): Buffer {
  const mac = createHmac(algorithm, key);
  for (const part of parts) mac.update(part);
  return mac.digest();
}

export function sha256(data: Uint8Array): Buffer {
  return createHash('sha256').update(data).digest();
}

/** Constant time for equal lengths; a length difference is not secret (digest sizes are public). */
export function sameBytes(a: Uint8Array, b: Uint8Array): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** True when any candidate decodes and equals `expected`. */
export function anyEquals(expected: Uint8Array, candidates: readonly string[], decode: (s: string) => Buffer | undefined): boolean {
  let found = false;
  for (const candidate of candidates) {
    const bytes = decode(candidate);
    // Keep comparing after a hit so the time does not depend on which candidate matched.
    if (bytes !== undefined && sameBytes(bytes, expected)) found = true;
  }
  return found;
}

const HEX = /^(?:[0-9a-fA-F]{2})+$/;
const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/;

export function fromHex(text: string): Buffer | undefined {
  return HEX.test(text) ? Buffer.from(text, 'hex') : undefined;
}

/** Standard or URL-safe alphabet, padding optional. */
export function fromBase64(text: string): Buffer | undefined {
  return BASE64.test(text) ? Buffer.from(text, 'base64') : undefined;
}

/** `a=1,b=2` style headers: every value per key, in order. */
export function parsePairs(header: string, separator: string): Map<string, string[]> {
  const out = new Map<string, string[]>();
  for (const item of header.split(separator)) {
    const eq = item.indexOf('=');
    if (eq <= 0) continue;
    const key = item.slice(0, eq).trim();
    const value = item.slice(eq + 1).trim();
    const list = out.get(key);
    if (list === undefined) out.set(key, [value]);
    else list.push(value);
  }
  return out;
}

/** Unix seconds given as decimal digits, else undefined. */
export function unixSeconds(text: string): number | undefined {
  return /^\d{1,12}$/.test(text) ? Number(text) : undefined;
}

/** Both directions: a timestamp from the future is as suspect as a stale one. */
export function withinTolerance(timestampMs: number, nowMs: number, toleranceSeconds: number): boolean {
  return Math.abs(nowMs - timestampMs) <= toleranceSeconds * 1000;
}

export function toBytes(data: Uint8Array): Buffer {
  return Buffer.from(data.buffer, data.byteOffset, data.byteLength);
}

/**
 * The URL a sender signed: `configured` when given (keeping the received query string if the
 * configured URL has none), else the URL the request arrived on.
 */
export function signedUrl(configured: string | undefined, received: string): string {
  if (configured === undefined || configured === '') return received;
  if (configured.includes('?')) return configured;
  const q = received.indexOf('?');
  return q >= 0 ? configured + received.slice(q) : configured;
}

/** The same URL with the port removed and with the scheme's default port made explicit. */
export function portVariants(url: string): string[] {
  const m = /^([a-z][a-z0-9+.-]*:\/\/)([^/?#]*)(.*)$/is.exec(url);
  if (m === null) return [url];
  const [, scheme = '', authority = '', rest = ''] = m;
  const at = authority.lastIndexOf('@');
  const userinfo = authority.slice(0, at + 1);
  const hostPort = authority.slice(at + 1);
  const portMatch = /:(\d*)$/.exec(hostPort);
  const host = portMatch === null ? hostPort : hostPort.slice(0, portMatch.index);
  const defaultPort = scheme.toLowerCase() === 'https://' ? '443' : '80';
  const variants = [url, `${scheme}${userinfo}${host}${rest}`];
  if (portMatch === null) variants.push(`${scheme}${userinfo}${host}:${defaultPort}${rest}`);
  return [...new Set(variants)];
}
