import { describe, expect, test } from 'bun:test';
import {
  OTP_DIGITS,
  USER_CODE_ALPHABET,
  formatUserCode,
  generateClaimToken,
  generateOtp,
  generateUserCode,
  hashClaimToken,
  hashOtp,
  isClaimTokenFormat,
  normalizeUserCode,
  otpMatches,
} from '../../src/auth/agent/codes';
import { sha256Hex } from '../../src/ids';

/** Pearson's chi-square statistic of observed counts against a uniform expectation. */
function chiSquare(counts: number[], total: number): number {
  const expected = total / counts.length;
  return counts.reduce((sum, c) => sum + (c - expected) ** 2 / expected, 0);
}

describe('user codes', () => {
  test('alphabet: 20 consonants, no vowels, no digits, no duplicates', () => {
    expect(USER_CODE_ALPHABET).toBe('BCDFGHJKLMNPQRSTVWXZ');
    expect(new Set(USER_CODE_ALPHABET).size).toBe(20);
    expect(USER_CODE_ALPHABET).not.toMatch(/[AEIOUY0-9]/);
  });

  test('format XXXX-XXXX from the alphabet', () => {
    const shape = new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`);
    for (let i = 0; i < 2000; i++) expect(generateUserCode()).toMatch(shape);
  });

  test('codes differ (no fixed seed)', () => {
    const seen = new Set(Array.from({ length: 1000 }, generateUserCode));
    expect(seen.size).toBeGreaterThan(995);
  });

  test('distribution: every character about equally likely (chi-square, 19 dof)', () => {
    const counts = new Array<number>(USER_CODE_ALPHABET.length).fill(0);
    const samples = 20_000;
    for (let i = 0; i < samples; i++) {
      for (const ch of generateUserCode().replace('-', '')) {
        const idx = USER_CODE_ALPHABET.indexOf(ch);
        counts[idx] = (counts[idx] ?? 0) + 1;
      }
    }
    // Critical value at p = 0.0001 for 19 dof is about 49.5; a modulo bias of 256 % 20 would
    // push the first 16 letters up by 1/15 and blow well past it at this sample size.
    expect(chiSquare(counts, samples * 8)).toBeLessThan(49.5);
    expect(counts.every((c) => c > 0)).toBe(true);
  });

  test('normalisation strips separators and whitespace, uppercases, and keeps 8 alphabet letters', () => {
    const cases: Array<[string, string | null]> = [
      ['QZTW-KBDM', 'QZTWKBDM'],
      ['qztw-kbdm', 'QZTWKBDM'],
      [' qztw kbdm\n', 'QZTWKBDM'],
      ['QZTW.KBDM', 'QZTWKBDM'],
      ['QZTW—KBDM', 'QZTWKBDM'], // em dash from a chat app
      ['QZ-TW_KB/DM', 'QZTWKBDM'],
      ['QZTW\u200bKBDM', 'QZTWKBDM'], // zero-width space from a copy
      ['QZTWKBDM', 'QZTWKBDM'],
      ['QZTW-KBD', null],
      ['QZTW-KBDMM', null],
      ['QZTW-KBDA', null], // vowel
      ['QZTW-KBD0', null], // digit
      ['QZTW-KBDß', null], // would uppercase to SS
      ['ＱＺＴＷ-ＫＢＤＭ', null], // full-width letters
      ['', null],
      ['-'.repeat(100) + 'QZTWKBDM', null],
    ];
    for (const [input, want] of cases) expect(normalizeUserCode(input)).toBe(want);
  });

  test('generated codes round-trip through normalisation and formatting', () => {
    for (let i = 0; i < 200; i++) {
      const code = generateUserCode();
      const canonical = normalizeUserCode(code);
      expect(canonical).toBe(code.replace('-', ''));
      expect(canonical && formatUserCode(canonical)).toBe(code);
    }
  });
});

describe('OTPs', () => {
  test('six digits, leading zeros kept', () => {
    let leadingZero = 0;
    for (let i = 0; i < 5000; i++) {
      const otp = generateOtp();
      expect(otp).toMatch(/^[0-9]{6}$/);
      if (otp.startsWith('0')) leadingZero++;
    }
    expect(OTP_DIGITS).toBe(6);
    // About 500 expected; a generator that dropped leading zeros would give 0.
    expect(leadingZero).toBeGreaterThan(350);
    expect(leadingZero).toBeLessThan(650);
  });

  test('distribution: each digit position is uniform (chi-square, 9 dof)', () => {
    const samples = 20_000;
    const perPosition = Array.from({ length: 6 }, () => new Array<number>(10).fill(0));
    for (let i = 0; i < samples; i++) {
      const otp = generateOtp();
      for (let p = 0; p < 6; p++) {
        const counts = perPosition[p];
        const d = Number(otp[p]);
        if (counts) counts[d] = (counts[d] ?? 0) + 1;
      }
    }
    // Critical value at p = 0.0001 for 9 dof is about 33.7.
    for (const counts of perPosition) expect(chiSquare(counts, samples)).toBeLessThan(33.7);
  });

  const secret = 'server-secret-for-tests-0123456789';
  const reg = '6f1c1c2e-3c4b-4a7e-9b0a-2d7f3f4c5a6b';

  test('hash is HMAC-SHA256 hex, deterministic, and not a plain hash', () => {
    const h = hashOtp('123456', secret, reg);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(hashOtp('123456', secret, reg)).toBe(h);
    expect(h).not.toBe(sha256Hex('123456'));
  });

  test('the hash is bound to the registration, the secret and the code', () => {
    const h = hashOtp('123456', secret, reg);
    expect(hashOtp('123456', secret, 'another-registration')).not.toBe(h);
    expect(hashOtp('123456', 'another-secret', reg)).not.toBe(h);
    expect(hashOtp('123457', secret, reg)).not.toBe(h);
  });

  test('field boundaries cannot be shifted to forge a match', () => {
    expect(hashOtp('123456', secret, 'reg1')).not.toBe(hashOtp('23456', secret, 'reg11'));
  });

  test('binary secrets work too, and an empty secret is a programming error', () => {
    const bin = new Uint8Array(32).fill(7);
    expect(otpMatches('123456', hashOtp('123456', bin, reg), bin, reg)).toBe(true);
    expect(() => hashOtp('123456', '', reg)).toThrow('must not be empty');
  });

  test('otpMatches: right code, right registration', () => {
    const otp = generateOtp();
    expect(otpMatches(otp, hashOtp(otp, secret, reg), secret, reg)).toBe(true);
  });

  test('otpMatches: wrong code, other registration, other secret', () => {
    const stored = hashOtp('123456', secret, reg);
    expect(otpMatches('123457', stored, secret, reg)).toBe(false);
    expect(otpMatches('123456', stored, secret, 'another-registration')).toBe(false);
    expect(otpMatches('123456', stored, 'another-secret', reg)).toBe(false);
  });

  test('otpMatches: malformed input is no match and never throws', () => {
    const stored = hashOtp('123456', secret, reg);
    for (const otp of ['12345', '1234567', '12345a', ' 123456', '', '１２３４５６']) {
      expect(otpMatches(otp, stored, secret, reg)).toBe(false);
    }
    for (const bad of ['', 'abc', stored.slice(0, 62), `${stored}00`, stored.toUpperCase(), 'z'.repeat(64)]) {
      expect(otpMatches('123456', bad, secret, reg)).toBe(false);
    }
  });
});

describe('claim tokens', () => {
  test('clm_ prefix, 256 bits, stored as SHA-256', () => {
    const { token, hash } = generateClaimToken();
    expect(token).toMatch(/^clm_[A-Za-z0-9_-]{43}$/);
    expect(hash).toBe(sha256Hex(token));
    expect(hashClaimToken(token)).toBe(hash);
  });

  test('unique', () => {
    const seen = new Set(Array.from({ length: 1000 }, () => generateClaimToken().token));
    expect(seen.size).toBe(1000);
  });

  test('format check', () => {
    expect(isClaimTokenFormat(generateClaimToken().token)).toBe(true);
    for (const bad of ['', 'clm_', 'svc_' + 'a'.repeat(43), 'clm_' + 'a'.repeat(42), 'clm_' + 'a'.repeat(44), 'clm__' + 'a'.repeat(42) + '!', 5]) {
      expect(isClaimTokenFormat(bad)).toBe(false);
    }
  });
});
