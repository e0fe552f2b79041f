/**
 * A virtualised list of captures (TanStack Virtual): only the rows in view are in the DOM, rows
 * have one fixed height, and when newer captures are added above while the list is scrolled the
 * view stays on the rows it showed (no jump).
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useLayoutEffect, useRef, type ReactNode } from 'react';
import { Link } from 'wouter';
import type { Capture } from '../api/client';
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
  const v = useVirtualizer({
    count: items.length,
    getScrollElement: () => scroller.current,
    estimateSize: rowSize,
    overscan: 12,
    // No getItemKey: rows have one fixed size, so the index is enough, and a key function would
    // be called for every capture on every update (thousands of calls per frame in a burst).
  });

  // Newer captures were added above: if the reader is scrolled down, keep their rows in place.
  const firstId = items[0]?.id;
  const previousFirst = useRef(firstId);
  useLayoutEffect(() => {
    const before = previousFirst.current;
    previousFirst.current = firstId;
    // The virtualiser's own offset: reading the element's scrollTop here would force a layout on
    // every batch of a burst.
    const offset = v.scrollOffset ?? 0;
    if (!before || before === firstId || offset <= 0) return;
    const added = items.findIndex((c) => c.id === before);
    // scrollBy counts from a scroll it has written but not yet seen come back, so batches add up.
    if (added > 0) v.scrollBy(added * ROW_HEIGHT);
  }, [firstId, items, v]);

  const rows = v.getVirtualItems();
  const lastIndex = rows[rows.length - 1]?.index ?? -1;
  const { onEndReached } = props;
  useEffect(() => {
    if (onEndReached && items.length > 0 && lastIndex >= items.length - 20) onEndReached();
  }, [lastIndex, items.length, onEndReached]);

  const selectedIndex = selectedId ? items.findIndex((c) => c.id === selectedId) : -1;
  useEffect(() => {
    if (selectedIndex >= 0) v.scrollToIndex(selectedIndex, { align: 'auto' });
    // Only when the selection moves, not on every new capture.
  }, [selectedId]);

  useListKeys({
    move: (delta) => {
      const next = items[selectedIndex < 0 ? 0 : Math.min(items.length - 1, Math.max(0, selectedIndex + delta))];
      if (next) props.onSelect(next.id);
    },
  });

  return (
    <div className="request-scroller" ref={scroller} tabIndex={-1}>
      <ul className="request-list" aria-label={props.label} style={{ height: v.getTotalSize() }}>
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
  );
}
