/**
 * One endpoint: its receiver URL and actions (rename, clear, delete, settings), and its captures
 * arriving live beside the one that is open. On a narrow screen the list and the open request take
 * turns.
 */
import { useEffect, useLayoutEffect, useMemo, useRef, useState, type FormEvent, type ReactNode } from 'react';
import { Link, useLocation, useSearch } from 'wouter';
import { useClearCaptures, useDeleteEndpoint, useEndpoints, useRenameEndpoint, useRequest, type Endpoint } from '../api/queries';
import { shellQuote } from '../lib/curl';
import { filterCaptures } from '../lib/filter';
import { plural } from '../lib/format';
import { useLive } from '../live/use-live';
import type { LiveState } from '../live/store';
import { paths } from '../paths';
import { ConfirmDialog } from '../ui/confirm';
import { CopyButton } from '../ui/copy-button';
import { ErrorMessage } from '../ui/error';
import { focusRowWhenDrawn, RequestList } from '../ui/request-list';
import { SplitPane } from '../ui/split-pane';
import { ExpiresAt } from '../ui/time';
import { EndpointSwitcher } from '../ui/endpoint-switcher';
import { useSharedEndpoints } from '../api/teams';
import { useCaptureEndpoint } from '../api/capture-endpoint';
import { ReceiverUrl, takeJustCreated } from './endpoints';
import { PausedEndpoint, SharedEndpointHeader } from './teams/shared-endpoints';
import { RequestDetail } from './request-detail';
import { Compare } from './compare';
import { useTitle } from '../ui/title';
import { useFocusWhenGone } from '../ui/focus';
import { BusyButton } from '../ui/busy-button';
import { announce } from '../ui/toast';
import { readablePath } from '../lib/url';
import type { Capture } from '../api/client';

function RenameForm({ endpoint, onDone }: { endpoint: Endpoint; onDone: () => void }) {
  const [name, setName] = useState(endpoint.name);
  const rename = useRenameEndpoint();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    rename.mutate({ slug: endpoint.slug, name }, { onSuccess: onDone });
  };
  return (
    <form
      className="rename"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <label htmlFor="rename-input">Name</label>
      <div className="inline">
        <input id="rename-input" value={name} maxLength={200} autoFocus onChange={(e) => setName(e.target.value)} />
        <BusyButton type="submit" className="primary" busy={rename.isPending}>
          Save
        </BusyButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {rename.error ? <ErrorMessage error={rename.error} /> : null}
    </form>
  );
}

