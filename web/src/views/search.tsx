/**
 * Search across one endpoint or all of them (SPEC 4.2): the header's Search box plus method, time
 * range and endpoint filters, all kept in the URL. Shows the count; results open the same detail.
 */
import { keepPreviousData, useInfiniteQuery, useQuery } from '@tanstack/react-query';
import { useMemo, useState } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { api, unwrap, type Capture } from '../api/client';
import { keys, useEndpoints, useRequest } from '../api/queries';
import { useCaptureEndpoint } from '../api/capture-endpoint';
import { useSharedEndpoints } from '../api/teams';
import { endpointLabels } from '../lib/endpoint-label';
import { plural } from '../lib/format';
import { paths } from '../paths';
import { ErrorMessage } from '../ui/error';
import { ExportMenu } from '../ui/export-menu';
import { RequestList } from '../ui/request-list';
import { leaveOnEscape } from '../ui/search-field';
import { SplitPane } from '../ui/split-pane';
import { RequestDetail } from './request-detail';
import { requestTitle, useTitle } from '../ui/title';

const PAGE = 50;
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE', 'HEAD', 'OPTIONS'];
const RANGES: [string, string][] = [
  ['', 'Any time'],
  ['15m', 'Last 15 minutes'],
  ['1h', 'Last hour'],
  ['24h', 'Last 24 hours'],
  ['7d', 'Last 7 days'],
  ['30d', 'Last 30 days'],
];

export interface SearchFilters {
  q: string;
  method: string;
  from: string;
  slug: string;
  /** One `name:value` header filter (docs/search.md); a new search from the top box starts without. */
  header?: string;
  /** `true`: kept (pinned) requests only (docs/retention.md); a new search from the top box starts without. */
  pinned?: string;
}

export function readFilters(search: string): SearchFilters {
  const p = new URLSearchParams(search);
  return { q: p.get('q') ?? '', method: p.get('method') ?? '', from: p.get('from') ?? '', slug: p.get('slug') ?? '', header: p.get('header') ?? '', pinned: p.get('pinned') === 'true' ? 'true' : '' };
}

export function filtersQuery(f: SearchFilters): string {
  const p = new URLSearchParams();
  for (const [k, v] of Object.entries(f)) if (v) p.set(k, v);
  const s = p.toString();
  return s ? `?${s}` : '';
}

/**
 * The live filter's field words that map cleanly onto search's own filters, moved there when a
 * search is submitted (Enter in the **Search** box): `method:post` → Method (one it offers),
 * `header:name:value` → Header. The rest stays text as typed; with nothing to move, the filters
 * come back as they were (the same object). The URL's parameters stay what the page shows.
 */
export function applySearchSyntax(f: SearchFilters): SearchFilters {
  let method = f.method;
  let header = f.header ?? '';
  const rest: string[] = [];
  for (const word of f.q.split(/\s+/).filter(Boolean)) {
    const m = /^method:(.+)$/i.exec(word);
    if (m && METHODS.includes(m[1]!.toUpperCase())) {
      method = m[1]!.toUpperCase();
      continue;
    }
    const h = /^header:(.+)$/i.exec(word);
    if (h) {
      header = h[1]!;
      continue;
    }
    rest.push(word);
  }
  if (method === f.method && header === (f.header ?? '')) return f;
  return { ...f, q: rest.join(' '), method, header };
}

/**
 * What to say when the text holds a live filter's word that search does not take (search looks
 * for the text as typed, docs/search.md): which syntax it does take, and, for `event:x`, the
 * search for `x` as text (an event's name is in its body or headers). Null when there is none.
 */
export function searchSyntaxHint(q: string): { words: string[]; eventText: string | null } | null {
  const words = q.split(/\s+/).filter((w) => /^(method|header|event|provider|status|type):/i.test(w) || /^-?(signed|no-signature|bad-signature)$/i.test(w));
  if (words.length === 0) return null;
  const event = words.map((w) => /^event:(.+)$/i.exec(w)?.[1]).find(Boolean);
  return { words, eventText: event ? q.replace(/(^|\s)event:/i, '$1').trim() : null };
}

