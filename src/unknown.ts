/** Narrowing values typed `unknown`: JSON that came from outside, and whatever a `catch` caught. */

/**
 * A plain object: not null, not an array.
 *
 * @example
 * isRecord(JSON.parse('{"a":1}')) // true
 * isRecord(JSON.parse('[1]'))     // false
 */
export function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/**
 * The message of a caught error, whatever was thrown.
 *
 * @example
 * log.warn('purge failed; will retry', { error: errorMessage(err) });
 */
export function errorMessage(err: unknown): string {
  return err instanceof Error ? err.message : String(err);
}

/** What the API refuses in a parsed body before anything reads it. */
export type JsonHazard = { kind: 'nul' | 'surrogate' | 'proto' | 'depth'; path: string };

/** A UTF-16 surrogate not paired with its other half (`\ud800`): text no encoding can write. */
const LONE_SURROGATE = /\p{Cs}/u;

function textHazard(s: string): 'nul' | 'surrogate' | null {
  if (s.includes('\u0000')) return 'nul';
  return LONE_SURROGATE.test(s) ? 'surrogate' : null;
}

/**
 * The first hazard in a JSON-like value: a NUL character (U+0000) or a lone surrogate in a string
 * or a key (Postgres text and jsonb cannot store a NUL, and jsonb refuses `\ud800` alone: both
 * failed the write with a 500); a key named `__proto__` (JSON.parse makes it an own property, but
 * the route's schema check copies objects key by key and loses it: a `headers` record would be
 * used without it and the answer would not say so); or nesting deeper than `maxDepth` (recursive
 * code downstream, such as a validator's error report, would overflow the stack). `path` names
 * where, like `mockResponse.headers.x` (`""` for the value itself). Iterative, so any depth is
 * safe here.
 *
 * @example
 * jsonHazard({ name: 'a\u0000b' })        // { kind: 'nul', path: 'name' }
 * jsonHazard({ name: 'a\ud800' })         // { kind: 'surrogate', path: 'name' }
 * jsonHazard(JSON.parse('{"headers":{"__proto__":"x"}}')) // { kind: 'proto', path: 'headers.__proto__' }
 * jsonHazard([[['x']]], 2)               // { kind: 'depth', path: '0.0' }
 * jsonHazard({ name: 'ab' })             // null
 */
export function jsonHazard(value: unknown, maxDepth = Number.POSITIVE_INFINITY): JsonHazard | null {
  const pending: [unknown, string, number][] = [[value, '', 0]];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    const [v, path, depth] = next;
    if (typeof v === 'string') {
      const kind = textHazard(v);
      if (kind) return { kind, path };
    } else if (typeof v === 'object' && v !== null) {
      if (depth >= maxDepth) return { kind: 'depth', path };
      for (const [k, child] of Object.entries(v)) {
        const here = path ? `${path}.${k}` : k;
        const kind = k === '__proto__' ? 'proto' : textHazard(k);
        if (kind) return { kind, path: here };
        if (typeof child === 'string' || (typeof child === 'object' && child !== null)) pending.push([child, here, depth + 1]);
      }
    }
  }
  return null;
}

/** The message of a refused hazard, e.g. "name must not contain NUL (\\u0000)". */
export function hazardMessage(h: JsonHazard, maxDepth: number): string {
  const where = h.path || 'the body';
  if (h.kind === 'nul') return `${where} must not contain NUL (\\u0000)`;
  if (h.kind === 'proto') return `${where}: a key named __proto__ cannot be kept (it is a JavaScript prototype key)`;
  if (h.kind === 'surrogate') return `${where} must be Unicode text: it holds half of a surrogate pair (such as \\ud800) without the other`;
  return `${where} is nested more than ${maxDepth} levels deep`;
}
