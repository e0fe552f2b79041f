/**
 * Escape in a search or filter box leaves the box and keeps what it holds. Chromium's own default
 * for `<input type="search">` empties it instead, which threw away a developer's search and its
 * results (or the live list's filter) when Escape was only meant to get out of the box. Emptying is
 * still there: the box's ✕, or selecting the text and deleting it.
 *
 * @example
 * <input type="search" onKeyDown={leaveOnEscape} />
 */
import type { KeyboardEvent } from 'react';

export function leaveOnEscape(e: KeyboardEvent<HTMLInputElement>): void {
  if (e.key !== 'Escape') return;
  e.preventDefault();
  e.currentTarget.blur();
}

/**
 * The header's Search box's placeholder: with the `/` key that focuses it, except where the
 * pointer is coarse (a phone or tablet), whose on-screen keyboard has no use for the hint.
 */
export function searchPlaceholder(): string {
  const coarse = typeof matchMedia === 'function' && matchMedia('(pointer: coarse)').matches;
  return coarse ? 'Search requests' : 'Search requests  ( / )';
}
