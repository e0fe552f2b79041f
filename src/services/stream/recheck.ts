/**
 * The periodic re-check of a node's open streams: every STREAM_RECHECK_MS, and once more whenever
 * the node's bus connection comes back, one query (per RECHECK_BATCH of each kind) reads the state
 * of everything the node's streams depend on — their API keys and sessions, their endpoints, and
 * their team viewers' access — and hands it to the guards, which end the streams whose state is
 * gone. It bounds what a lost bus announcement (at-most-once NATS) can leave open: a revocation, an
 * endpoint deletion, a share removed. The timer runs only while the node has streams.
 *
 * @example
 * const recheck = new StreamRecheck(ctx, config.stream.recheckMs);
 * recheck.add(guard); // guard.collect(targets) then guard.apply(states) at each tick
 * const release = recheck.hold(); // a stream is attached; release() when it ends
 */
import { log } from '../../log';
import { shareKey, streamStates, type StreamStates } from '../../stores/state/stream-states';
import { errorMessage } from '../../unknown';
import type { BaseCtx } from '../context';

/** What one tick reads, gathered from every guard. */
export interface RecheckTargets {
  keyIds: Set<string>;
  tokenHashes: Set<string>;
  slugs: Set<string>;
  /** Team viewers by `shareKey(endpointId, userId)`. */
  shares: Map<string, { endpointId: string; userId: string }>;
}

export interface RecheckSource {
  /** Adds what its attached streams depend on. Synchronous: the snapshot the read is made for. */
  collect(targets: RecheckTargets): void;
  /** The states read; ends (or re-checks one by one) the streams whose state is gone. */
  apply(states: StreamStates): void;
}

/** Items of each kind per query (bind parameters stay far below Postgres' 65,535). */
const RECHECK_BATCH = 10_000;

export class StreamRecheck {
  private readonly sources: RecheckSource[] = [];
  private held = 0;
  private interval: ReturnType<typeof setInterval> | null = null;
  private unwatchBus: (() => void) | null = null;
  private running = false;
  private closed = false;

  constructor(
    private readonly ctx: Pick<BaseCtx, 'db' | 'bus'>,
    private readonly recheckMs: number,
  ) {}

  /** Guards apply in the order added: the first to end a stream gives its reason. */
  add(source: RecheckSource): void {
    this.sources.push(source);
  }

  /** A stream is attached: the timer runs while any is. Returns the release (idempotent). */
  hold(): () => void {
    if (this.closed) return () => {};
    this.held++;
    if (this.interval === null) {
      this.interval = setInterval(() => void this.recheckAll(), this.recheckMs);
      // Messages lost while the bus was away are not redelivered: read everything again.
      this.unwatchBus = this.ctx.bus.onConnectionChange((up) => {
        if (up) void this.recheckAll();
      });
    }
    let released = false;
    return () => {
      if (released) return;
      released = true;
      this.held--;
      if (this.held === 0) this.stop();
    };
  }

  /** One pass over every open stream of the node: one query per RECHECK_BATCH of each kind. */
  async recheckAll(): Promise<void> {
    if (this.running || this.held === 0 || this.closed) return;
    this.running = true;
    try {
      const t: RecheckTargets = { keyIds: new Set(), tokenHashes: new Set(), slugs: new Set(), shares: new Map() };
      for (const s of this.sources) s.collect(t);
      const keyIds = [...t.keyIds];
      const hashes = [...t.tokenHashes];
      const slugs = [...t.slugs];
      const shares = [...t.shares.values()];
      const states: StreamStates = { keys: new Map(), sessions: new Map(), endpoints: new Map(), shares: new Set() };
      const most = Math.max(keyIds.length, hashes.length, slugs.length, shares.length);
      for (let i = 0; i < most; i += RECHECK_BATCH) {
        const out = await streamStates(this.ctx.db, {
          keyIds: keyIds.slice(i, i + RECHECK_BATCH),
          tokenHashes: hashes.slice(i, i + RECHECK_BATCH),
          slugs: slugs.slice(i, i + RECHECK_BATCH),
          shares: shares.slice(i, i + RECHECK_BATCH),
        });
        for (const [k, v] of out.keys) states.keys.set(k, v);
        for (const [k, v] of out.sessions) states.sessions.set(k, v);
        for (const [k, v] of out.endpoints) states.endpoints.set(k, v);
        // A batch's pairs are matched by endpoint and viewer separately: keep only its own pairs.
        for (const s of shares.slice(i, i + RECHECK_BATCH)) {
          const key = shareKey(s.endpointId, s.userId);
          if (out.shares.has(key)) states.shares.add(key);
        }
      }
      if (this.closed) return;
      for (const s of this.sources) s.apply(states);
    } catch (e) {
      // The streams stay open; the next re-check, announcement or STREAM_MAX_MS ends them.
      log.warn('could not re-check open streams', { error: errorMessage(e) });
    } finally {
      this.running = false;
    }
  }

  /** Shutdown: no more timer. */
  close(): void {
    this.closed = true;
    this.stop();
  }

  private stop(): void {
    if (this.interval !== null) clearInterval(this.interval);
    this.interval = null;
    this.unwatchBus?.();
    this.unwatchBus = null;
  }
}
