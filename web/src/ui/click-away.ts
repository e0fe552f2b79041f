/**
 * A click (pointer down) outside `box` while `open` calls `close`, as a menu or popover closes. A
 * confirmation dialog opened from inside counts as inside: closing under it would leave its focus
 * nowhere to return to.
 *
 * @example
 * const box = useRef<HTMLDivElement>(null);
 * useClickAway(box, open, () => setOpen(false));
 */
import { useEffect, useRef, type RefObject } from 'react';

export function useClickAway(box: RefObject<HTMLElement | null>, open: boolean, close: () => void): void {
  // The latest close, without re-adding the listener on each render.
  const onClose = useRef(close);
  onClose.current = close;
  useEffect(() => {
    if (!open) return;
    const away = (e: PointerEvent) => {
      const target = e.target as Element;
      if (!box.current?.contains(target) && !target.closest?.('dialog')) onClose.current();
    };
    document.addEventListener('pointerdown', away);
    return () => document.removeEventListener('pointerdown', away);
  }, [open, box]);
}
