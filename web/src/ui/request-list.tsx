/**
 * A virtualised list of captures (TanStack Virtual): only the rows in view are in the DOM, rows
 * have one fixed height, and when newer captures are added above while the list is scrolled the
 * view stays on the rows it showed (no jump).
 */
import { defaultRangeExtractor, useVirtualizer, type Range } from '@tanstack/react-virtual';
import { useCallback, useEffect, useLayoutEffect, useReducer, useRef, type MouseEvent, type ReactNode } from 'react';
import { Link } from 'wouter';
import type { Capture } from '../api/client';
import { plural } from '../lib/format';
import { useListKeys } from './keys';
import { RequestRowContent } from './request-row';

export const ROW_HEIGHT = 56;
/** Stable, so the virtualiser keeps its measurements between renders instead of redoing them all. */
const rowSize = () => ROW_HEIGHT;

/**
 * Focuses the row of capture `id` under `root` once the list draws it: a frame or two after the
 * list itself (it is virtualised), so it is looked for on each of up to 30 frames, and given up as
 * soon as `stillWanted()` says the focus went elsewhere meanwhile.
 */
export function focusRowWhenDrawn(root: ParentNode, id: string, stillWanted: () => boolean): void {
  const toRow = (frames: number) => {
    const row = root.querySelector<HTMLElement>(`.request-list a[data-id="${CSS.escape(id)}"]`);
    if (row) row.focus();
    else if (frames > 0 && stillWanted()) requestAnimationFrame(() => toRow(frames - 1));
  };
  toRow(30);
}

export interface RequestListProps {
  label: string;
  items: readonly Capture[];
  selectedId: string | null;
  hrefOf: (id: string) => string;
  onSelect: (id: string) => void;
  onEndReached?: () => void;
  endpointNameOf?: (c: Capture) => string | undefined;
  footer?: ReactNode;
}

