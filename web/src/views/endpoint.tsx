/**
 * One endpoint: its receiver URL and actions (rename, clear, delete, settings), and its captures
 * arriving live beside the one that is open. On a narrow screen the list and the open request take
 * turns.
 */
import { useMemo, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useEndpoints, useRequest } from '../api/queries';
import { useSharedEndpoints } from '../api/teams';
import { filterCaptures } from '../lib/filter';
import { useLive } from '../live/use-live';
import { paths } from '../paths';
import { ErrorMessage } from '../ui/error';
import { RequestList } from '../ui/request-list';
import { SplitPane } from '../ui/split-pane';
import { requestTitle, useTitle } from '../ui/title';
import { useUnseenWhileHidden, withUnseen } from '../ui/unseen';
import { EndpointHeader } from './endpoint-header';
import { FirstArrival, FirstRequestHint, WaitingDetail } from './endpoint-waiting';
import { FilterStatus, ListFilter, useFilterReach } from './list-filter';
import { Toolbar } from './live-toolbar';
import { ExportMenu } from '../ui/export-menu';
import { olderThan, OpenRequest } from './open-request';
import { PausedEndpoint, SharedEndpointHeader } from './teams/shared-endpoints';

const END_TEXT: Record<string, string> = {
  endpoint_deleted: 'This endpoint was deleted.',
  endpoint_expired: 'This endpoint has expired.',
  access_revoked: "You can no longer read this endpoint: your team access to it ended (you left or were removed, it was unshared, the team was deleted, or the team's subscription is not active).",
  not_found: 'This endpoint no longer exists, or you cannot read it.',
  signed_out: 'You were signed out.',
  credential_revoked: 'You were signed out.',
  session_expired: 'Your session expired.',
};

