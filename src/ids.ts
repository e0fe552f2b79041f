/**
 * Prefixed identifiers. Capture ids are ULIDs (48-bit ms time + 80 random bits, Crockford base32)
 * so that their order is time order and a capture's time can be read back from its id.
 */
const CROCKFORD = '0123456789ABCDEFGHJKMNPQRSTVWXYZ';

let lastTime = -1;
const lastRandom = new Uint8Array(10);

function encodeTime(ms: number): string {
  let out = '';
  let n = ms;
  for (let i = 0; i < 10; i++) {
    out = CROCKFORD[n % 32] + out;
    n = Math.floor(n / 32);
  }
  return out;
}

function encodeRandom(bytes: Uint8Array): string {
  // 80 bits → 16 base32 chars, 5 bits each, most significant first.
  let out = '';
  let acc = 0;
  let bits = 0;
  for (const b of bytes) {
    acc = (acc << 8) | b;
    bits += 8;
    while (bits >= 5) {
      out += CROCKFORD[(acc >> (bits - 5)) & 31];
      bits -= 5;
    }
    acc &= (1 << bits) - 1;
  }
  return out;
}

/** Monotonic within one process: ids made in the same ms still sort in creation order. */
export function ulid(ms: number = Date.now()): string {
  if (ms === lastTime) {
    for (let i = lastRandom.length - 1; i >= 0; i--) {
      if (lastRandom[i] === 255) {
        lastRandom[i] = 0;
      } else {
        lastRandom[i] = (lastRandom[i] ?? 0) + 1;
        break;
      }
    }
  } else {
    lastTime = ms;
    crypto.getRandomValues(lastRandom);
  }
  return encodeTime(ms) + encodeRandom(lastRandom);
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
