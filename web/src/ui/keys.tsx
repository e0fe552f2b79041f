/**
 * Keyboard shortcuts: `j`/`k` move through the list on screen, `/` focuses search, `c` copies the
 * open request as cURL, Escape closes it. The list and detail views register what the keys do
 * while they are shown.
 */
import { useEffect, useRef, type RefObject } from 'react';

export interface ListKeys {
  move(delta: 1 | -1): void;
}
export interface DetailKeys {
  copyCurl(): void;
}

const current: { list: ListKeys | null; detail: DetailKeys | null; close: (() => void) | null } = { list: null, detail: null, close: null };

export function useListKeys(handlers: ListKeys) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const mine: ListKeys = { move: (d) => ref.current.move(d) };
    current.list = mine;
    return () => {
      if (current.list === mine) current.list = null;
    };
  }, []);
}

export function useDetailKeys(handlers: DetailKeys) {
  const ref = useRef(handlers);
  ref.current = handlers;
  useEffect(() => {
    const mine: DetailKeys = { copyCurl: () => ref.current.copyCurl() };
    current.detail = mine;
    return () => {
      if (current.detail === mine) current.detail = null;
    };
  }, []);
}

/** Escape closes what `close` closes (the request open beside the live list) while it is shown. */
export function useEscapeCloses(close: () => void) {
  const ref = useRef(close);
  ref.current = close;
  useEffect(() => {
    const mine = () => ref.current();
    current.close = mine;
    return () => {
      if (current.close === mine) current.close = null;
    };
  }, []);
}

/** A form (Rename's Cancel and Save) or a menu has an Escape of its own, even on its buttons. */
function ownEscape(target: EventTarget | null): boolean {
  return target instanceof Element && target.closest('form, [role=menu], [role=listbox]') !== null;
}

function typingIn(target: EventTarget | null): boolean {
  if (!(target instanceof HTMLElement)) return false;
  return target.isContentEditable || /^(INPUT|TEXTAREA|SELECT)$/.test(target.tagName);
}

/** Installs the page-wide key handler; `search` is the box `/` focuses. */
export function useShortcuts(search: RefObject<HTMLInputElement | null>) {
  useEffect(() => {
    const onKey = (e: KeyboardEvent) => {
      if (e.defaultPrevented || e.ctrlKey || e.metaKey || e.altKey || typingIn(e.target)) return;
      if (document.querySelector('dialog[open]')) return;
      if (e.key === '/') {
        e.preventDefault();
        search.current?.focus();
        search.current?.select();
      } else if (e.key === 'j' && current.list) {
        e.preventDefault();
        current.list.move(1);
      } else if (e.key === 'k' && current.list) {
        e.preventDefault();
        current.list.move(-1);
      } else if (e.key === 'c' && current.detail) {
        e.preventDefault();
        current.detail.copyCurl();
      } else if (e.key === 'Escape' && current.close && !ownEscape(e.target)) {
        e.preventDefault();
        current.close();
      }
    };
    window.addEventListener('keydown', onKey);
    return () => window.removeEventListener('keydown', onKey);
  }, [search]);
}