export function EndpointView({ slug, rest, children }: { slug: string; rest: string; children?: ReactNode }) {
  const endpoints = useEndpoints();
  const own = endpoints.data?.find((e) => e.slug === slug);
  // Not mine: perhaps shared with me through a team (read-only).
  const shared = useSharedEndpoints(endpoints.isSuccess && !own);
  const theirs = own ? undefined : shared.data?.find((e) => e.slug === slug);
  const endpoint = own ?? theirs;
  // Shared through a team whose subscription lapsed: nothing to read or wait for (one state, below).
  const paused = theirs !== undefined && !theirs.readable;
  const { store, state } = useLive(slug, !paused);
  const [, navigate] = useLocation();
  const requestId = /^requests\/([^/]+)$/.exec(rest)?.[1] ?? null;
  // The list's filter and the request compared with live in the URL (`?filter=`, `?compare=`),
  // kept as requests are opened, so a reload, a link or Back finds the same view.
  const params = new URLSearchParams(useSearch());
  const filter = params.get('filter') ?? '';
  const compareId = params.get('compare');
  const query = (change: { filter?: string; compare?: string | null }) => {
    const p = new URLSearchParams();
    const f = change.filter ?? filter;
    const c = change.compare === undefined ? compareId : change.compare;
    if (f) p.set('filter', f);
    if (c) p.set('compare', c);
    const q = p.toString();
    return q ? `?${q}` : '';
  };
  const suffix = query({});
  const shown = useMemo(() => filterCaptures(state.items, filter), [state.items, filter]);
  const reach = useFilterReach(filter, shown.length, state, store);
  // The open request names the tab too (OpenRequest asks for one not in the list: the same query).
  const listed = requestId ? state.items.find((c) => c.id === requestId) : undefined;
  const fetched = useRequest(requestId && !listed ? requestId : null);
  const open = listed ?? (fetched.data?.id === requestId ? fetched.data : undefined);
  const unseen = useUnseenWhileHidden(state.items.length + state.held, !state.loading);
  useTitle(!endpoint ? null : rest === 'settings' ? `Settings: ${endpoint.name}` : withUnseen(open ? `${requestTitle(open)} · ${endpoint.name}` : endpoint.name, unseen));

  // An error first: the shared list waits for mine, so it stays pending when mine failed.
  const listError = endpoints.error ?? (own ? null : shared.error);
  if (listError) return <div className="page"><ErrorMessage error={listError} /></div>;
  if (endpoints.isPending || (!own && shared.isPending)) return <p className="page muted">Loading…</p>;
  if (!endpoint) {
    return (
      <div className="page">
        <ErrorMessage error={new Error('This endpoint does not exist, or it is not yours.')} />
        <p>
          <Link href={paths.home}>Back to your endpoints</Link>
        </p>
      </div>
    );
  }

  // The open request was cleared with the rest: close it rather than leave "request not found" beside the empty list.
  const onCleared = () => {
    store?.clear();
    if (requestId !== null) navigate(`${paths.endpoint(slug)}${suffix}`, { replace: true });
  };

  if (paused && theirs) {
    return (
      <div className="endpoint-view">
        <SharedEndpointHeader endpoint={theirs} />
        <PausedEndpoint endpoint={theirs} />
      </div>
    );
  }

  const waiting = !state.loading && state.items.length === 0 && state.held === 0;
  // Not read yet (the server was down when the page opened: read again until it answers). Neither
  // empty nor counted; what did arrive over the stream meanwhile is listed.
  const unknown = state.loading && state.items.length === 0 && state.status !== 'ended';
  const listArea = (
    <section className="live" aria-label="Captured requests">
      <Toolbar state={state} shown={shown.length} onPause={() => store?.pause()} onResume={() => store?.resume()}>
        {waiting ? null : <ExportMenu slug={endpoint.slug} what="Every capture of this endpoint" id="export-endpoint" />}
      </Toolbar>
      {waiting ? null : (
        <>
          <ListFilter
            value={filter}
            onChange={(value) => {
              navigate(`${requestId ? paths.endpointRequest(slug, requestId) : paths.endpoint(slug)}${query({ filter: value })}`, { replace: true });
            }}
            firstId={shown[0]?.id}
          />
          <FilterStatus filter={filter} matches={shown.length} loaded={state.items.length} state={state} reach={reach} slug={endpoint.slug} />
        </>
      )}
      {state.status === 'ended' && state.endReason ? <p className="notice">{END_TEXT[state.endReason] ?? 'The live stream ended.'}</p> : null}
      {state.error && state.status !== 'ended' ? <ErrorMessage error={new Error(state.error)} /> : null}
      <FirstArrival waiting={waiting} first={state.items[0]} />
      {waiting ? (
        <FirstRequestHint url={endpoint.url} />
      ) : unknown ? (
        <p className="muted panel-pad">{state.error ? 'The requests are listed as soon as the server answers.' : 'Loading requests…'}</p>
      ) : shown.length === 0 && filter ? null : (
        <RequestList
          label="Requests"
          items={shown}
          selectedId={requestId}
          hrefOf={(id) => `${paths.endpointRequest(slug, id)}${suffix}`}
          onSelect={(id) => navigate(`${paths.endpointRequest(slug, id)}${suffix}`)}
          onEndReached={() => void store?.loadOlder()}
          // While a filter looks further back, the status under it says so.
          footer={state.loadingOlder && !reach.looking ? <p className="muted list-foot">Loading older requests…</p> : null}
        />
      )}
    </section>
  );

  return (
    <div className="endpoint-view">
      {own ? <EndpointHeader endpoint={own} onCleared={onCleared} /> : theirs ? <SharedEndpointHeader endpoint={theirs} /> : null}
      {children ?? (
        <SplitPane
          openId={requestId}
          list={listArea}
          detail={
            requestId ? (
              <OpenRequest
                id={requestId}
                state={state}
                endpoint={endpoint}
                backHref={`${paths.endpoint(slug)}${suffix}`}
                compareId={compareId}
                previousId={olderThan(shown, requestId)}
                hrefWith={(id, compare) => `${paths.endpointRequest(slug, id)}${query({ compare })}`}
                onChanged={store?.replace}
              />
            ) : waiting ? (
              <WaitingDetail own={own !== undefined} />
            ) : (
              <p className="muted panel-pad select-hint">
                Select a request to see it in full. Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>c</kbd> copies it as cURL, <kbd>Esc</kbd> closes it, <kbd>/</kbd> searches.
              </p>
            )
          }
        />
      )}
    </div>
  );
}
