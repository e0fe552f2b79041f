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
export function ulid(ms: number): string {
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

/**
 * The lowest capture id of a millisecond: every capture received at `ms` or later sorts after it,
 * so it works as a Last-Event-ID meaning "from this time on".
 */
export const captureIdFloor = (ms: number) => `req_${encodeTime(Math.max(0, Math.floor(ms)))}${'0'.repeat(16)}`;

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

export const SLUG_ALPHABET = 'abcdefghijkmnpqrstuvwxyz23456789';
const SLUG_LENGTH = 12;
/** 1 at the char codes of SLUG_ALPHABET. */
const SLUG_CHAR = new Uint8Array(128);
for (const c of SLUG_ALPHABET) SLUG_CHAR[c.charCodeAt(0)] = 1;

/**
 * Whether a string could be a slug `newSlug` made: 12 characters of its alphabet. The receiver
 * answers anything else 404 without a lookup, so junk slugs neither reach Postgres nor fill the
 * unknown-slug cache.
 */
export function isSlug(value: string): boolean {
  if (value.length !== SLUG_LENGTH) return false;
  for (let i = 0; i < SLUG_LENGTH; i++) {
    if (SLUG_CHAR[value.charCodeAt(i)] !== 1) return false;
  }
  return true;
}

/** Public endpoint slug: 12 chars from an unambiguous lower-case alphabet (60 bits). */
export function newSlug(): string {
  const buf = new Uint8Array(SLUG_LENGTH);
  crypto.getRandomValues(buf);
  let out = '';
  for (const b of buf) out += SLUG_ALPHABET[b & 31];
  return out;
}

/** The shape of a capture id, as regex source: for ids that come from outside (URLs, cursors, SSE). */
export const CAPTURE_ID_PATTERN = 'req_[0-9A-Z]{26}';
const CAPTURE_ID = new RegExp(`^${CAPTURE_ID_PATTERN}$`);

export const isCaptureId = (value: string): boolean => CAPTURE_ID.test(value);
