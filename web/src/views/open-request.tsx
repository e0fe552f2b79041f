/** The request open beside an endpoint's live list, with Compare (with the previous one, or one selected). */
import { useEffect, useLayoutEffect, useRef } from 'react';
import { Link, useLocation } from 'wouter';
import type { Capture } from '../api/client';
import { useCaptureEndpoint } from '../api/capture-endpoint';
import { useRequest, type Endpoint } from '../api/queries';
import type { LiveState } from '../live/store';
import { paths } from '../paths';
import { ErrorMessage } from '../ui/error';
import { useEscapeCloses } from '../ui/keys';
import { focusRowWhenDrawn } from '../ui/request-list';
import { Compare } from './compare';
import { RequestDetail } from './request-detail';

/** The request after `id` in the list as shown (the next older), if `id` is listed. */
export function olderThan(items: readonly Capture[], id: string): string | undefined {
  const at = items.findIndex((c) => c.id === id);
  return at < 0 ? undefined : items[at + 1]?.id;
}

interface OpenRequestProps {
  id: string;
  state: LiveState;
  endpoint: Pick<Endpoint, 'id' | 'url'>;
  backHref: string;
  /** The request selected for comparison (`?compare=`). */
  compareId: string | null;
  /** The next older request in the list as shown, for "Compare with previous". */
  previousId: string | undefined;
  hrefWith: (id: string, compare: string | null) => string;
  /** The open request changed on the server (kept or not): the live list shows it so. */
  onChanged?: (c: Capture) => void;
}

export function OpenRequest({ id, state, endpoint, backHref, compareId, previousId, hrefWith, onChanged }: OpenRequestProps) {
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
  const compareBox = useRef<HTMLDivElement>(null);
  const compareGroup = useRef<HTMLSpanElement>(null);
  // Previous, Select and Stop comparing each go away once used, and the browser dropped the focus
  // to the page (a keyboard user then started over from the top). Noted on the click, so moving
  // through requests with j/k, which also shows and hides them, never takes the focus.
  const refocus = useRef<'comparison' | 'compare-actions' | null>(null);
  useLayoutEffect(() => {
    const want = refocus.current;
    if (!want) return;
    const active = document.activeElement;
    if (active !== null && active !== document.body) {
      refocus.current = null;
      return;
    }
    const target = want === 'comparison' ? compareBox.current : compareGroup.current?.querySelector<HTMLElement>('a');
    if (target) {
      refocus.current = null;
      target.focus();
    }
  });
  // Escape goes back to the list as "← All requests" does (the filter and comparison kept), with
  // the focus on this request's row, where j/k and Enter carry on; on a narrow screen the list is
  // drawn again first, its rows a frame or two later.
  useEscapeCloses(() => {
    navigate(backHref);
    const dropped = () => {
      const a = document.activeElement;
      return a === null || a === document.body || !a.isConnected || a.classList.contains('request-scroller');
    };
    // After the list is drawn without the open request: a row hidden with the list pane takes no focus.
    requestAnimationFrame(() => focusRowWhenDrawn(document, id, dropped));
  });
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
          onChanged={onChanged}
          actions={
            (previousId && previousId !== compareId) || compareId !== id ? (
              <span className="action-group" role="group" aria-label="Compare" ref={compareGroup}>
                <span className="action-group-label" aria-hidden="true">
                  Compare
                </span>
                {previousId && previousId !== compareId ? (
                  <Link href={hrefWith(id, previousId)} className="button" aria-label="Compare with previous" onClick={() => (refocus.current = 'comparison')}>
                    Previous
                  </Link>
                ) : null}
                {compareId !== id ? (
                  // "Select", not "Pin": users took "Pin" for keeping the capture (that is Keep).
                  <Link
                    href={hrefWith(id, id)}
                    className="button"
                    aria-label="Select for comparison"
                    title="Compare other requests with this one: select it, then open another"
                    onClick={() => (refocus.current = 'comparison')}
                  >
                    Select
                  </Link>
                ) : null}
              </span>
            ) : null
          }
          compare={
            compareId ? (
              // One element from "Loading…" to the differences, so the focus put on it stays.
              <div ref={compareBox} tabIndex={-1} className="compare-box">
                <Compare
                  capture={capture}
                  other={otherInList ?? otherFetched.data}
                  otherId={compareId}
                  otherHref={hrefWith(compareId, id)}
                  error={otherFetched.error}
                  stopHref={hrefWith(id, null)}
                  onStop={() => (refocus.current = 'compare-actions')}
                />
              </div>
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
