/**
 * Keeping the keyboard focus when the control that had it goes away (a form closes, a button is
 * no longer needed): the browser drops it to the page, and a keyboard or screen reader user has
 * to find their place again from the top.
 */
import { useEffect, useLayoutEffect, useRef, type RefObject } from 'react';

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

/**
 * A row removed from a list (a key deleted, an invite withdrawn, an endpoint unshared) took the
 * focus with it. `removing(key)` notes the row (marked `data-row-key`) as its removal starts; once
 * it is gone from `list`, with no dialog open and the focus dropped to the page, the focus goes to
 * the row now in its place (the next one, or the previous when it was the last), on its (first)
 * button, else its link, and to `fallback()` when the list is empty. A failed removal: `forget()`.
 */
export function useFocusAfterRemoval(list: RefObject<HTMLElement | null>, fallback: () => HTMLElement | null | undefined): { removing: (key: string) => void; forget: () => void } {
  const pending = useRef<{ key: string; index: number } | null>(null);
  const rows = () => [...(list.current?.querySelectorAll<HTMLElement>('[data-row-key]') ?? [])];
  // A plain effect, after the confirmation dialog's own (a child's effects run first), which
  // closes it and hands the focus back to the removed row's button, that is, to the page.
  useEffect(() => {
    const p = pending.current;
    if (!p) return;
    const now = rows();
    if (now.some((r) => r.dataset.rowKey === p.key) || document.querySelector('dialog[open]')) return;
    pending.current = null;
    // Dropped: on the page, or still on the confirmation's button, whose dialog has just closed
    // (the browser moves it off a hidden element only at its next rendering update).
    const active = document.activeElement;
    const dropped = active === null || active === document.body || !active.isConnected || active.closest('dialog:not([open])') !== null;
    if (!dropped) return;
    const row = now[Math.min(p.index, now.length - 1)];
    const target = row ? (row.querySelector<HTMLElement>('button') ?? row.querySelector<HTMLElement>('a[href]') ?? row) : fallback();
    target?.focus();
  });
  return {
    removing: (key) => {
      pending.current = { key, index: Math.max(0, rows().findIndex((r) => r.dataset.rowKey === key)) };
    },
    forget: () => {
      pending.current = null;
    },
  };
}

let headingNext = false;

/**
 * An action is taking the visitor to another page (sign-in or sign-up was sent; log out; a team
 * was made, joined, left or deleted; an endpoint deleted): the page that follows takes the focus
 * to its heading. `false` takes it
 * back (the sign-in failed).
 */
export function focusNextPageHeading(on = true): void {
  headingNext = on;
}

/**
 * The control that had the focus went with the page it was on (the sign-in form, Create team,
 * Accept, Leave team's confirmation), and the browser dropped the focus to the page: a keyboard
 * or screen reader user started over from the top, with nothing said of where they landed. The
 * page landed on loads its data first, so once its main heading (`h1`) appears in `main` it takes
 * the focus, as a newly made endpoint's title does, unless the focus went somewhere on purpose
 * meanwhile. Runs when the app's frame mounts (signed in) or the sign-in form does (logged out),
 * and at each change of `location`.
 */
export function useFocusNextPageHeading(main: RefObject<HTMLElement | null>, location: string): void {
  useEffect(() => {
    const root = main.current;
    if (!headingNext || !root) return;
    headingNext = false;
    const settle = (): boolean => {
      const active = document.activeElement;
      if (active !== null && active !== document.body) return true;
      const heading = root.querySelector<HTMLElement>('h1');
      if (!heading) return false;
      if (!heading.hasAttribute('tabindex')) heading.tabIndex = -1;
      heading.focus();
      return true;
    };
    if (settle()) return;
    const observer = new MutationObserver(() => {
      if (settle()) observer.disconnect();
    });
    observer.observe(root, { childList: true, subtree: true });
    return () => observer.disconnect();
  }, [main, location]);
}
