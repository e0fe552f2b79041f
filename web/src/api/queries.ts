/**
 * Server state the views share (the account, the endpoint list, one request), through TanStack
 * Query: one cache, so a rename in one place shows everywhere. The live capture list is not here;
 * it has its own store (live/store.ts).
 */
import { MutationCache, QueryCache, QueryClient, useMutation, useQuery, useQueryClient } from '@tanstack/react-query';
import { focusNextPageHeading } from '../ui/focus';
import { ApiError, api, unwrap } from './client';

/**
 * Back to sign-in from a signed-in page: the control that had the focus goes with the page, so
 * the sign-in form's heading takes it (ui/focus.ts), as after Log out.
 */
function backToSignIn(): void {
  if (queryClient.getQueryData(keys.me)) focusNextPageHeading();
  queryClient.setQueryData(keys.me, null);
}

/** A 401 anywhere means the session is gone (expired, logged out elsewhere): back to sign-in. */
export function signedOutOn(e: unknown): void {
  if (e instanceof ApiError && e.status === 401) backToSignIn();
}

/**
 * The live stream said the session reached its expiry: back to sign-in, which says why. The note
 * is a query of its own, so signing in again (switchAccount) drops it.
 */
export function sessionExpired(): void {
  queryClient.setQueryData(keys.signInNote, 'Your session expired. Sign in again.');
  backToSignIn();
}

/** Why the app went back to sign-in by itself, if it said; shown above the sign-in form. */
export const signInNote = (): string | null => queryClient.getQueryData<string>(keys.signInNote) ?? null;

export const queryClient: QueryClient = new QueryClient({
  queryCache: new QueryCache({ onError: signedOutOn }),
  mutationCache: new MutationCache({ onError: signedOutOn }),
  defaultOptions: {
    queries: {
      // A 4xx will not change by asking again; network trouble might.
      retry: (count, e) => !(e instanceof ApiError && e.status >= 400 && e.status < 500) && count < 2,
      // Off by default (search results, a request, the lists stay as read); a query that should
      // follow the tab's return says so itself (teams, endpoint activity).
      refetchOnWindowFocus: false,
      staleTime: 10_000,
    },
  },
});

export const keys = {
  me: ['me'] as const,
  signInNote: ['sign-in-note'] as const,
  endpoints: ['endpoints'] as const,
  activity: ['endpoint-activity'] as const,
  request: (id: string) => ['request', id] as const,
  search: (params: Record<string, string>) => ['search', params] as const,
};

/** The signed-in user, or null when signed out (401). */
export function useMe() {
  return useQuery({
    queryKey: keys.me,
    queryFn: async () => {
      try {
        return await unwrap(api.auth.me.get());
      } catch (e) {
        if (e instanceof ApiError && e.status === 401) return null;
        throw e;
      }
    },
    staleTime: Infinity,
  });
}

export function useEndpoints() {
  return useQuery({ queryKey: keys.endpoints, queryFn: () => unwrap(api.endpoints.get()) });
}

export type Endpoint = NonNullable<ReturnType<typeof useEndpoints>['data']>[number];

/**
 * How many requests each endpoint I can read holds and when the last came
 * (`GET /api/endpoints/activity`, one call for all of them). Its own query beside the endpoint
 * list, so the list shows at once and the activity fills in. Not live: read whenever the home page
 * is shown (stale at once) and when its tab comes back into view (docs/dashboard.md).
 */
export function useEndpointActivity() {
  return useQuery({
    queryKey: keys.activity,
    queryFn: async () => new Map((await unwrap(api.endpoints.activity.get())).map((a) => [a.slug, a])),
    staleTime: 0,
    refetchOnWindowFocus: true,
  });
}

export type EndpointActivity = NonNullable<ReturnType<typeof useEndpointActivity>['data']> extends Map<string, infer A> ? A : never;

/** Another account (or none): drop everything cached for the last one; the mounted `me` query stays observed. */
export function switchAccount(qc: QueryClient, user: { id: string; email: string } | null): void {
  qc.removeQueries({ predicate: (q) => q.queryKey[0] !== keys.me[0] });
  qc.setQueryData(keys.me, user);
}

export function useSignIn(mode: 'signin' | 'signup') {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (body: { email: string; password: string }) => unwrap(mode === 'signin' ? api.auth.login.post(body) : api.auth.signup.post(body)),
    onSuccess: (out) => switchAccount(qc, out.user),
  });
}

export function useSignOut() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: () => unwrap(api.auth.logout.post()),
    onSettled: () => switchAccount(qc, null),
  });
}

export function useCreateEndpoint() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (name: string) => unwrap(api.endpoints.post({ name })),
    onSuccess: (created) => qc.setQueryData<Endpoint[]>(keys.endpoints, (list) => [created, ...(list ?? []).filter((e) => e.slug !== created.slug)]),
  });
}

export function useRenameEndpoint() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ slug, name }: { slug: string; name: string }) => unwrap(api.endpoints({ slug }).patch({ name })),
    onSuccess: (updated) => qc.setQueryData<Endpoint[]>(keys.endpoints, (list) => (list ?? []).map((e) => (e.slug === updated.slug ? updated : e))),
  });
}

export function useDeleteEndpoint() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => unwrap(api.endpoints({ slug }).delete()),
    onSuccess: (_out, slug) => qc.setQueryData<Endpoint[]>(keys.endpoints, (list) => (list ?? []).filter((e) => e.slug !== slug)),
  });
}

export function useClearCaptures() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: (slug: string) => unwrap(api.endpoints({ slug }).requests.delete()),
    // The home page's activity line of this endpoint says so at once, before it is read again.
    onSuccess: (_out, slug) =>
      qc.setQueryData<Map<string, EndpointActivity>>(keys.activity, (m) => m && new Map(m).set(slug, { slug, count: 0, lastReceivedAt: null })),
  });
}

/** One captured request by id (a deep link, or a search result). */
export function useRequest(id: string | null) {
  return useQuery({
    queryKey: keys.request(id ?? ''),
    queryFn: () => unwrap(api.requests({ id: id ?? '' }).get()),
    enabled: id !== null,
    staleTime: Infinity,
  });
}
