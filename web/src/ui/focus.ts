/**
 * Keeping the keyboard focus when the control that had it goes away (a form closes, a button is
 * no longer needed): the browser drops it to the page, and a keyboard or screen reader user has
 * to find their place again from the top.
 */
import { useLayoutEffect, useRef } from 'react';

/**
 * When `shown` turns false and the focus fell to the page with it, focus what `target` returns
 * (the control that takes over). Focus that moved somewhere else on purpose is left alone.
 */
export function useFocusWhenGone(shown: boolean, target: () => HTMLElement | null | undefined): void {
  const was = useRef(shown);
  useLayoutEffect(() => {
    const before = was.current;
    was.current = shown;
    if (!before || shown) return;
    const active = document.activeElement;
    if (active === null || active === document.body) target()?.focus();
  });
}
