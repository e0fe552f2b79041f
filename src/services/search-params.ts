/**
 * The query string of `GET /api/search/requests[/count]`, checked and normalised. Pure (the clock
 * and the limits are passed in) so every rule is unit-tested without a server; each refusal is a
 * 400 whose message names the parameter.
 */
import { AppError, type ErrorCode } from '../errors';
import type { HeaderFilter } from '../stores/captures/types';
import { TimeParseError, TimeRangeError, parseTimeRange } from '../time-range';

/** The query as it arrives: every value a string, every one optional. */
export interface RawSearchQuery {
  slug?: string;
  method?: string;
  q?: string;
  from?: string;
  to?: string;
  limit?: string;
  offset?: string;
  order?: string;
  pinned?: string;
  /** Every `header` given, in order: the one parameter that may repeat. */
  header?: string[];
}

export interface SearchLimits {
  defaultLimit: number;
  maxLimit: number;
  maxOffset: number;
}

/** What both search and count filter on. */
export interface SearchCriteria {
  slug?: string;
  /** Upper-case. */
  method?: string;
  /** Non-empty when present. */
  q?: string;
  from?: number;
  to?: number;
  /** Only pinned captures (docs/retention.md). */
  pinned?: boolean;
  /** Header filters, all of which must hold; absent when none was given. */
  headers?: HeaderFilter[];
}

export interface SearchPageParams extends SearchCriteria {
  limit: number;
  offset: number;
  order: 'asc' | 'desc';
}

/** Longest `q`: a search box, not a document; keeps statements and scans bounded. */
export const MAX_Q_LENGTH = 256;

