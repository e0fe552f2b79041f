import { describe, expect, test } from 'bun:test';
import { isWellFormedEmail } from '../../src/model/email';

describe('isWellFormedEmail', () => {
  test('accepts ordinary addresses', () => {
    for (const e of ['ada@example.com', 'a.b+tag@sub.example.co.uk', 'x@xn--80ak6aa92e.com', "o'neil@example.org", 'Ada.Lovelace@Example.COM']) {
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
      // what the mailer must never see as one address: lists and display names
      'a@example.com,b@example.com',
      'a@example.com;b@example.com',
      'Ada <ada@example.com>',
      '"ada"@example.com',
      42,
      null,
    ];
    for (const e of bad) expect(isWellFormedEmail(e)).toBe(false);
  });
});
