import { describe, expect, test } from 'bun:test';
import { isWellFormedEmail } from '../../src/auth/agent/email';
import { assertFirstUse, createMemoryJtiStore } from '../../src/auth/agent/replay';
import { expectCode } from './idp';

describe('assertFirstUse', () => {
  const token = { iss: 'https://idp.example', jti: 'j-1', exp: 1_760_000_300 };

  test('first use passes, a replay is replay_detected', async () => {
    const store = createMemoryJtiStore();
    await assertFirstUse(store, 'assertion', token);
    await expectCode(assertFirstUse(store, 'assertion', token), 'replay_detected');
    await expectCode(assertFirstUse(store, 'assertion', { ...token, exp: token.exp + 999 }), 'replay_detected');
  });

  test('jti is scoped by purpose and issuer', async () => {
    const store = createMemoryJtiStore();
    await assertFirstUse(store, 'assertion', token);
    await assertFirstUse(store, 'logout', token);
    await assertFirstUse(store, 'assertion', { ...token, iss: 'https://other.example' });
    await expectCode(assertFirstUse(store, 'logout', token), 'replay_detected');
  });
});

describe('isWellFormedEmail', () => {
  test('accepts ordinary addresses', () => {
    for (const e of ['ada@example.com', 'a.b+tag@sub.example.co.uk', 'x@xn--80ak6aa92e.com', "o'neil@example.org"]) {
      expect(isWellFormedEmail(e)).toBe(true);
    }
  });

  test('refuses junk', () => {
    const bad: unknown[] = [
      '',
      'ada',
      'ada@',
      '@example.com',
      'ada@localhost',
      'ada@@example.com',
      'a@b@example.com',
      'ada @example.com',
      'ada@exa mple.com',
      'ada@example.c',
      'ada@-example.com',
      'ada@example..com',
      'ada\n@example.com',
      `${'a'.repeat(65)}@example.com`,
      `a@${'b'.repeat(250)}.com`,
      42,
      null,
    ];
    for (const e of bad) expect(isWellFormedEmail(e)).toBe(false);
  });
});
