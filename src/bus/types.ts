/**
 * Fan-out between nodes: live captures to stream nodes, config invalidation to every node's
 * endpoint cache. NATS in production, an in-process bus embedded. Subjects are relative; the bus adds the
 * deployment prefix.
 */
export type BusHandler = (data: Uint8Array) => void;

export interface Bus {
  readonly kind: 'nats' | 'local';
  /** Largest message the bus carries, in bytes (NATS: the server's max_payload). */
  readonly maxPayload: number;
  publish(subject: string, data: Uint8Array): void;
  /**
   * False only when the bus knows that nobody would receive a message published to `subject` now:
   * the in-process bus, whose subscribers are all in this process. NATS cannot know (subscribers
   * are on other nodes, and one may be subscribing right now), so it always answers true.
   */
  hasListeners(subject: string): boolean;
  /** Returns the unsubscribe function. Handlers must be short: they run on the read path. */
  subscribe(subject: string, handler: BusHandler): () => void;
  /**
   * False while the connection to the bus is lost (NATS reconnecting). Live publishes are dropped
   * meanwhile rather than buffered without bound: captures are durable in the log and the store,
   * and streams catch up from the store (src/services/stream/hub.ts ends them on loss).
   */
  readonly connected: boolean;
  /** Calls `handler` when the connection is lost (false) and when it is back (true); returns the unsubscribe function. */
  onConnectionChange(handler: (connected: boolean) => void): () => void;
  /** Resolves once everything published so far has left this process. */
  flush(): Promise<void>;
  close(): Promise<void>;
}

export const subjects = {
  capture: (endpointId: string) => `captures.${endpointId}`,
  /** An endpoint's config changed or it was deleted: endpoint caches drop their snapshot; stream nodes re-read it for open streams. */
  endpointChanged: 'config.endpoint',
} as const;

const encoder = new TextEncoder();
const decoder = new TextDecoder();
export const encodeJson = (value: unknown): Uint8Array => encoder.encode(JSON.stringify(value));
export const decodeJson = <T>(data: Uint8Array): T => JSON.parse(decoder.decode(data)) as T;
