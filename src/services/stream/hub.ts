/**
 * The stream node's registry of live clients: one bus subscription per endpoint however many
 * clients watch it, kept `resumeMs` after its last client leaves (with the frames delivered
 * meanwhile, so a client reconnecting within it resumes exactly: ./recent.ts), then dropped. One
 * keepalive timer and one expiry timer serve every client, so an idle connection costs no timer of
 * its own.
 */
import { AppError } from '../../errors';
import { refOf, splitBatch } from '../../bus/capture-batch';
import { subjects, type Bus } from '../../bus/types';
import { systemClock, type Clock } from '../../clock';
import type { Capture } from '../../model/capture';
import { frameFromCapture, frameFromJson, type EventFrame } from './frames';
import { RecentFrames } from './recent';

/** What the hub drives; SseConnection implements it. */
export interface StreamClient {
  /** Runs inline on the bus read path (nats v2 callbacks do): must be O(1) and never throw. */
  deliver(frame: EventFrame): void;
  ping(): void;
  end(reason: 'expired' | 'shutdown' | 'bus_lost'): void;
}

export interface HubOptions {
  /** Keepalive interval (STREAM_PING_MS). */
  pingMs: number;
  /** A client is ended this long after it joined (STREAM_MAX_MS). */
  maxMs: number;
  /**
   * How long an endpoint's subscription and its recent frames outlive its last client
   * (STREAM_RESUME_MS); 0 drops them at once, and every resume reads the store.
   */
  resumeMs?: number;
  /** Recent frames kept per endpoint, at most (STREAM_CLIENT_BUFFER). */
  clientBuffer?: number;
  /** How long a join waits for the bus to confirm a new subscription before answering 503. */
  subscribeTimeoutMs?: number;
  /**
   * Reads a capture from the capture store, for records too large for a bus message (they arrive
   * as references and are delivered once shipped, after the captures published after them).
   */
  loadCapture?: (endpointId: string, id: string) => Promise<Capture | null>;
  /** Where the time is read (the service's clock; the system clock if none). */
  clock?: Clock;
}

/** How long a referenced capture is waited for in the store before it is given up on. */
const REF_WAIT_MS = 10_000;
const REF_POLL_MS = 200;

interface Topic {
  clients: Set<StreamClient>;
  /** Settles once the bus has confirmed the subscription. */
  ready: Promise<void>;
  unsubscribe: () => void;
  /** Every frame delivered on this topic within the resume window, in delivery order. */
  recent: RecentFrames;
  /** Armed while nobody watches: drops the topic unless a client joins first. */
  idleTimer: ReturnType<typeof setTimeout> | null;
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
  private readonly unwatchBus: () => void;
  private readonly clock: Clock;

  constructor(
    private readonly bus: Bus,
    private readonly opts: HubOptions,
  ) {
    this.clock = opts.clock ?? systemClock;
    this.unwatchBus = bus.onConnectionChange((up) => {
      if (!up) this.busLost();
    });
  }

