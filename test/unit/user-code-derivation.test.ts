import { describe, expect, test } from 'bun:test';
import { generateClaimToken, hashUserCode, normalizeUserCode, USER_CODE_ALPHABET, userCodeForClaimToken } from '../../src/auth/agent/codes';

const SECRET = 'test-secret-of-reasonable-length';

describe('userCodeForClaimToken', () => {
  test('is a valid XXXX-XXXX code, stable for one token and secret', () => {
    const { token } = generateClaimToken();
    const code = userCodeForClaimToken(token, SECRET);
    expect(code).toMatch(new RegExp(`^[${USER_CODE_ALPHABET}]{4}-[${USER_CODE_ALPHABET}]{4}$`));
    expect(userCodeForClaimToken(token, SECRET)).toBe(code);
    expect(normalizeUserCode(code.toLowerCase())).toBe(code.replace('-', ''));
  });

  test('depends on the token and on the secret', () => {
    const tokens = Array.from({ length: 500 }, () => generateClaimToken().token);
    expect(new Set(tokens.map((t) => userCodeForClaimToken(t, SECRET))).size).toBeGreaterThan(495);
    const t = tokens[0] ?? '';
    const differs = ['a', 'b', 'c', 'd'].filter((s) => userCodeForClaimToken(t, `${SECRET}${s}`) !== userCodeForClaimToken(t, SECRET));
    expect(differs.length).toBeGreaterThanOrEqual(3);
  });

  test('every alphabet letter about equally likely', () => {
    const counts = new Map<string, number>();
    const samples = 5000;
    for (let i = 0; i < samples; i++) {
      for (const ch of userCodeForClaimToken(generateClaimToken().token, SECRET).replace('-', '')) counts.set(ch, (counts.get(ch) ?? 0) + 1);
    }
    const expected = (samples * 8) / USER_CODE_ALPHABET.length;
    const chi = [...USER_CODE_ALPHABET].reduce((s, ch) => s + ((counts.get(ch) ?? 0) - expected) ** 2 / expected, 0);
    expect(chi).toBeLessThan(49.5); // p = 0.0001 at 19 dof
  });

  test('an empty secret is refused', () => {
    expect(() => userCodeForClaimToken('clm_x', '')).toThrow();
    expect(() => hashUserCode('BCDFGHJK', '')).toThrow();
  });
});

describe('hashUserCode', () => {
  test('keyed: not the plain SHA-256, and different per secret', () => {
    const a = hashUserCode('BCDFGHJK', SECRET);
    expect(a).toMatch(/^[0-9a-f]{64}$/);
    expect(hashUserCode('BCDFGHJK', SECRET)).toBe(a);
    expect(hashUserCode('BCDFGHJK', `${SECRET}x`)).not.toBe(a);
    expect(hashUserCode('BCDFGHJL', SECRET)).not.toBe(a);
  });
});