export function RequestList(props: RequestListProps) {
  const { items, selectedId } = props;
  const scroller = useRef<HTMLDivElement>(null);
  const keep = useRef<number[]>([]);
  /** Stable (like rowSize), so the virtualiser recomputes its range only when it has to. */
  const rangeExtractor = useCallback((range: Range) => {
    const out = defaultRangeExtractor(range);
    for (const i of keep.current) if (i >= 0 && i < range.count && !out.includes(i)) out.push(i);
    return out.sort((a, b) => a - b);
  }, []);
  const selectedIndex = selectedId ? items.findIndex((c) => c.id === selectedId) : -1;
  // The open row and the focused one are always drawn, wherever the view is: a render with new rows
  // above comes before the scroll that keeps the view in place, and a row dropped from the DOM for
  // that moment would take the focus with it.
  const active = typeof document === 'undefined' ? null : document.activeElement;
  const focusedId = active instanceof HTMLElement && scroller.current?.contains(active) ? active.dataset.id : undefined;
  keep.current = [selectedIndex, focusedId === undefined ? -1 : items.findIndex((c) => c.id === focusedId)];
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: rowSize,
    rangeExtractor,
    overscan: 12,
    // No getItemKey: rows have one fixed size, so the index is enough, and a key function would
    // be called for every capture on every update (thousands of calls per frame in a burst).
  });

  // Newer captures were added above. At the top, with no request open and the focus elsewhere,
  // the list follows the newest. Otherwise (scrolled down, a request open, the focus on a row) the
  // view stays on the rows it showed: the open row does not slide away while it is being read, and
  // the focused row is not scrolled out of the DOM (the focus would fall to the page).
  const firstId = items[0]?.id;
  const previousFirst = useRef(firstId);
  /** The newest capture the reader has had at the top of the view; those above it are "N newer". */
  const seen = useRef(firstId);
  const [, redraw] = useReducer((n: number) => n + 1, 0);
  const list = useRef<HTMLUListElement>(null);
  /** The list's height while it holds still though shorter than its box (0: its rows' height). */
  const room = useRef(0);
  const reading = selectedIndex >= 0;
  useLayoutEffect(() => {
    const before = previousFirst.current;
    previousFirst.current = firstId;
    if (seen.current === undefined || !before) seen.current = firstId;
    // The virtualiser's own offset: reading the element's scrollTop here would force a layout on
    // every batch of a burst.
    const offset = v.scrollOffset ?? 0;
    if (!before || before === firstId) return;
    if (offset <= 0 && !reading && !scroller.current?.contains(document.activeElement)) {
      seen.current = firstId;
      return;
    }
    const added = items.findIndex((c) => c.id === before);
    if (added < 0 && room.current > 0) {
      // Another list (cleared, or another endpoint's): no view to hold any more.
      room.current = 0;
      redraw();
    }
    if (added <= 0) return;
    // A list shorter than its box could not scroll to hold the view: it gets room below its rows
    // (blank), enough to scroll the new ones out of sight above, until the top is seen again.
    // Batches before this one may not have scrolled yet: the room grows from the room they made.
    const needed = Math.max(room.current, offset + (v.scrollRect?.height ?? 0)) + added * ROW_HEIGHT;
    if (needed > v.getTotalSize() && list.current) {
      room.current = needed;
      list.current.style.height = `${needed}px`;
    }
    // scrollBy counts from a scroll it has written but not yet seen come back, so batches add up.
    v.scrollBy(added * ROW_HEIGHT);
  }, [firstId, items, v, reading]);
  const seenAt = seen.current === undefined ? 0 : items.findIndex((c) => c.id === seen.current);
  const newer = Math.max(0, seenAt);
  const onScroll = () => {
    // Back at the top (scrolled there, or the button): nothing newer is out of sight.
    if (scroller.current && scroller.current.scrollTop <= 0 && (seen.current !== items[0]?.id || room.current > 0)) {
      seen.current = items[0]?.id;
      room.current = 0;
      redraw();
    }
  };
  const toNewest = (e: MouseEvent<HTMLButtonElement>) => {
    const button = e.currentTarget;
    seen.current = items[0]?.id;
    v.scrollToOffset(0);
    const first = items[0];
    const root = scroller.current;
    // The button goes away at the top, dropping the focus: it goes to the newest row once drawn.
    const wanted = () => {
      const a = document.activeElement;
      return a === null || a === document.body || a === button || root?.contains(a) === true;
    };
    if (first && root) focusRowWhenDrawn(root, first.id, wanted);
  };

  const rows = v.getVirtualItems();
  const lastIndex = rows[rows.length - 1]?.index ?? -1;
  const { onEndReached } = props;
  useEffect(() => {
    if (onEndReached && items.length > 0 && lastIndex >= items.length - 20) onEndReached();
  }, [lastIndex, items.length, onEndReached]);

  useEffect(() => {
    if (selectedIndex >= 0) v.scrollToIndex(selectedIndex, { align: 'auto' });
    // Only when the selection moves, not on every new capture.
  }, [selectedId]);

  useListKeys({
    move: (delta) => {
      // From the row with the keyboard focus, when one has it (after "N newer requests", or Tab
      // through the rows), else from the open one: moving from the open request while the focus
      // stood on another row opened one far from it, the list scrolling away from where the user was.
      const a = document.activeElement;
      const focusedAt = a instanceof HTMLElement && a.dataset.id && scroller.current?.contains(a) ? items.findIndex((c) => c.id === a.dataset.id) : -1;
      const from = focusedAt >= 0 ? focusedAt : selectedIndex;
      const next = items[from < 0 ? 0 : Math.min(items.length - 1, Math.max(0, from + delta))];
      if (!next) return;
      props.onSelect(next.id);
      // The focus goes along, so the next key goes on from the request it opened.
      const root = scroller.current;
      if (focusedAt >= 0 && root) focusRowWhenDrawn(root, next.id, () => root.contains(document.activeElement));
    },
  });

  return (
    // The button is over the list, not in it: in the scroller it would move with each scroll.
    <div className="request-list-box">
      {newer > 0 ? (
        <button type="button" className="small primary newer-above" onClick={toNewest}>
          ↑ {plural(newer, 'newer request')}
        </button>
      ) : null}
      <div className="request-scroller" ref={scroller} tabIndex={-1} onScroll={onScroll}>
      <ul className="request-list" ref={list} aria-label={props.label} style={{ height: Math.max(v.getTotalSize(), room.current) }}>
        {rows.map((row) => {
          const c = items[row.index];
          if (!c) return null;
          const selected = c.id === selectedId;
          return (
            <li key={c.id} className="request-item" style={{ transform: `translateY(${row.start}px)` }}>
              <Link href={props.hrefOf(c.id)} className={selected ? 'row selected' : 'row'} aria-current={selected ? 'true' : undefined} data-id={c.id}>
                <RequestRowContent capture={c} endpointName={props.endpointNameOf?.(c)} />
              </Link>
            </li>
          );
        })}
      </ul>
      {props.footer}
      </div>
    </div>
  );
}