  /**
   * Adds a client to its endpoint's topic. Resolves, with the function that removes it again, once
   * every capture published from then on will reach it.
   */
  async join(endpointId: string, client: StreamClient): Promise<() => void> {
    if (this.closed) throw new AppError('unavailable', 'this node is shutting down', { 'retry-after': '1' });
    if (!this.bus.connected) throw new AppError('unavailable', 'live stream unavailable: this node has lost the bus', { 'retry-after': '2' });
    const topic = this.topics.get(endpointId) ?? this.open(endpointId);
    if (topic.idleTimer !== null) clearTimeout(topic.idleTimer);
    topic.idleTimer = null;
    topic.clients.add(client);
    this.deadlines.set(client, this.clock.now() + this.opts.maxMs);
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
      joined = false;
      // A subscription the bus never confirmed is not kept for resumes: the next join tries afresh.
      this.leave(endpointId, topic, client, false);
      throw err;
    }
    return leave;
  }

  /**
   * For a client resuming after `lastEventId`: the frames this node delivered on the endpoint after
   * that one, or null when it does not have that one (then the capture store is read). Call right
   * after `join` resolves: from then on new frames reach the client itself.
   */
  framesAfter(endpointId: string, lastEventId: string): EventFrame[] | null {
    return this.topics.get(endpointId)?.recent.after(lastEventId, this.clock.now()) ?? null;
  }

  /** `topics`: endpoints watched by at least one client; `idle`: subscriptions kept for resumes. */
  stats(): { topics: number; clients: number; idle: number } {
    let idle = 0;
    for (const t of this.topics.values()) if (t.clients.size === 0) idle++;
    return { topics: this.topics.size - idle, clients: this.deadlines.size, idle };
  }

  /** Ends every stream (shutdown); clients reconnect to another node. */
  close(): void {
    this.closed = true;
    this.unwatchBus();
    this.endAll('shutdown');
  }

  /**
   * The bus is gone: captures published meanwhile never reach this node, so every stream is told
   * and ended, and the recent frames kept for resumes are dropped (they would hide the gap). A
   * client that reconnects with Last-Event-ID once the bus is back catches up from the store.
   */
  private busLost(): void {
    if (!this.closed) this.endAll('bus_lost');
  }

  private endAll(reason: 'shutdown' | 'bus_lost'): void {
    for (const client of [...this.deadlines.keys()]) client.end(reason);
    // Clients normally leave as they end; make sure nothing stays subscribed or armed.
    for (const t of this.topics.values()) {
      if (t.idleTimer !== null) clearTimeout(t.idleTimer);
      t.unsubscribe();
    }
    this.topics.clear();
    this.deadlines.clear();
    this.stopTimers();
  }

  private open(endpointId: string): Topic {
    const clients = new Set<StreamClient>();
    const recent = new RecentFrames(this.opts.resumeMs ? (this.opts.clientBuffer ?? 1_000) : 0, this.opts.resumeMs ?? 0);
    const deliver = (frame: EventFrame) => {
      recent.push(frame, this.clock.now());
      for (const c of clients) c.deliver(frame);
    };
    const unsubscribe = this.bus.subscribe(subjects.capture(endpointId), (data) => {
      // One message holds the captures of one flush, one or more group commits
      // (src/bus/capture-batch.ts); each becomes one frame shared by every client: no per-client
      // parse or encode.
      for (const line of splitBatch(data)) {
        const ref = refOf(line);
        if (ref !== null) {
          this.deliverFromStore(endpointId, ref, deliver);
          continue;
        }
        const frame = frameFromJson(line);
        if (frame !== null) deliver(frame);
      }
    });
    const topic: Topic = { clients, unsubscribe, ready: this.confirm(), recent, idleTimer: null };
    // A join that fails leaves; nobody else awaits a rejection after that, so silence it here.
    topic.ready.catch(() => {});
    this.topics.set(endpointId, topic);
    return topic;
  }

  /**
   * A capture too large for the bus, delivered once it is stored to whoever still watches (or to
   * the recent frames, while the topic waits for a client to resume).
   */
  private deliverFromStore(endpointId: string, id: string, deliver: (frame: EventFrame) => void): void {
    const load = this.opts.loadCapture;
    if (load === undefined) return;
    const topic = this.topics.get(endpointId);
    void (async () => {
      for (let waited = 0; waited < REF_WAIT_MS && !this.closed && this.topics.get(endpointId) === topic; waited += REF_POLL_MS) {
        await Bun.sleep(REF_POLL_MS);
        const capture = await load(endpointId, id).catch(() => null);
        if (capture !== null) {
          deliver(frameFromCapture(capture));
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

  private leave(endpointId: string, topic: Topic, client: StreamClient, keepForResume = true): void {
    topic.clients.delete(client);
    this.deadlines.delete(client);
    if (topic.clients.size === 0 && this.topics.get(endpointId) === topic) {
      const drop = () => {
        if (topic.clients.size > 0 || this.topics.get(endpointId) !== topic) return;
        topic.unsubscribe();
        this.topics.delete(endpointId);
      };
      const resumeMs = this.opts.resumeMs ?? 0;
      if (resumeMs > 0 && keepForResume && !this.closed) topic.idleTimer = setTimeout(drop, resumeMs);
      else drop();
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
    this.expiryTimer = setTimeout(() => this.expire(), Math.max(0, next.value - this.clock.now()));
  }

  private expire(): void {
    this.expiryTimer = null;
    const now = this.clock.now();
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