// An HTTP method is a token (RFC 9110 §5.6.2); 32 characters is far beyond any real one.
const METHOD = /^[!#$%&'*+.^_`|~0-9A-Za-z-]{1,32}$/;
// A header name is a token too; the receiver stores no other.
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** Most `header` filters in one call: each is a test on every row the other filters leave. */
export const MAX_HEADER_FILTERS = 8;
// Plain decimal digits and nothing else: no sign, space, point, exponent or `0x`. Number() and
// Elysia's numeric query read `1e3`, ` 5` and `0x10` as numbers; a caller who sent those meant
// something this service cannot be sure of, so every route refuses them alike.
const UNSIGNED = /^\d{1,15}$/;

const invalid = (message: string) => new AppError('validation', message);

/**
 * What a `limit` takes, worded as a route schema's refusal is (src/schema-words.ts). One above
 * `max` is not refused: fewer are returned (docs/api.md, "list limits").
 */
export const limitWords = (max: number): string => `must be an integer of at least 1 (at most ${max} are returned)`;

/** A `limit` refused, naming the field: `limit: must be an integer of at least 1 (…)`. Every list, search and sandbox listing says this. */
export const limitRefusal = (max: number): string => `limit: ${limitWords(max)}`;

/** A whole number as the query string gives it (plain decimal digits), or null. */
function unsigned(raw: string): number | null {
  return UNSIGNED.test(raw) ? Number(raw) : null;
}

/**
 * A `limit` as the query string gives it, for every route that takes one (the endpoint's list and
 * pages, search, the agent sandbox's listing), so each accepts and refuses the same text in the
 * same words: absent or empty is not given (undefined); otherwise plain decimal digits of at least
 * 1, not capped here. `code` is the refusal's (the agent API refuses as `invalid_request`).
 *
 * @example parseLimit('50', 1000) === 50; parseLimit('1e3', 1000) // throws `limit: must be …`
 */
export function parseLimit(raw: string | undefined, max: number, code: ErrorCode = 'validation'): number | undefined {
  if (raw === undefined || raw === '') return undefined;
  const n = unsigned(raw);
  if (n === null || n < 1) throw new AppError(code, limitRefusal(max));
  return n;
}

/**
 * A query parameter that may be given once, or undefined when it is not given. Twice is refused,
 * not guessed at (which one did the caller mean?), in the words of every route that reads it so:
 * search, count and the endpoint's request lists.
 *
 * @example givenOnce(new URLSearchParams('limit=1&limit=2'), 'limit') // throws `limit: was given 2 times; give it once`
 */
export function givenOnce(params: URLSearchParams, name: string): string | undefined {
  const values = params.getAll(name);
  if (values.length > 1) throw invalid(`${name}: was given ${values.length} times; give it once`);
  return values[0];
}

const PARAMETERS = ['slug', 'method', 'q', 'from', 'to', 'limit', 'offset', 'order', 'pinned'] as const;

/**
 * The search parameters of a query string (`names`, by default all of them); one given twice is
 * refused rather than guessed at, except `header`, whose every occurrence is one more filter (they
 * all must hold).
 */
export function readSearchQuery(params: URLSearchParams, names: readonly (typeof PARAMETERS)[number][] = PARAMETERS): RawSearchQuery {
  const raw: RawSearchQuery = {};
  for (const name of names) {
    const value = givenOnce(params, name);
    if (value !== undefined) raw[name] = value;
  }
  const headers = params.getAll('header');
  if (headers.length > 0) raw.header = headers;
  return raw;
}

/**
 * One `header` value: `name:value` (the value a case-insensitive substring, spaces around it
 * dropped as HTTP drops them), `name:` or `name` (present, any value). The name is matched whole,
 * in any case. Empty means not given (null). The value is split at the first `:`, which no name
 * holds, so a value may contain more.
 */
export function parseHeaderFilter(raw: string): HeaderFilter | null {
  if (raw === '') return null;
  const show = JSON.stringify(raw.length > 80 ? `${raw.slice(0, 80)}…` : raw);
  if (raw.length > MAX_Q_LENGTH) throw invalid(`header: must be at most ${MAX_Q_LENGTH} characters, got ${raw.length}`);
  const colon = raw.indexOf(':');
  const name = colon < 0 ? raw : raw.slice(0, colon);
  if (!TOKEN.test(name)) {
    throw invalid(`header: must be name:value with name a header name (letters, digits and !#$%&'*+-.^_\`|~), got ${show}`);
  }
  const value = colon < 0 ? '' : raw.slice(colon + 1).replace(/^[ \t]+|[ \t]+$/g, '');
  return { name: name.toLowerCase(), value };
}

/**
 * `pinned`: `true` keeps the pinned captures only; `false`, empty or absent keeps all. Shared by
 * search, count and the endpoint's list, so each refuses anything else in the same words.
 */
export function pinnedOnly(raw: string | undefined): boolean {
  if (raw === undefined || raw === '' || raw === 'false') return false;
  if (raw === 'true') return true;
  throw invalid(`pinned: must be true or false, got ${JSON.stringify(raw)}`);
}

/** Slug, method, q, from and to: the filter shared by search and count. */
export function parseSearchCriteria(raw: RawSearchQuery, now: number): SearchCriteria {
  const out: SearchCriteria = {};
  // Not checked here: the endpoint lookup answers unknown and not-yours with the same 404.
  if (raw.slug !== undefined && raw.slug !== '') out.slug = raw.slug;
  if (raw.method !== undefined && raw.method !== '') {
    if (!METHOD.test(raw.method)) throw invalid(`method: must be an HTTP method such as GET or POST, got ${JSON.stringify(raw.method)}`);
    out.method = raw.method.toUpperCase();
  }
  if (raw.q !== undefined && raw.q !== '') {
    if (raw.q.length > MAX_Q_LENGTH) throw invalid(`q: must be at most ${MAX_Q_LENGTH} characters, got ${raw.q.length}`);
    out.q = raw.q;
  }
  const headers = (raw.header ?? []).map(parseHeaderFilter).filter((h): h is HeaderFilter => h !== null);
  if (headers.length > MAX_HEADER_FILTERS) throw invalid(`header: may be given at most ${MAX_HEADER_FILTERS} times, got ${headers.length}`);
  if (headers.length > 0) out.headers = headers;
  if (pinnedOnly(raw.pinned)) out.pinned = true;
  try {
    const range = parseTimeRange(raw.from, raw.to, now);
    if (range.from !== undefined) out.from = range.from;
    if (range.to !== undefined) out.to = range.to;
  } catch (err) {
    if (err instanceof TimeParseError || err instanceof TimeRangeError) throw invalid(err.message);
    throw err;
  }
  return out;
}

/** The criteria plus limit (default, capped), offset (bounded) and order. */
export function parseSearchPage(raw: RawSearchQuery, limits: SearchLimits, now: number): SearchPageParams {
  const criteria = parseSearchCriteria(raw, now);
  let order: 'asc' | 'desc' = 'desc';
  if (raw.order !== undefined && raw.order !== '') {
    if (raw.order !== 'asc' && raw.order !== 'desc') throw invalid(`order: must be asc or desc, got ${JSON.stringify(raw.order)}`);
    order = raw.order;
  }
  const asked = parseLimit(raw.limit, limits.maxLimit);
  const limit = asked === undefined ? limits.defaultLimit : Math.min(asked, limits.maxLimit);
  let offset = 0;
  if (raw.offset !== undefined && raw.offset !== '') {
    const n = unsigned(raw.offset);
    // Deeper offsets are refused, not capped: a capped one would silently answer another page.
    if (n === null || n > limits.maxOffset) throw invalid(`offset: must be an integer from 0 to ${limits.maxOffset} (to go deeper, narrow the search with from and to)`);
    offset = n;
  }
  return { ...criteria, limit, offset, order };
}