/** Only the filters that are set: the API refuses empty values. */
function criteria(f: SearchFilters): Record<string, string> {
  return Object.fromEntries(Object.entries(f).filter(([, v]) => v !== ''));
}

export function SearchView({ requestId }: { requestId: string | null }) {
  const search = useSearch();
  const [, navigate] = useLocation();
  const filters = readFilters(search);
  const params = criteria(filters);
  const endpoints = useEndpoints();
  // Search covers endpoints shared with me too: name them and build their URLs as well.
  const shared = useSharedEndpoints();
  const readable = useMemo(() => [...(endpoints.data ?? []), ...(shared.data ?? [])], [endpoints.data, shared.data]);
  const byId = useMemo(() => new Map(readable.map((e) => [e.id, e])), [readable]);
  const labelOf = useMemo(() => endpointLabels(readable), [readable]);

  const count = useQuery({ queryKey: [...keys.search(params), 'count'], queryFn: () => unwrap(api.search.requests.count.get({ query: params })) });
  const results = useInfiniteQuery({
    queryKey: keys.search(params),
    // Typing in the box changes the query at each key: keep the last results on screen until the
    // new ones arrive, instead of swapping the list for "Searching…" (and losing its scroll) each time.
    placeholderData: keepPreviousData,
    initialPageParam: 0,
    queryFn: ({ pageParam }) => unwrap(api.search.requests.get({ query: { ...params, limit: String(PAGE), offset: String(pageParam) } })),
    getNextPageParam: (last, all) => (last.length < PAGE ? undefined : all.length * PAGE),
  });
  const items: Capture[] = useMemo(() => results.data?.pages.flat() ?? [], [results.data]);
  const set = (patch: Partial<SearchFilters>) => navigate(`${paths.search}${filtersQuery({ ...filters, ...patch })}`, { replace: true });
  const suffix = filtersQuery(filters);
  // Applied on Enter or on leaving the field, not per key: "x a" on the way to "x-a:b" is a 400.
  const [headerDraft, setHeaderDraft] = useState<{ for: string; text: string } | null>(null);
  const headerText = headerDraft && headerDraft.for === (filters.header ?? '') ? headerDraft.text : (filters.header ?? '');
  const applyHeader = () => {
    if (headerText.trim() !== (filters.header ?? '')) set({ header: headerText.trim() });
  };

  const selected = items.find((c) => c.id === requestId);
  const fetched = useRequest(selected || !requestId ? null : requestId);
  const open = selected ?? fetched.data;
  const searchTitle = filters.q ? `Search: ${filters.q}` : 'Search';
  useTitle(open ? `${requestTitle(open)} · ${searchTitle}` : searchTitle);
  const endpointOf = (c: Capture) => byId.get(c.endpointId);
  // Its URL and cURL need its real endpoint, even before the endpoint lists have loaded.
  const openEndpoint = useCaptureEndpoint(open);

  return (
    <div className="search-view">
      <header className="search-head">
        <h1>Search</h1>
        <form
          className="filters"
          aria-label="Filters"
          onSubmit={(e) => {
            e.preventDefault();
            applyHeader();
          }}
        >
          <div>
            <label htmlFor="filter-method">Method</label>
            <select id="filter-method" value={filters.method} onChange={(e) => set({ method: e.target.value })}>
              <option value="">Any method</option>
              {METHODS.map((m) => (
                <option key={m} value={m}>
                  {m}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="filter-range">Time range</label>
            <select id="filter-range" value={filters.from} onChange={(e) => set({ from: e.target.value })}>
              {RANGES.map(([v, label]) => (
                <option key={v} value={v}>
                  {label}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="filter-endpoint">Endpoint</label>
            <select id="filter-endpoint" value={filters.slug} onChange={(e) => set({ slug: e.target.value })}>
              <option value="">All endpoints</option>
              {readable.map((e) => (
                <option key={e.slug} value={e.slug}>
                  {labelOf(e)}
                </option>
              ))}
            </select>
          </div>
          <div>
            <label htmlFor="filter-header">Header</label>
            <input
              id="filter-header"
              type="search"
              placeholder="name:value"
              title="A header of exactly this name whose value contains the text after the colon, any case; a name alone: the header is there"
              value={headerText}
              onChange={(e) => setHeaderDraft({ for: filters.header ?? '', text: e.target.value })}
              onKeyDown={leaveOnEscape}
              onBlur={applyHeader}
            />
          </div>
        </form>
        <div className="result-row">
          <p className="result-count" role="status">
            {count.data ? `${plural(count.data.count, 'matching request')}${filters.q ? ` for “${filters.q}”` : ''}` : count.error ? '' : 'Counting…'}
          </p>
          <label className="kept-only">
            <input type="checkbox" checked={filters.pinned === 'true'} onChange={(e) => set({ pinned: e.target.checked ? 'true' : '' })} />
            Kept only
          </label>
          {/* The export is per endpoint (the API's route): offered once one is chosen. */}
          {filters.slug && count.data && count.data.count > 0 ? (
            <ExportMenu
              slug={filters.slug}
              filters={{ q: filters.q, method: filters.method, from: filters.from, header: filters.header, pinned: filters.pinned }}
              what={count.data.count === 1 ? 'This matching request' : `These ${count.data.count.toLocaleString('en')} matching requests`}
              id="export-results"
            />
          ) : null}
        </div>
        {count.error ? <ErrorMessage error={count.error} /> : null}
        <SyntaxHint filters={filters} />
      </header>
      <SplitPane
        openId={requestId}
        list={
          results.error ? (
            <ErrorMessage error={results.error} />
          ) : results.isPending ? (
            <p className="muted panel-pad">Searching…</p>
          ) : items.length === 0 ? (
            <p className="muted panel-pad">No request matches these filters.</p>
          ) : (
            <RequestList
              label="Search results"
              items={items}
              selectedId={requestId}
              hrefOf={(id) => `${paths.searchRequest(id)}${suffix}`}
              onSelect={(id) => navigate(`${paths.searchRequest(id)}${suffix}`)}
              onEndReached={() => {
                if (results.hasNextPage && !results.isFetchingNextPage) void results.fetchNextPage();
              }}
              endpointNameOf={(c) => {
                const e = endpointOf(c);
                return e ? labelOf(e) : undefined;
              }}
              footer={results.isFetchingNextPage ? <p className="muted list-foot">Loading more…</p> : null}
            />
          )
        }
        detail={
          requestId ? (
            <>
              <Link href={`${paths.search}${suffix}`} className="back-link">
                ← All results
              </Link>
              {open && openEndpoint.endpoint ? (
                <RequestDetail capture={open} endpointUrl={openEndpoint.endpoint.url} endpointName={openEndpoint.endpoint.name} />
              ) : fetched.error || openEndpoint.error ? (
                <ErrorMessage error={fetched.error ?? openEndpoint.error} />
              ) : (
                <p className="muted panel-pad">Loading request…</p>
              )}
            </>
          ) : (
            <p className="muted panel-pad select-hint">Select a result to see it in full.</p>
          )
        }
      />
    </div>
  );
}

/** Under the filters when the text holds a live filter's word search does not take (searchSyntaxHint). */
function SyntaxHint({ filters }: { filters: SearchFilters }) {
  const hint = searchSyntaxHint(filters.q);
  if (!hint) return null;
  return (
    <p className="notice search-hint">
      Search looks for <code>{hint.words.join(' ')}</code> as plain text. It takes words, <code>method:post</code> and <code>header:name:value</code> (these two
      become the Method and Header filters when you press Enter); <code>event:</code>, <code>provider:</code>, <code>status:</code>, <code>type:</code> and the
      signature words belong to the live list's filter.{' '}
      {hint.eventText ? (
        <>
          An event's name is in its body or headers:{' '}
          <Link href={`${paths.search}${filtersQuery({ ...filters, q: hint.eventText })}`}>search for “{hint.eventText}”</Link>.
        </>
      ) : null}
    </p>
  );
}
