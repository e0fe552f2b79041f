import { useEffect, useState, useSyncExternalStore } from 'react';
import { LiveList, type LiveState } from './store';

const IDLE: LiveState = { items: [], held: 0, paused: false, status: 'connecting', endReason: null, loading: true, hasMore: false, loadingOlder: false, error: null };
const noSubscribe = () => () => {};

/** The live list of one endpoint, started while mounted. */
export function useLive(slug: string): { store: LiveList | null; state: LiveState } {
  const [store, setStore] = useState<LiveList | null>(null);
  useEffect(() => {
    const s = new LiveList(slug);
    s.start();
    setStore(s);
    return () => s.stop();
  }, [slug]);
  const state = useSyncExternalStore(store?.subscribe ?? noSubscribe, store ? store.getState : () => IDLE);
  return { store: store?.slug === slug ? store : null, state: store?.slug === slug ? state : IDLE };
}