function EndpointHeader({ endpoint, onCleared }: { endpoint: Endpoint; onCleared: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState<'delete' | 'clear' | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  // Saved, cancelled or Escape: the form is gone; the focus goes back to Rename.
  useFocusWhenGone(renaming, () => renameButton.current);
  const remove = useDeleteEndpoint();
  const clear = useClearCaptures();
  const [, navigate] = useLocation();
  const error = remove.error ?? clear.error;
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (takeJustCreated(endpoint.slug) && (active === null || active === document.body)) title.current?.focus();
  }, [endpoint.slug]);
  return (
    <header className="endpoint-head">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.home}>Endpoints</Link> <span aria-hidden="true">/</span> <EndpointSwitcher current={endpoint.slug} />
      </nav>
      {renaming ? (
        <RenameForm endpoint={endpoint} onDone={() => setRenaming(false)} />
      ) : (
        <h1 className="endpoint-title" ref={title} tabIndex={-1}>
          {endpoint.name}
        </h1>
      )}
      <ReceiverUrl url={endpoint.url} />
      {endpoint.expiresAt !== null ? <ExpiresAt ms={endpoint.expiresAt} /> : null}
      <div className="endpoint-actions">
        {!renaming ? (
          <button type="button" ref={renameButton} onClick={() => setRenaming(true)}>
            Rename
          </button>
        ) : null}
        <button type="button" onClick={() => setConfirming('clear')}>
          Clear captures
        </button>
        <button type="button" className="danger" onClick={() => setConfirming('delete')}>
          Delete endpoint
        </button>
        <Link href={paths.endpointSettings(endpoint.slug)} className="button">
          Settings
        </Link>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${endpoint.name}?`}
        confirm="Delete"
        danger
        busy={remove.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() =>
          remove.mutate(endpoint.slug, {
            onSuccess: () => navigate(paths.home),
            onSettled: () => setConfirming(null),
          })
        }
      >
        <p>
          Its URL stops accepting requests and every captured request is deleted. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'clear'}
        title="Clear all captured requests?"
        confirm="Clear"
        danger
        busy={clear.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() =>
          clear.mutate(endpoint.slug, {
            onSuccess: onCleared,
            onSettled: () => setConfirming(null),
          })
        }
      >
        <p>Every request captured so far is removed. The endpoint keeps its URL and keeps capturing.</p>
      </ConfirmDialog>
    </header>
  );
}

const STATUS_TEXT: Record<LiveState['status'], string> = {
  connecting: 'Connecting…',
  live: 'Live',
  reconnecting: 'Reconnecting…',
  ended: 'Stream ended',
};

const END_TEXT: Record<string, string> = {
  endpoint_deleted: 'This endpoint was deleted.',
  endpoint_expired: 'This endpoint has expired.',
  access_revoked: "You can no longer read this endpoint: your team access to it ended (you left or were removed, it was unshared, the team was deleted, or the team's subscription is not active).",
  not_found: 'This endpoint no longer exists, or you cannot read it.',
  signed_out: 'You were signed out.',
  credential_revoked: 'You were signed out.',
  session_expired: 'Your session expired.',
};

function FirstRequestHint({ url }: { url: string }) {
  const line = `curl -X POST ${shellQuote(url)} -H 'content-type: application/json' -d '{"hello":"world"}'`;
  return (
    <div className="first-request">
      <h2>Waiting for the first request</h2>
      <p>Send any HTTP request to this endpoint's URL and it shows up here at once. From a terminal:</p>
      <pre className="curl-line">
        <code>{line}</code>
      </pre>
      <CopyButton text={line} label="Copy command" done="Copied the curl command" />
    </div>
  );
}

/**
 * The open-request pane (wide screens) before the first capture: nothing to select yet, so what
 * will show here, and for the owner a way to send one without a terminal.
 */
function WaitingDetail({ own }: { own: boolean }) {
  return (
    <div className="muted panel-pad select-hint">
      <p>Each request opens here in full: its headers, query, body, and a cURL command that replays it.</p>
      {own ? (
        <p>
          No terminal at hand? <strong>Send test</strong> in this endpoint's <strong>Settings</strong> sends one from the dashboard.
        </p>
      ) : null}
    </div>
  );
}

/**
 * The first request arrives and the waiting hint gives way to the list: said in the polite status
 * region (a screen reader hears nothing else), and when the focus was in the hint (its Copy
 * command button) and fell to the page with it, it goes to the new request's row, so Enter opens
 * it. The row is drawn a frame or two after the list (it is virtualised).
 */
function FirstArrival({ waiting, first }: { waiting: boolean; first: Capture | undefined }) {
  const was = useRef(waiting);
  useLayoutEffect(() => {
    const before = was.current;
    was.current = waiting;
    if (!before || waiting || !first) return;
    announce(`First request received: ${first.method} ${readablePath(first.path)}`);
    const dropped = () => document.activeElement === null || document.activeElement === document.body;
    if (dropped()) focusRowWhenDrawn(document, first.id, dropped);
  });
  return null;
}

function Toolbar({ state, shown, onPause, onResume }: { state: LiveState; shown: number; onPause: () => void; onResume: () => void }) {
  const toggle = useRef<HTMLButtonElement>(null);
  // "N new requests" merged them and went away: the focus goes to Pause (which Resume became).
  useFocusWhenGone(state.paused && state.held > 0, () => toggle.current);
  return (
    <div className="list-toolbar">
      <span className={`live-status s-${state.status}`} role="status" aria-label="Stream status">
        <span className="dot" aria-hidden="true" />
        {STATUS_TEXT[state.status]}
      </span>
      <span className="list-count" aria-live="off">
        {shown === state.items.length ? '' : `${shown.toLocaleString('en')} of `}
        {plural(state.items.length, 'request')}
        {state.hasMore ? ' loaded' : ''}
      </span>
      <span className="toolbar-end">
        {state.paused && state.held > 0 ? (
          <button type="button" className="small primary" onClick={onResume}>
            {plural(state.held, 'new request')}
          </button>
        ) : null}
        {state.paused ? (
          <button type="button" className="small" ref={toggle} onClick={onResume}>
            Resume
          </button>
        ) : (
          <button type="button" className="small" ref={toggle} onClick={onPause} disabled={state.status === 'ended'}>
            Pause
          </button>
        )}
      </span>
    </div>
  );
}

/**
 * The live list's filter (lib/filter.ts). Escape empties it (the search field's own behaviour);
 * Enter goes to the first matching row, so the keyboard carries on into the list.
 */
function ListFilter({ value, onChange, firstId }: { value: string; onChange: (value: string) => void; firstId: string | undefined }) {
  return (
    <div className="list-filter">
      <input
        type="search"
        aria-label="Filter requests"
        placeholder="Filter: path, method:post, event:…, -word"
        value={value}
        spellCheck={false}
        onChange={(e) => onChange(e.target.value)}
        onKeyDown={(e) => {
          const input = e.currentTarget;
          if (e.key === 'Enter' && firstId) {
            e.preventDefault();
            focusRowWhenDrawn(document, firstId, () => document.activeElement === input);
          }
        }}
      />
    </div>
  );
}

/** The request after `id` in the list as shown (the next older), if `id` is listed. */
function olderThan(items: readonly Capture[], id: string): string | undefined {
  const at = items.findIndex((c) => c.id === id);
  return at < 0 ? undefined : items[at + 1]?.id;
}

interface OpenRequestProps {
  id: string;
  state: LiveState;
  endpoint: Pick<Endpoint, 'id' | 'url'>;
  backHref: string;
  /** The request pinned for comparison (`?compare=`). */
  compareId: string | null;
  /** The next older request in the list as shown, for "Compare with previous". */
  previousId: string | undefined;
  hrefWith: (id: string, compare: string | null) => string;
}

function OpenRequest({ id, state, endpoint, backHref, compareId, previousId, hrefWith }: OpenRequestProps) {
  const inList = state.items.find((c) => c.id === id);
  const fetched = useRequest(inList ? null : id);
  const capture = inList ?? fetched.data;
  const otherInList = compareId ? state.items.find((c) => c.id === compareId) : undefined;
  const otherFetched = useRequest(compareId && !otherInList ? compareId : null);
  // A link to another endpoint's request (`/endpoints/A/requests/<id of B's>`): it is shown under
  // its own endpoint, with its own URL and list (docs/dashboard.md), not under A's URL.
  const elsewhere = capture && capture.endpointId !== endpoint.id ? capture : undefined;
  const owner = useCaptureEndpoint(elsewhere);
  const [, navigate] = useLocation();
  const to = owner.endpoint ? paths.endpointRequest(owner.endpoint.slug, id) : null;
  useEffect(() => {
    if (to) navigate(to, { replace: true });
  }, [to, navigate]);
  return (
    <>
      <Link href={backHref} className="back-link">
        ← All requests
      </Link>
      {capture && !elsewhere ? (
        <RequestDetail
          capture={capture}
          endpointUrl={endpoint.url}
          actions={
            (previousId && previousId !== compareId) || compareId !== id ? (
              <span className="action-group" role="group" aria-label="Compare">
                <span className="action-group-label" aria-hidden="true">
                  Compare
                </span>
                {previousId && previousId !== compareId ? (
                  <Link href={hrefWith(id, previousId)} className="button" aria-label="Compare with previous">
                    Previous
                  </Link>
                ) : null}
                {compareId !== id ? (
                  <Link href={hrefWith(id, id)} className="button" aria-label="Pin for comparison">
                    Pin
                  </Link>
                ) : null}
              </span>
            ) : null
          }
          compare={
            compareId ? (
              <Compare
                capture={capture}
                other={otherInList ?? otherFetched.data}
                otherId={compareId}
                otherHref={hrefWith(compareId, id)}
                error={otherFetched.error}
                stopHref={hrefWith(id, null)}
              />
            ) : null
          }
        />
      ) : fetched.error || owner.error ? (
        <ErrorMessage error={fetched.error ?? owner.error} />
      ) : (
        <p className="muted panel-pad">Loading request…</p>
      )}
    </>
  );
}

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
  useTitle(endpoint ? (rest === 'settings' ? `Settings: ${endpoint.name}` : endpoint.name) : null);

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
  const listArea = (
    <section className="live" aria-label="Captured requests">
      <Toolbar state={state} shown={shown.length} onPause={() => store?.pause()} onResume={() => store?.resume()} />
      {waiting ? null : (
        <ListFilter
          value={filter}
          onChange={(value) => {
            navigate(`${requestId ? paths.endpointRequest(slug, requestId) : paths.endpoint(slug)}${query({ filter: value })}`, { replace: true });
          }}
          firstId={shown[0]?.id}
        />
      )}
      {state.status === 'ended' && state.endReason ? <p className="notice">{END_TEXT[state.endReason] ?? 'The live stream ended.'}</p> : null}
      {state.error && state.status !== 'ended' ? <ErrorMessage error={new Error(state.error)} /> : null}
      <FirstArrival waiting={waiting} first={state.items[0]} />
      {waiting ? (
        <FirstRequestHint url={endpoint.url} />
      ) : shown.length === 0 && filter ? (
        <p className="muted panel-pad">No request matches “{filter}”.</p>
      ) : (
        <RequestList
          label="Requests"
          items={shown}
          selectedId={requestId}
          hrefOf={(id) => `${paths.endpointRequest(slug, id)}${suffix}`}
          onSelect={(id) => navigate(`${paths.endpointRequest(slug, id)}${suffix}`)}
          onEndReached={() => void store?.loadOlder()}
          footer={state.loadingOlder ? <p className="muted list-foot">Loading older requests…</p> : null}
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
              />
            ) : waiting ? (
              <WaitingDetail own={own !== undefined} />
            ) : (
              <p className="muted panel-pad select-hint">
                Select a request to see it in full. Keys: <kbd>j</kbd>/<kbd>k</kbd> move, <kbd>c</kbd> copies it as cURL, <kbd>/</kbd> searches.
              </p>
            )
          }
        />
      )}
    </div>
  );
}
