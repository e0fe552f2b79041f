/**
 * The request list beside the open request (an endpoint's page, search). On a narrow screen they
 * take turns.
 */
import { useLayoutEffect, useRef, type ReactNode } from 'react';
import { focusRowWhenDrawn } from './request-list';

/**
 * The list beside the open request. On a narrow screen they take turns, so opening a request
 * hides the row that had the focus, and going back hides the link that had it; the browser then
 * drops the focus to the page, and a keyboard or screen reader user starts over from the top.
 * So when the pane holding the focus is hidden, the focus moves on: to the open request's heading
 * (or its back link while it loads), and back to the row of the request that was open.
 */
export function SplitPane({ list, detail, openId }: { list: ReactNode; detail: ReactNode; openId: string | null }) {
  const listPane = useRef<HTMLDivElement>(null);
  const detailPane = useRef<HTMLDivElement>(null);
  const previous = useRef(openId);
  /** The pane the focus was last in (an element removed while focused sends no blur). */
  const focusedPane = useRef<HTMLDivElement | null>(null);
  useLayoutEffect(() => {
    const before = previous.current;
    previous.current = openId;
    if (before === openId) return;
    const [from, to] = openId !== null ? [listPane.current, detailPane.current] : [detailPane.current, listPane.current];
    const active = document.activeElement;
    const wasInFrom = active && active !== document.body ? from?.contains(active) : focusedPane.current === from;
    // Wide screens show both panes: nothing was hidden, the focus stays where it is.
    if (!from || !to || !wasInFrom || from.getClientRects().length > 0) return;
    if (openId !== null) {
      (to.querySelector<HTMLElement>('.detail-title') ?? to.querySelector<HTMLElement>('.back-link'))?.focus();
      return;
    }
    // The list drew no rows while hidden (it is virtualised): hold the focus on it until its rows are back.
    const scroller = to.querySelector<HTMLElement>('.request-scroller');
    scroller?.focus({ preventScroll: true });
    if (before !== null) focusRowWhenDrawn(to, before, () => document.activeElement === scroller);
  }, [openId]);
  return (
    <div className={openId !== null ? 'split has-detail' : 'split'} onBlur={(e) => {
      if (!e.currentTarget.contains(e.relatedTarget)) focusedPane.current = null;
    }}>
      <div className="split-list" ref={listPane} onFocus={() => (focusedPane.current = listPane.current)}>
        {list}
      </div>
      <div className="split-detail" ref={detailPane} onFocus={() => (focusedPane.current = detailPane.current)}>
        {detail}
      </div>
    </div>
  );
}
