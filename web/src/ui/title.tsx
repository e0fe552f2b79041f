import { useEffect } from 'react';
import { readablePath } from '../lib/url';

/** The tab's title: the view first, then the product. */
export function useTitle(view: string | null): void {
  useEffect(() => {
    document.title = view ? `${view} · hookcap` : 'hookcap';
  }, [view]);
}

/** Code points of a request's path kept in the tab's title; the tab shows far fewer. */
const TITLE_PATH_MAX = 40;

/**
 * An open request as the tab names it, "POST /path" (the sender's path, cut to stay short). The
 * sender chose both: document.title is plain text, and readablePath leaves hidden and
 * direction-changing characters escaped, as in the list, so they cannot reorder what follows.
 */
export function requestTitle(capture: { method: string; path: string }): string {
  const path = [...readablePath(capture.path)];
  const method = [...capture.method].slice(0, 16).join('');
  return `${method} ${path.length > TITLE_PATH_MAX ? `${path.slice(0, TITLE_PATH_MAX - 1).join('')}…` : path.join('')}`;
}
