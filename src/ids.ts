/**
 * Prefixed identifiers. Capture ids are ULIDs (48-bit ms time + 80 random bits, Crockford base32)
 * so that their order is time order and a capture's time can be read back from its id.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
let lastTimePart = '';
/** The 80 random bits as 16 base32 digits, kept as numbers so "+1" needs no bigint. */
const randomDigits = new Uint8Array(16);

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

const CROCKFORD_CODES = Array.from(CROCKFORD, (c) => c.charCodeAt(0));
const digitCodes = new Array<number>(16).fill(0);

function randomPart(): string {
  for (let i = 0; i < 16; i++) digitCodes[i] = CROCKFORD_CODES[randomDigits[i] ?? 0] ?? 48;
  return String.fromCharCode.apply(null, digitCodes);
}

/** Monotonic within one process: ids made in the same ms still sort in creation order. */
export function ulid(ms: number = Date.now()): string {
  if (ms === lastTime) {
    // Same millisecond: increment the random part by one, base 32.
    for (let i = randomDigits.length - 1; i >= 0; i--) {
      const d = randomDigits[i] ?? 0;
      if (d === 31) {
        randomDigits[i] = 0;
      } else {
        randomDigits[i] = d + 1;
        break;
      }
    }
  } else {
    lastTime = ms;
    lastTimePart = encodeTime(ms);
    crypto.getRandomValues(randomDigits);
    for (let i = 0; i < randomDigits.length; i++) randomDigits[i] = (randomDigits[i] ?? 0) & 31;
    // Leave headroom so increments within one ms never wrap the top digit.
    randomDigits[0] = (randomDigits[0] ?? 0) & 15;
  }
  return lastTimePart + randomPart();
}

/** The ms time encoded in a ULID-based id (prefix ignored); NaN when malformed. */
export function idTime(id: string): number {
  const u = id.slice(id.indexOf('_') + 1);
  if (u.length !== 26) return Number.NaN;
  let ms = 0;
  for (let i = 0; i < 10; i++) {
    const v = CROCKFORD.indexOf(u[i] ?? '');
    if (v < 0) return Number.NaN;
    ms = ms * 32 + v;
  }
  return ms;
}

export const captureId = (receivedAt: number) => `req_${ulid(receivedAt)}`;

/** Random, non-time-ordered id with a prefix: ep_, key_, usr_, team_, inv_ … */
export function randomId(prefix: string, bytes = 12): string {
  const buf = new Uint8Array(bytes);
  crypto.getRandomValues(buf);
  return `${prefix}_${Buffer.from(buf).toString('base64url')}`;
}

/** High-entropy secret token with a prefix (svc_, ses_, clm_). 32 bytes = 256 bits. */
export function secretToken(prefix: string): string {
  return randomId(prefix, 32);
}

export function sha256Hex(value: string): string {
  return new Bun.CryptoHasher('sha256').update(value).digest('hex');
}

const SLUG_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';

/** Public endpoint slug: 12 chars from an unambiguous lower-case alphabet (60 bits). */
export function newSlug(): string {
  const buf = new Uint8Array(12);
  crypto.getRandomValues(buf);
  let out = '';
  for (const b of buf) out += SLUG_ALPHABET[b & 31];
  return out;
}
