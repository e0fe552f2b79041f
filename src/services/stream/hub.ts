/**
 * The stream node's registry of live clients: one bus subscription per endpoint however many
 * clients watch it, dropped when its last client leaves. One keepalive timer and one expiry timer
 * serve every client, so an idle connection costs no timer of its own.
 */
import { AppError } from '../../errors';
import { refOf, splitBatch } from '../../bus/capture-batch';
import { subjects, type Bus } from '../../bus/types';
import type { Capture } from '../../model/capture';
import { frameFromCapture, frameFromJson, type EventFrame } from './frames';

/** What the hub drives; SseConnection implements it. */
export interface StreamClient {
  /** Runs inline on the bus read path (nats v2 callbacks do): must be O(1) and never throw. */
  deliver(frame: EventFrame): void;
  ping(): void;
  end(reason: 'expired' | 'shutdown'): void;
}

export interface HubOptions {
  /** Keepalive interval (STREAM_PING_MS). */
  pingMs: number;
  /** A client is ended this long after it joined (STREAM_MAX_MS). */
  maxMs: number;
  /** How long a join waits for the bus to confirm a new subscription before answering 503. */
  subscribeTimeoutMs?: number;
  /**
   * Reads a capture from the capture store, for records too large for a bus message (they arrive
   * as references and are delivered once shipped, after the captures published after them).
   */
  loadCapture?: (endpointId: string, id: string) => Promise<Capture | null>;
}

/** How long a referenced capture is waited for in the store before it is given up on. */
const REF_WAIT_MS = 10_000;
const REF_POLL_MS = 200;

interface Topic {
  clients: Set<StreamClient>;
  /** Settles once the bus has confirmed the subscription. */
  ready: Promise<void>;
  unsubscribe: () => void;
}

export class StreamHub {
  private readonly topics = new Map<string, Topic>();
  /**
   * Every client with its deadline. Every client gets the same maxMs, so insertion order is
   * deadline order and the first entry is always the next to expire.
   */
  private readonly deadlines = new Map<StreamClient, number>();
  private pingTimer: ReturnType<typeof setInterval> | null = null;
  private expiryTimer: ReturnType<typeof setTimeout> | null = null;
  private closed = false;

  constructor(
    private readonly bus: Bus,
    private readonly opts: HubOptions,
  ) {}

  /**
   * Adds a client to its endpoint's topic. Resolves, with the function that removes it again, once
   * every capture published from then on will reach it.
   */
  async join(endpointId: string, client: StreamClient): Promise<() => void> {
    if (this.closed) throw new AppError('unavailable', 'this node is shutting down', { 'retry-after': '1' });
    const topic = this.topics.get(endpointId) ?? this.open(endpointId);
    topic.clients.add(client);
    this.deadlines.set(client, Date.now() + this.opts.maxMs);
    this.startTimers();
    let joined = true;
    const leave = () => {
      if (!joined) return;
      joined = false;
      this.leave(endpointId, topic, client);
    };
    try {
      await topic.ready;
    } catch (err) {
      leave();
      throw err;
    }
    return leave;
  }

  stats(): { topics: number; clients: number } {
    return { topics: this.topics.size, clients: this.deadlines.size };
  }

  /** Ends every stream (shutdown); clients reconnect to another node. */
  close(): void {
    this.closed = true;
    for (const client of [...this.deadlines.keys()]) client.end('shutdown');
    // Clients normally leave as they end; make sure nothing stays subscribed or armed.
    for (const t of this.topics.values()) t.unsubscribe();
    this.topics.clear();
    this.deadlines.clear();
    this.stopTimers();
  }

  private open(endpointId: string): Topic {
    const clients = new Set<StreamClient>();
    const unsubscribe = this.bus.subscribe(subjects.capture(endpointId), (data) => {
      // One message holds the captures of one group commit (src/bus/capture-batch.ts); each
      // becomes one frame shared by every client: no per-client parse or encode.
      for (const line of splitBatch(data)) {
        const ref = refOf(line);
        if (ref !== null) {
          this.deliverFromStore(endpointId, ref, clients);
          continue;
        }
        const frame = frameFromJson(line);
        if (frame === null) continue;
        for (const c of clients) c.deliver(frame);
      }
    });
    const topic: Topic = { clients, unsubscribe, ready: this.confirm() };
    // A join that fails leaves; nobody else awaits a rejection after that, so silence it here.
    topic.ready.catch(() => {});
    this.topics.set(endpointId, topic);
    return topic;
  }

  /** A capture too large for the bus, delivered to whoever still watches once it is stored. */
  private deliverFromStore(endpointId: string, id: string, clients: Set<StreamClient>): void {
    const load = this.opts.loadCapture;
    if (load === undefined) return;
    void (async () => {
      for (let waited = 0; waited < REF_WAIT_MS && !this.closed && clients.size > 0; waited += REF_POLL_MS) {
        await Bun.sleep(REF_POLL_MS);
        const capture = await load(endpointId, id).catch(() => null);
        if (capture !== null) {
          const frame = frameFromCapture(capture);
          for (const c of clients) c.deliver(frame);
          return;
        }
      }
    })();
  }

  /** NATS sends SUB asynchronously; a flush round-trip proves the server has it. */
  private confirm(): Promise<void> {
    const ms = this.opts.subscribeTimeoutMs ?? 5_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    const timeout = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new AppError('unavailable', 'live stream unavailable: the bus did not answer', { 'retry-after': '1' })), ms);
    });
    return Promise.race([this.bus.flush(), timeout]).finally(() => clearTimeout(timer));
  }

  private leave(endpointId: string, topic: Topic, client: StreamClient): void {
    topic.clients.delete(client);
    this.deadlines.delete(client);
    if (topic.clients.size === 0 && this.topics.get(endpointId) === topic) {
      topic.unsubscribe();
      this.topics.delete(endpointId);
    }
    if (this.deadlines.size === 0) this.stopTimers();
  }

  private startTimers(): void {
    if (this.pingTimer === null) {
      this.pingTimer = setInterval(() => {
        for (const c of this.deadlines.keys()) c.ping();
      }, this.opts.pingMs);
    }
    this.armExpiry();
  }

  private armExpiry(): void {
    if (this.expiryTimer !== null) return;
    const next = this.deadlines.values().next();
    if (next.done) return;
    this.expiryTimer = setTimeout(() => this.expire(), Math.max(0, next.value - Date.now()));
  }

  private expire(): void {
    this.expiryTimer = null;
    const now = Date.now();
    for (const [client, deadline] of this.deadlines) {
      if (deadline > now) break;
      // end() leads to leave(), which deletes this entry; deleting the current entry of a Map
      // iteration is safe.
      client.end('expired');
      this.deadlines.delete(client);
    }
    this.armExpiry();
  }

  private stopTimers(): void {
    if (this.pingTimer !== null) clearInterval(this.pingTimer);
    if (this.expiryTimer !== null) clearTimeout(this.expiryTimer);
    this.pingTimer = null;
    this.expiryTimer = null;
  }
}
