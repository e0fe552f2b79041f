/**
 * How many captures arrived while the tab was hidden: the endpoint's tab says "(3) Stripe ·
 * hookcap" while you are in your editor or terminal triggering webhooks, and the count goes the
 * moment you come back to the tab. Counted from what the live list holds (listed plus held behind
 * Pause), so it needs no second subscription; a clear (fewer than at the start) starts again from there.
 */
import { useEffect, useRef, useState } from 'react';

const isHidden = () => document.visibilityState === 'hidden';

/** `total`: the captures the list holds now; `ready`: its first page has loaded (what it held before the tab was hidden is not news). */
export function useUnseenWhileHidden(total: number, ready: boolean): number {
  const [hidden, setHidden] = useState(isHidden);
  useEffect(() => {
    const update = () => setHidden(isHidden());
    document.addEventListener('visibilitychange', update);
    return () => document.removeEventListener('visibilitychange', update);
  }, []);
  // The count when the tab was hidden (or when the list first loaded in a tab opened in the background).
  const from = useRef<number | null>(null);
  if (!hidden || !ready) {
    from.current = null;
    return 0;
  }
  if (from.current === null || total < from.current) from.current = total;
  return total - from.current;
}

/** The tab's view name with the count in front, as mail and chat tabs do: "(3) Stripe". */
export const withUnseen = (view: string, unseen: number): string => (unseen > 0 ? `(${unseen.toLocaleString('en')}) ${view}` : view);
