/**
 * The query mixes of bench/search: each kind makes one random API call (path + the caller's key)
 * from the dataset, with varied endpoints, search terms, letter case and time windows.
 */
import type { Rng } from './random';
import type { BenchAccount, BenchEndpoint, Dataset } from './search-dataset';
import { APP_EVENTS, COMPANIES, FIRST_NAMES, PRODUCTS, SHOPIFY_TOPICS, STRIPE_EVENTS } from './webhooks';

export interface BenchQuery {
  key: string;
  path: string;
}

export interface QueryKind {
  /** For BENCH_ONLY. */
  id: string;
  name: string;
  targetMs?: number;
  /** Fewer runs for a kind that is slow by nature. */
  maxQueries?: number;
  make(rng: Rng, data: Dataset): BenchQuery;
}

/**
 * Terms from common (an event type in a tenth of the rows) to rare (one SKU, one order) to absent,
 * in body, header values, path and query string.
 */
function term(rng: Rng): string {
  const pickers: ((r: Rng) => string)[] = [
    (r) => r.pick(STRIPE_EVENTS),
    (r) => r.pick(SHOPIFY_TOPICS),
    (r) => r.pick(APP_EVENTS),
    (r) => r.pick(FIRST_NAMES),
    (r) => r.pick(COMPANIES),
    (r) => `${r.pick(FIRST_NAMES)}.`,
    (r) => r.pick(PRODUCTS),
    (r) => `SKU-${r.int(1000, 9999)}`,
    (r) => `ord_${r.int(100_000, 999_999)}`,
    (r) => `code is ${r.int(100_000, 999_999)}`,
    () => 'GitHub-Hookshot',
    () => 'kube-probe',
    () => '/hooks/github',
    (r) => `attempt=${r.int(1, 4)}`,
    () => 'pull_request',
    () => 'no-such-term-anywhere',
  ];
  const t = rng.pick(pickers)(rng);
  // Case must not matter: a third upper-case, a third capitalised.
  const c = rng.int(0, 3);
  return c === 0 ? t : c === 1 ? t.toUpperCase() : `${t[0]?.toUpperCase() ?? ''}${t.slice(1)}`;
}

const WINDOWS_MS = [15 * 60_000, 3_600_000, 2 * 3_600_000, 6 * 3_600_000, 86_400_000, 7 * 86_400_000];

/** A window of a random size, half the time "the last N" (ending at the newest data). */
function window(rng: Rng, data: Dataset): { from: number; to: number } {
  const size = rng.pick(WINDOWS_MS);
  const to = rng.chance(0.5) ? data.endAt : rng.int(data.startAt + size, data.endAt);
  return { from: to - size, to };
}

function anyEndpoint(rng: Rng, data: Dataset): { account: BenchAccount; endpoint: BenchEndpoint } {
  const account = rng.pick(data.accounts);
  return { account, endpoint: rng.pick(account.endpoints) };
}

/** An endpoint among the ten with the most captures. */
function busyEndpoint(rng: Rng, data: Dataset): { account: BenchAccount; endpoint: BenchEndpoint } {
  const all = data.accounts.flatMap((account) => account.endpoints.map((endpoint) => ({ account, endpoint })));
  all.sort((a, b) => b.endpoint.rows - a.endpoint.rows);
  return rng.pick(all.slice(0, 10));
}

function biggestAccount(data: Dataset): BenchAccount {
  const rows = (a: BenchAccount) => a.endpoints.reduce((sum, e) => sum + e.rows, 0);
  const [first, ...rest] = data.accounts;
  if (!first) throw new Error('no accounts');
  return rest.reduce((best, a) => (rows(a) > rows(best) ? a : best), first);
}

const qs = (params: Record<string, string | number>) =>
  new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();

export const kinds: QueryKind[] = [
  {
    id: 'slug-q',
    name: 'search: slug + q (any endpoint)',
    targetMs: 150,
    make(rng, data) {
      const { account, endpoint } = anyEndpoint(rng, data);
      return { key: account.key, path: `/api/search/requests?${qs({ slug: endpoint.slug, q: term(rng) })}` };
    },
  },
  {
    id: 'slug-q-busy',
    name: 'search: slug + q (10 busiest endpoints)',
    make(rng, data) {
      const { account, endpoint } = busyEndpoint(rng, data);
      return { key: account.key, path: `/api/search/requests?${qs({ slug: endpoint.slug, q: term(rng) })}` };
    },
  },
  {
    id: 'count-slug-q',
    name: 'count: slug + q',
    targetMs: 50,
    make(rng, data) {
      const { account, endpoint } = anyEndpoint(rng, data);
      return { key: account.key, path: `/api/search/requests/count?${qs({ slug: endpoint.slug, q: term(rng) })}` };
    },
  },
  {
    id: 'count-slug',
    name: 'count: slug',
    targetMs: 50,
    make(rng, data) {
      const { account, endpoint } = anyEndpoint(rng, data);
      return { key: account.key, path: `/api/search/requests/count?${qs({ slug: endpoint.slug })}` };
    },
  },
  {
    id: 'count-window',
    name: 'count: all account endpoints, time window',
    targetMs: 50,
    make(rng, data) {
      const account = rng.pick(data.accounts);
      return { key: account.key, path: `/api/search/requests/count?${qs(window(rng, data))}` };
    },
  },
  {
    id: 'window',
    name: 'search: all account endpoints, time window (15m–7d)',
    targetMs: 300,
    make(rng, data) {
      const account = rng.pick(data.accounts);
      const w = window(rng, data);
      // Half as ISO 8601, half as ms: both forms are parsed on every call.
      const params = rng.chance(0.5) ? w : { from: new Date(w.from).toISOString(), to: new Date(w.to).toISOString() };
      return { key: account.key, path: `/api/search/requests?${qs(params)}` };
    },
  },
  {
    id: 'window-big',
    name: 'search: time window, the biggest account (busiest 20 endpoints)',
    make(rng, data) {
      const account = biggestAccount(data);
      return { key: account.key, path: `/api/search/requests?${qs(window(rng, data))}` };
    },
  },
  {
    id: 'window-q',
    name: 'search: all account endpoints, time window + q',
    make(rng, data) {
      const account = rng.pick(data.accounts);
      return { key: account.key, path: `/api/search/requests?${qs({ ...window(rng, data), q: term(rng) })}` };
    },
  },
  {
    id: 'window-method-asc',
    name: 'search: all account endpoints, window + method, order=asc, offset 100',
    make(rng, data) {
      const account = rng.pick(data.accounts);
      const params = { ...window(rng, data), method: rng.pick(['GET', 'post', 'PUT']), order: 'asc', offset: 100 };
      return { key: account.key, path: `/api/search/requests?${qs(params)}` };
    },
  },
  {
    id: 'account-q',
    name: 'search: all account endpoints, q, no window (whole history)',
    maxQueries: 20,
    make(rng, data) {
      const account = rng.pick(data.accounts);
      return { key: account.key, path: `/api/search/requests?${qs({ q: term(rng) })}` };
    },
  },
];
