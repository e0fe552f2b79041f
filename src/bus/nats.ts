import { connect } from 'nats';
import type { Bus } from './types';

/** nats-server's default, used until the server's INFO says otherwise. */
const DEFAULT_MAX_PAYLOAD = 1024 * 1024;

/**
 * NATS core pub/sub. Captures are already durable in the capture log and the capture store, so
 * the bus only needs at-most-once delivery; a stream client that misses a message catches up
 * from the store with Last-Event-ID.
 */
export async function createNatsBus(url: string, prefix: string): Promise<Bus> {
  // Several URLs (a cluster's servers) are seeds: the client connects to one, learns the rest of
  // the cluster from it, and moves to another server when its own goes away.
  const urls = url.split(',').map((part) => new URL(part.trim()));
  const auth = urls.find((u) => u.username !== '');
  const nc = await connect({
    servers: urls.map((u) => `${u.hostname}:${u.port || 4222}`),
    user: auth ? decodeURIComponent(auth.username) : undefined,
    pass: auth?.password ? decodeURIComponent(auth.password) : undefined,
    name: 'hookcap',
    maxReconnectAttempts: -1,
  });
  const full = (subject: string) => `${prefix}.${subject}`;
  let connected = true;
  const watchers = new Set<(connected: boolean) => void>();
  const tell = (up: boolean) => {
    if (up === connected) return;
    connected = up;
    for (const w of watchers) w(up);
  };
  void (async () => {
    for await (const s of nc.status()) {
      if (s.type === 'disconnect') tell(false);
      else if (s.type === 'reconnect') tell(true);
    }
  })();
  return {
    kind: 'nats',
    get connected() {
      return connected;
    },
    onConnectionChange(handler) {
      watchers.add(handler);
      return () => watchers.delete(handler);
    },
    get maxPayload() {
      return nc.info?.max_payload ?? DEFAULT_MAX_PAYLOAD;
    },
    hasListeners: () => true,
    publish(subject, data) {
      nc.publish(full(subject), data);
    },
    subscribe(subject, handler) {
      const sub = nc.subscribe(full(subject), { callback: (_err, msg) => handler(msg.data) });
      return () => sub.unsubscribe();
    },
    flush: () => nc.flush(),
    close: async () => {
      await nc.drain();
    },
  };
}
