/**
 * A parsed JSON body as the tree draws it: every string (values and keys) with the characters that
 * would hide or reorder text (U+202E RIGHT-TO-LEFT OVERRIDE, zero-width and other format
 * characters, controls) written as JSON escapes, `\u202E`. The tree draws strings as they are, so
 * `{"file": "\u202Efdp.exe"}` read `file: ", "exe.pdf` and an overridden key reordered its line;
 * the URL and the tables already show such characters escaped (`readableValue` in url.ts).
 * Tab and line breaks stay as they are. Only for drawing: picking, Copy value and the comparison
 * use the body as parsed.
 */
import { HIDDEN, hiddenInValue } from './url';

const jsonEscape = (ch: string): string =>
  Array.from({ length: ch.length }, (_, i) => `\\u${ch.charCodeAt(i).toString(16).toUpperCase().padStart(4, '0')}`).join('');

/** A string with its hidden characters as JSON escapes; the same string when it has none. */
export function shownText(text: string): string {
  if (!HIDDEN.test(text)) return text;
  let out = '';
  for (const ch of text) out += hiddenInValue(ch) ? jsonEscape(ch) : ch;
  return out;
}

function walk(value: unknown): unknown {
  if (typeof value === 'string') return shownText(value);
  if (value === null || typeof value !== 'object') return value;
  if (Array.isArray(value)) {
    let out: unknown[] | null = null;
    value.forEach((item: unknown, i) => {
      const shown = walk(item);
      if (shown !== item) (out ??= value.slice())[i] = shown;
    });
    return out ?? value;
  }
  const entries = Object.entries(value);
  let changed = false;
  const shown = entries.map(([k, v]): [string, unknown] => {
    const key = shownText(k);
    const item = walk(v);
    if (key !== k || item !== v) changed = true;
    return [key, item];
  });
  if (!changed) return value;
  const out = Object.fromEntries(shown);
  // Two keys that escape alike (one sent already escaped) would merge, and every later field would
  // be picked at the wrong place: drawn as parsed instead.
  return Object.keys(out).length === entries.length ? out : value;
}

/** The body to draw (the same object when nothing in it needs escaping). */
export function shownJson<T>(value: T): T {
  try {
    return walk(value) as T;
  } catch {
    // A body nested deeper than the stack allows: drawn as parsed (the tree opens 24 levels anyway).
    return value;
  }
}
