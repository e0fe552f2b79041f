import { useEffect, useState, useSyncExternalStore } from 'react';
import { LiveList, type LiveState } from './store';

const IDLE: LiveState = { items: [], held: 0, paused: false, status: 'connecting', endReason: null, loading: true, hasMore: false, loadingOlder: false, error: null };
const noSubscribe = () => () => {};

/**
 * The live list of one endpoint, started while mounted and `enabled` (off for a shared endpoint
 * whose team access is paused: its stream would only end with "not found").
 */
export function useLive(slug: string, enabled = true): { store: LiveList | null; state: LiveState } {
  const [store, setStore] = useState<LiveList | null>(null);
  useEffect(() => {
    if (!enabled) {
      setStore(null);
      return;
    }
    const s = new LiveList(slug);
    s.start();
    setStore(s);
    return () => s.stop();
  }, [slug, enabled]);
  const state = useSyncExternalStore(store?.subscribe ?? noSubscribe, store ? store.getState : () => IDLE);
  return { store: store?.slug === slug ? store : null, state: store?.slug === slug ? state : IDLE };
}
