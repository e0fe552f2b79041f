/**
 * The capture filters `tail` and `listen` share (`--method`, `--path`, `--event`, `--header`): one
 * predicate over a capture and the same filters in words, for opening lines and errors. Matched
 * in the CLI on the stream's records, as search matches them on the server (docs/search.md).
 */
import { describeMatcher, matches, type Capture, type RequestMatcher } from '../client/index';
import type { HeaderFilter } from '../src/stores/captures/types';
import { headerValuePattern } from './header-match';

export interface CaptureFilterOptions {
  method?: string;
  /** The path after the slug; a leading `/` is added when left out (`stripe` → `/stripe`). */
  path?: string;
  /** The detected event (invoice.paid). */
  event?: string;
  /** Every one must hold, as search's `header` (a name alone: the header is there). */
  headers?: readonly HeaderFilter[];
}

export interface CaptureFilter {
  wanted: (c: Capture) => boolean;
  /** The filters in words, or null when there are none (every capture is wanted). */
  said: string | null;
}

/**
 * Header filters as a matcher's headers: a name alone asks for the header, a value for a
 * case-insensitive substring (a RegExp; `describeFilters` says it in words). The same name twice
 * must hold both values.
 */
export function headerMatchers(filters: readonly HeaderFilter[]): RequestMatcher['headers'] {
  const values = new Map<string, string[]>();
  for (const f of filters) values.set(f.name, [...(values.get(f.name) ?? []), ...(f.value === '' ? [] : [f.value])]);
  // No prototype: a header may be named __proto__.
  const out: NonNullable<RequestMatcher['headers']> = Object.create(null);
  for (const [name, wanted] of values) {
    const [only] = wanted;
    if (only === undefined) out[name] = true;
    else if (wanted.length === 1) out[name] = new RegExp(headerValuePattern(only), 'iu');
    else out[name] = new RegExp(wanted.map((v) => `(?=[\\s\\S]*${headerValuePattern(v)})`).join(''), 'iu');
  }
  return out;
}

/**
 * The filters in words: `POST /stripe, header x-github-event containing "push" in any case`.
 * Header filters are said as they match (a case-insensitive substring), not as the RegExp
 * `headerMatchers` builds; a value as typed.
 */
export function describeFilters(matcher: Omit<RequestMatcher, 'headers'>, filters: readonly HeaderFilter[]): string {
  const parts = Object.values(matcher).some((v) => v !== undefined) ? [describeMatcher(matcher)] : [];
  const values = new Map<string, string[]>();
  for (const f of filters) values.set(f.name, [...(values.get(f.name) ?? []), ...(f.value === '' ? [] : [f.value])]);
  for (const [name, wanted] of values) {
    parts.push(wanted.length === 0 ? `header ${name}` : `header ${name} containing ${wanted.map((v) => JSON.stringify(v)).join(' and ')} in any case`);
  }
  return parts.length === 0 ? 'any request' : parts.join(', ');
}

export function captureFilter(opts: CaptureFilterOptions): CaptureFilter {
  const path = opts.path === undefined || opts.path.startsWith('/') ? opts.path : `/${opts.path}`;
  const headers = opts.headers ?? [];
  const matcher: RequestMatcher = { method: opts.method, path, event: opts.event, headers: headers.length > 0 ? headerMatchers(headers) : undefined };
  if (!Object.values(matcher).some((v) => v !== undefined)) return { wanted: () => true, said: null };
  return { wanted: matches(matcher), said: describeFilters({ method: opts.method, path, event: opts.event }, headers) };
}
