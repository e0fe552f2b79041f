/**
 * Keep (pin) a capture past its plan's retention: `POST` / `DELETE /api/requests/{id}/pin`
 * (docs/retention.md). The dashboard says "keep" where the API says "pin": the detail already had
 * a **Pin** that meant "pin for comparison", and users who pressed it to keep a capture lost it.
 */
import { useMutation, useQuery, useQueryClient, type InfiniteData, type QueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap, type Capture } from './client';
import { accountKeys } from './account';
import { keys } from './queries';

/** The record as it is once kept or no longer kept: `pinned` is absent unless true, as the API gives it. */
function withKept(capture: Capture, kept: boolean): Capture {
  const { pinned: _was, ...rest } = capture;
  return kept ? { ...rest, pinned: true } : rest;
}

/**
 * Every cached copy of the record says the new state: the request itself and search results (the
 * live list is its own store: `onChanged`). Searches for kept ones only are read again, so one
 * no longer kept leaves them and a newly kept one joins them.
 */
function spread(qc: QueryClient, changed: Capture): void {
  qc.setQueryData<Capture>(keys.request(changed.id), (old) => (old ? withKept(old, changed.pinned === true) : old));
  qc.setQueriesData<InfiniteData<Capture[]>>({ queryKey: ['search'] }, (data) =>
    data && Array.isArray(data.pages) ? { ...data, pages: data.pages.map((page) => page.map((c) => (c.id === changed.id ? withKept(c, changed.pinned === true) : c))) } : data,
  );
  void qc.invalidateQueries({ queryKey: ['search'], predicate: (q) => (q.queryKey[1] as Record<string, string> | undefined)?.pinned === 'true' });
}

export function useKeep(capture: Capture, onChanged?: (c: Capture) => void) {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: async (keep: boolean): Promise<Capture> => {
      if (keep) return unwrap(api.requests({ id: capture.id }).pin.post());
      await unwrap(api.requests({ id: capture.id }).pin.delete());
      return withKept(capture, false);
    },
    onSuccess: (changed) => {
      spread(qc, changed);
      onChanged?.(changed);
    },
  });
}

/** The cap on kept captures (409 pin_limit, PIN_LIMIT on the server) said with what to do. */
export function keepRefusal(e: unknown): unknown {
  if (!(e instanceof ApiError) || e.code !== 'pin_limit') return e;
  const most = e.limit === undefined ? 'only so many requests' : `at most ${e.limit.toLocaleString('en')} ${e.limit === 1 ? 'request' : 'requests'}`;
  return new Error(`You can keep ${most}; stop keeping one first.`);
}

/**
 * The signed-in account's retention period in days (`GET /api/usage`), for its own endpoints'
 * captures: a shared endpoint's are kept for its owner's plan, which the dashboard cannot read.
 * Same cache as the usage meter, without its polling: a plan changes rarely.
 */
export function useRetentionDays(): { days: number | undefined; failed: boolean } {
  const usage = useQuery({ queryKey: accountKeys.usage, queryFn: () => unwrap(api.usage.get()), staleTime: 5 * 60_000 });
  return { days: usage.data?.retentionDays, failed: usage.isError };
}
