import { describe, expect, test } from 'bun:test';
import { BACKENDS } from '../support/backends';
import { quoteIdentifier, quoteInt, quoteString, quoteStringList } from '../../src/stores/captures/sql-quote';

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
/** Round trips through a real ClickHouse: skipped when `TEST_BACKENDS=embedded` runs without services. */
const withClickHouse = test.skipIf(!BACKENDS.includes('server'));

const CONTROL_CHARS = Array.from({ length: 32 }, (_, i) => String.fromCharCode(i)).join('') + '\u007f';

const HOSTILE: readonly string[] = [
  '',
  "'",
  "''",
  '\\',
  "\\'",
  "\\\\'",
  'ends with a backslash\\',
  "'; DROP TABLE captures; --",
  "' OR 1=1 --",
  "x' UNION ALL SELECT name FROM system.tables --",
  "--\nSELECT 1",
  '/* comment */',
  '{name:String}',
  '?',
  '%_',
  '"double" `back` $$dollar$$',
  CONTROL_CHARS,
  'nul\u0000inside',
  'ünïcödé 🎉 中文 עברית e\u0301',
  'lone surrogate \ud800 here',
  "'".repeat(1000) + '\\'.repeat(1000),
];

/** Asks ClickHouse to read the literal back, the only proof that matters. */
async function clickhouse(query: string): Promise<string> {
  const res = await fetch(CLICKHOUSE_URL, { method: 'POST', body: query });
  const text = await res.text();
  if (!res.ok) throw new Error(`ClickHouse ${res.status}: ${text}`);
  return text;
}

describe('quoteString', () => {
  test('escapes quote, backslash and control characters', () => {
    expect(quoteString("it's")).toBe("'it\\'s'");
    expect(quoteString('a\\b')).toBe("'a\\\\b'");
    expect(quoteString('a\nb\tc\rd\0e')).toBe("'a\\nb\\tc\\rd\\0e'");
    expect(quoteString('\u0001\u001f\u007f')).toBe("'\\x01\\x1f\\x7f'");
    expect(quoteString('plain ünï')).toBe("'plain ünï'");
  });

  test('output is one line with no unescaped quote', () => {
    for (const value of HOSTILE) {
      const literal = quoteString(value);
      const inner = literal.slice(1, -1);
      expect(literal.startsWith("'") && literal.endsWith("'")).toBe(true);
      expect(inner).not.toMatch(/[\n\r\0]/);
      // Every quote inside is preceded by an odd run of backslashes.
      for (const m of inner.matchAll(/(\\*)'/g)) expect((m[1] ?? '').length % 2).toBe(1);
    }
  });

  test('rejects non-strings at run time', () => {
    expect(() => quoteString(42 as unknown as string)).toThrow(TypeError);
    expect(() => quoteString(null as unknown as string)).toThrow(TypeError);
  });

  withClickHouse('ClickHouse reads every hostile string back unchanged (needs the server backend)', async () => {
    for (const value of HOSTILE) {
      const out = await clickhouse(`SELECT ${quoteString(value)} AS s FORMAT JSONEachRow`);
      const parsed: unknown = JSON.parse(out);
      expect(parsed).toEqual({ s: value.toWellFormed() });
    }
  });
});

describe('quoteInt', () => {
  test('renders safe integers', () => {
    expect(quoteInt(0)).toBe('0');
    expect(quoteInt(-0)).toBe('0');
    expect(quoteInt(-5)).toBe('-5');
    expect(quoteInt(1_700_000_000_123)).toBe('1700000000123');
    expect(quoteInt(Number.MAX_SAFE_INTEGER)).toBe('9007199254740991');
  });

  test('rejects anything else', () => {
    for (const bad of [Number.NaN, Infinity, -Infinity, 1.5, 2 ** 53, 1e300]) {
      expect(() => quoteInt(bad)).toThrow(RangeError);
    }
    expect(() => quoteInt('1; DROP TABLE x' as unknown as number)).toThrow(RangeError);
    expect(() => quoteInt(BigInt(1) as unknown as number)).toThrow(RangeError);
  });
});

describe('quoteStringList', () => {
  test('renders a parenthesised list', () => {
    expect(quoteStringList(['a', "b'c"])).toBe("('a', 'b\\'c')");
    expect(quoteStringList(['only'])).toBe("('only')");
  });

  test('refuses an empty list', () => {
    expect(() => quoteStringList([])).toThrow(RangeError);
  });

  withClickHouse('ClickHouse matches hostile members literally (needs the server backend)', async () => {
    const list = quoteStringList(HOSTILE);
    for (const value of HOSTILE) {
      expect((await clickhouse(`SELECT ${quoteString(value)} IN ${list}`)).trim()).toBe('1');
    }
    expect((await clickhouse(`SELECT 'x' IN ${list}`)).trim()).toBe('0');
  });
});

describe('quoteIdentifier', () => {
  test('accepts plain identifiers', () => {
    expect(quoteIdentifier('hookcap_test_ab12')).toBe('`hookcap_test_ab12`');
    expect(quoteIdentifier('_x')).toBe('`_x`');
  });

  test('rejects everything else', () => {
    for (const bad of ['', '1abc', 'a-b', 'a b', 'a`b', 'a;DROP', 'db.table', 'ünï', "a'"]) {
      expect(() => quoteIdentifier(bad)).toThrow(RangeError);
    }
  });
});
