/**
 * docs/configuration.md against src/config.ts, both ways: every variable loadConfig reads has an
 * entry on the page and every entry names one it reads; a default given as a value (`3000`,
 * `600/60`, `true`, `hookcap`, a JSON `PLANS`) is the real one (setting it changes nothing); and a
 * number's minimum, when it is not the page's general 1, and its maximum are stated in its entry
 * (`min 0`, `at least 1000`, `at most 1000`, `0–65535`). The kinds and bounds are read from what
 * loadConfig answers, not from its source, so a new setting of any kind is covered.
 */
import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { loadConfig } from '../../src/config';

/** loadConfig only reads: DATA_DIR stays unset so its default is checked too. */
const BASE: Record<string, string> = {};
const DOC = readFileSync(join(import.meta.dir, '../../docs/configuration.md'), 'utf8');

/** Defaults that depend on another setting, checked elsewhere. */
const CONDITIONAL: Record<string, string> = {
  SHIP_MAX_AGE_MS: 'per capture backend: test/unit/config-defaults.test.ts',
};

/** Every variable loadConfig reads, with the default environment. */
function variablesRead(): string[] {
  const seen = new Set<string>();
  const env = new Proxy({ ...BASE } as Record<string, string | undefined>, {
    get(target, key) {
      if (typeof key === 'string') seen.add(key);
      return target[key as string];
    },
  });
  loadConfig(env);
  return [...seen].sort();
}

interface Entry {
  text: string;
  /** The default as a value to set, when the page gives one. */
  value?: string;
}

/** The page's entries: the table's rows and the feature settings' `VAR` (default; …) list. */
function entries(): Map<string, Entry> {
  const out = new Map<string, Entry>();
  for (const m of DOC.matchAll(/^\| `([A-Z][A-Z0-9_]+)` \| ([^|]*) \|(.*)$/gm)) {
    const cell = m[2]!.trim();
    const literal = /^`([^`]+)`/.exec(cell)?.[1];
    out.set(m[1]!, { text: m[0], value: literal !== undefined && !literal.includes('$') && !/^[A-Z][A-Z0-9_]+$/.test(literal) ? literal : undefined });
  }
  const start = DOC.indexOf('Feature settings');
  const list = DOC.slice(start, DOC.indexOf('\n## ', start));
  const names = [...list.matchAll(/`([A-Z][A-Z0-9_]{2,})`/g)];
  names.forEach((m, i) => {
    const text = list.slice(m.index, names[i + 1]?.index ?? list.length);
    const paren = /^`[A-Z0-9_]+`\s*\(([^;)]*?)[;)]/.exec(text)?.[1]?.trim() ?? /^`[A-Z0-9_]+`\s*\(`([^`]*)`\)/.exec(text)?.[1];
    let value: string | undefined;
    if (paren !== undefined) {
      const quoted = /^`([^`]+)`$/.exec(paren)?.[1];
      value = quoted ?? (/^(-?\d+|true|false)$/.test(paren) ? paren : undefined);
    }
    const json = /^`[A-Z0-9_]+`\s*\(`(\{[^`]*\})`\)/.exec(text)?.[1];
    if (!out.has(m[1]!)) out.set(m[1]!, { text, value: json ?? value });
  });
  return out;
}

const digits = (n: number) => `(?:${String(n)}|${n.toLocaleString('en-US')})`;

test('every setting src/config.ts reads is on docs/configuration.md, and every entry there is read', () => {
  const read = variablesRead();
  const documented = entries();
  expect(read.filter((v) => !documented.has(v))).toEqual([]);
  expect([...documented.keys()].filter((v) => !read.includes(v))).toEqual([]);
  expect(read.length).toBeGreaterThan(60);
});

test('each default the page gives as a value is the one loadConfig uses', () => {
  const defaults = loadConfig(BASE);
  const wrong: string[] = [];
  let checked = 0;
  for (const [name, { value }] of entries()) {
    if (value === undefined || name in CONDITIONAL) continue;
    checked++;
    let set: unknown;
    try {
      set = loadConfig({ ...BASE, [name]: value });
    } catch (err) {
      wrong.push(`${name}=${value}: ${(err as Error).message}`);
      continue;
    }
    try {
      expect(set).toEqual(defaults);
    } catch {
      wrong.push(`${name}: the documented default ${value} is not the default`);
    }
  }
  expect(wrong).toEqual([]);
  expect(checked).toBeGreaterThan(50);
});

test('every number setting states its minimum (when not 1) and its maximum', () => {
  const documented = entries();
  const missing: string[] = [];
  for (const name of variablesRead()) {
    const problem = (value: string): string | null => {
      try {
        loadConfig({ ...BASE, [name]: value });
        return null;
      } catch (err) {
        return (err as Error).message;
      }
    };
    if (!problem('x')?.includes('must be an integer')) continue;
    const text = documented.get(name)?.text ?? '';
    const belowAny = problem('-99999999999999');
    const min = belowAny === null ? -Infinity : Number(/must be an integer ≥ (-?\d+)/.exec(belowAny)?.[1]);
    const max = Number(/must be at most (\d+),/.exec(problem(String(Number.MAX_SAFE_INTEGER)) ?? '')?.[1] ?? NaN);
    if (min < 0) {
      if (!/negative/.test(text)) missing.push(`${name}: may be negative`);
    } else if (min !== 1 && !new RegExp(`(?:min|at least|≥)\\s*${digits(min)}\\b|\\b${digits(min)}–`, 'i').test(text)) {
      missing.push(`${name}: min ${min}`);
    }
    if (Number.isFinite(max) && !new RegExp(`(?:at most|≤)\\s*${digits(max)}\\b|–${digits(max)}\\b`, 'i').test(text)) {
      missing.push(`${name}: at most ${max}`);
    }
  }
  expect(missing).toEqual([]);
});
