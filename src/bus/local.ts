import type { Bus, BusHandler } from './types';

/** In-process bus for the embedded mode: same semantics as NATS for one node. */
export function createLocalBus(): Bus {
  const handlers = new Map<string, Set<BusHandler>>();
  return {
    kind: 'local',
    maxPayload: Number.POSITIVE_INFINITY,
    // In-process: never disconnected.
    connected: true,
    onConnectionChange: () => () => {},
    publish(subject, data) {
      const set = handlers.get(subject);
      if (!set) return;
      // Deliver asynchronously, as NATS would, so a publisher never runs subscriber code inline.
      queueMicrotask(() => {
        for (const h of set) h(data);
      });
    },
    hasListeners: (subject) => handlers.has(subject),
    subscribe(subject, handler) {
      let set = handlers.get(subject);
      if (!set) {
        set = new Set();
        handlers.set(subject, set);
      }
      set.add(handler);
      return () => {
        const s = handlers.get(subject);
        if (!s) return;
        s.delete(handler);
        if (s.size === 0) handlers.delete(subject);
      };
    },
    flush: async () => {},
    close: async () => {
      handlers.clear();
    },
  };
}
