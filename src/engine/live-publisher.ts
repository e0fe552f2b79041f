/**
 * Publishes acknowledged captures to the bus for live streams, coalesced: every capture that
 * became durable in one group commit resumes in the same microtask turn, so they are collected and
 * sent as one message per endpoint (src/bus/capture-batch.ts).
 *
 * Flushes are also spaced at least `flushMs` apart: the first after a quiet spell goes out at the
 * end of its turn, as before; under load, the groups that become durable within `flushMs` of the
 * last flush wait for the next one and travel together. At peak a group commits every ~0.7 ms, and
 * each flush is a socket write on the receiver thread plus per-message work in NATS; with 5 ms
 * NATS's CPU per capture fell by half (docs/benchmarks.md). A live viewer sees a capture at most
 * `flushMs` later; nothing is published before it is durable.
 */
import { encodeBatches } from '../bus/capture-batch';
import { subjects, type Bus } from '../bus/types';

interface Pending {
  id: string;
  json: Uint8Array;
}

export class LivePublisher {
  private pending = new Map<string, Pending[]>();
  private scheduled = false;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private lastFlush = Number.NEGATIVE_INFINITY;
  /** Set at shutdown: what comes after goes out at the end of its turn, before the bus closes. */
  private closing = false;

  constructor(
    private readonly bus: Bus,
    private readonly flushMs = 0,
  ) {}

  add(endpointId: string, id: string, json: Uint8Array): void {
    // Bus lost: nothing is queued for it (the NATS client would buffer every record in memory
    // until it reconnects). Streams were ended and catch up from the store.
    if (!this.bus.connected) return;
    const list = this.pending.get(endpointId);
    if (list === undefined) this.pending.set(endpointId, [{ id, json }]);
    else list.push({ id, json });
    if (this.scheduled) return;
    this.scheduled = true;
    const wait = this.closing ? 0 : this.lastFlush + this.flushMs - performance.now();
    if (wait <= 0) queueMicrotask(() => this.flush());
    else this.timer = setTimeout(() => this.flush(), wait);
  }

  /**
   * Sends what is pending now. At shutdown (`closing`), also stops holding later captures: a
   * capture log drain that outran its deadline may still make some durable before the bus closes.
   */
  flush(closing = false): void {
    if (closing) this.closing = true;
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
    this.scheduled = false;
    if (this.pending.size === 0) return;
    // Lost meanwhile: held records are dropped, as add() drops them (streams catch up from the store).
    if (!this.bus.connected) {
      this.pending = new Map();
      return;
    }
    this.lastFlush = performance.now();
    const pending = this.pending;
    this.pending = new Map();
    for (const [endpointId, records] of pending) {
      const subject = subjects.capture(endpointId);
      // Embedded, nobody streaming this endpoint: the in-process bus would drop the message, so
      // it is not built (~0.5 µs of the receiver's ~20 per capture, docs/benchmarks.md).
      if (!this.bus.hasListeners(subject)) continue;
      for (const message of encodeBatches(records, this.bus.maxPayload)) {
        try {
          this.bus.publish(subject, message);
        } catch {
          // The captures are durable and acknowledged; a stream that misses them catches up
          // from the store on reconnect. The bus reports its own connection trouble.
        }
      }
    }
  }
}
