/**
 * Two captures side by side, as the rows that differ: request facts, headers, and the body (a
 * JSON body field by field, by path; text line by line around what both share at the start and
 * end; binary bodies only as equal or not). Linear in the sizes, capped, and free of DOM code.
 */
import { headerText } from './decode';
import type { Capture } from '../../../src/model/capture';
import { bodyKind, formRows, parseJson } from './body';
import { plural } from './format';
import { missingSignatureHeader } from './signature';
import { readableCaptureQuery, readablePath } from './url';

/** One difference: `a` in the open request, `b` in the one it is compared with; null when absent. */
export interface DiffRow {
  name: string;
  a: string | null;
  b: string | null;
}

export interface Diff {
  rows: DiffRow[];
  /** Entries equal in both. */
  same: number;
  /** Why the rows stop short, or why there are none though the bodies differ. */
  note?: string;
}

/** More than anyone reads; also bounds the work on a hostile body. */
export const MAX_ROWS = 500;
const MAX_LEAVES = 50_000;
const MAX_DEPTH = 64;

function compareMaps(a: Map<string, string>, b: Map<string, string>): Diff {
  const rows: DiffRow[] = [];
  let same = 0;
  for (const [name, av] of a) {
    const bv = b.get(name);
    if (bv === av) same++;
    else rows.push({ name, a: av, b: bv ?? null });
  }
  for (const [name, bv] of b) if (!a.has(name)) rows.push({ name, a: null, b: bv });
  return capped({ rows, same });
}

function capped(d: Diff): Diff {
  if (d.rows.length <= MAX_ROWS) return d;
  return { ...d, rows: d.rows.slice(0, MAX_ROWS), note: `The first ${MAX_ROWS} of ${d.rows.length.toLocaleString('en')} differences.` };
}

export function factsDiff(a: Capture, b: Capture): Diff {
  const facts = (c: Capture) =>
    new Map<string, string>([
      ['Method', c.method],
      ['Path and query', `${readablePath(c.path)}${readableCaptureQuery(c)}`],
      ['Content type', c.contentType || 'none'],
      ['Size', plural(c.size, 'byte')],
      ['Answered', c.responseStatus === undefined ? 'unknown' : String(c.responseStatus)],
      ['Sender', [c.detectedProvider, c.detectedEvent].filter(Boolean).join(' ') || 'not recognised'],
      ['Signature', c.signatureVerified === undefined ? 'not checked' : c.signatureVerified ? 'verified' : missingSignatureHeader(c.signatureError) ? `unsigned: ${c.signatureError}` : `not verified: ${c.signatureError ?? 'unknown'}`],
      ['From', c.ip],
    ]);
  return compareMaps(facts(a), facts(b));
}

/** Compared as stored (byte for byte), shown as read: a UTF-8 value as its text (lib/decode.ts). */
export function headersDiff(a: Capture, b: Capture): Diff {
  const d = compareMaps(new Map(Object.entries(a.headers)), new Map(Object.entries(b.headers)));
  return { ...d, rows: d.rows.map((r) => ({ ...r, a: r.a === null ? null : headerText(r.a), b: r.b === null ? null : headerText(r.b) })) };
}

const PLAIN_KEY = /^[A-Za-z_$][\w$]*$/;

/** A key as a step of a path: `.amount` (`amount` at the top), `["odd key"]`; an index as `[2]`. */
export function pathStep(key: string | number, top: boolean): string {
  if (typeof key === 'number') return `[${key}]`;
  return PLAIN_KEY.test(key) ? `${top ? '' : '.'}${key}` : `[${JSON.stringify(key)}]`;
}

/** Leaves by path (`data.object.amount`, `items[2].id`, `["odd key"]`), values as JSON; false when too big. */
function leaves(value: unknown): Map<string, string> | false {
  const out = new Map<string, string>();
  const walk = (v: unknown, path: string, depth: number): boolean => {
    if (out.size > MAX_LEAVES) return false;
    if (v !== null && typeof v === 'object' && depth < MAX_DEPTH) {
      const entries: [string, unknown][] = Array.isArray(v) ? v.map((x, i) => [pathStep(i, !path), x]) : Object.entries(v).map(([k, x]) => [pathStep(k, !path), x]);
      if (entries.length === 0) out.set(path || '(top)', Array.isArray(v) ? '[]' : '{}');
      for (const [k, x] of entries) if (!walk(x, path + k, depth + 1)) return false;
      return true;
    }
    out.set(path || '(top)', JSON.stringify(v) ?? String(v));
    return true;
  };
  return walk(value, '', 0) ? out : false;
}

function linesDiff(a: string, b: string): Diff {
  const al = a.split('\n');
  const bl = b.split('\n');
  let start = 0;
  while (start < al.length && start < bl.length && al[start] === bl[start]) start++;
  let end = 0;
  while (end < al.length - start && end < bl.length - start && al[al.length - 1 - end] === bl[bl.length - 1 - end]) end++;
  const rows: DiffRow[] = [];
  const n = Math.max(al.length, bl.length) - start - end;
  for (let i = 0; i < n; i++) {
    const ai = start + i < al.length - end ? al[start + i] : undefined;
    const bi = start + i < bl.length - end ? bl[start + i] : undefined;
    rows.push({ name: `line ${start + i + 1}`, a: ai ?? null, b: bi ?? null });
  }
  return capped({ rows, same: start + end });
}

export type BodyDiff = Diff & { by: 'field' | 'line' | 'bytes' };

export function bodyDiff(a: Capture, b: Capture): BodyDiff {
  if (a.body === b.body && a.bodyEncoding === b.bodyEncoding) return { by: 'bytes', rows: [], same: 1 };
  const ka = bodyKind(a);
  const kb = bodyKind(b);
  if (ka === 'json' && kb === 'json') {
    const la = leaves(parseJson(a.body));
    const lb = leaves(parseJson(b.body));
    if (la && lb) return { by: 'field', ...compareMaps(la, lb) };
  }
  if (ka === 'form' && kb === 'form') {
    // A repeated field is told apart by its count: `tag`, `tag (2)`.
    const fields = (text: string) => {
      const seen = new Map<string, number>();
      const out = new Map<string, string>();
      for (const [k, v] of formRows(text)) {
        const n = (seen.get(k) ?? 0) + 1;
        seen.set(k, n);
        out.set(n === 1 ? k : `${k} (${n})`, v);
      }
      return out;
    };
    return { by: 'field', ...compareMaps(fields(a.body), fields(b.body)) };
  }
  if (a.bodyEncoding === 'utf8' && b.bodyEncoding === 'utf8') return { by: 'line', ...linesDiff(a.body, b.body) };
  return { by: 'bytes', rows: [{ name: 'body', a: `${a.size.toLocaleString('en')} bytes`, b: `${b.size.toLocaleString('en')} bytes` }], same: 0, note: 'Binary bodies: they differ (the Hex view of each shows where).' };
}
