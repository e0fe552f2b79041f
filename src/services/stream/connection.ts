/**
 * One SSE client: a bounded queue in front of its socket. While the client catches up from the
 * capture store, live events are held aside (bounded) and merged in without duplicates; once
 * live, a client whose queue is over its bound is dropped. A dropped client reconnects with
 * Last-Event-ID and catches up from the store, so dropping loses nothing it cannot get back.
 *
 * The bound is in events (STREAM_CLIENT_BUFFER) and in bytes (STREAM_CLIENT_BUFFER_BYTES): one
 * capture's event can be megabytes (a 1 MiB body of control characters is 6 MiB of JSON), so
 * 1,000 of them queued for a client that does not read held gigabytes.
 */
import type { PageCursor } from '../../stores/captures/types';
import { BUS_LOST, END_FRAMES, isAfter, isFinalReason, PING, type EventFrame, type FinalReason } from './frames';

export type EndReason = 'client' | 'expired' | 'slow' | 'shutdown' | 'bus_lost' | 'error' | FinalReason;

/**
 * Ends that let queued events flush before the response closes. A revoked credential's stream
 * gets nothing new after the revocation is known, only what was queued before and its final frame.
 */
const isGraceful = (reason: EndReason): boolean => reason === 'expired' || reason === 'shutdown' || reason === 'bus_lost' || isFinalReason(reason);

export interface ConnectionOptions {
  /** Events queued for this client before it counts as too slow (STREAM_CLIENT_BUFFER). */
  buffer: number;
  /** Bytes queued for this client before it counts as too slow (STREAM_CLIENT_BUFFER_BYTES). */
  bufferBytes: number;
  /** The endpoint's clear watermark: captures received at or before it are hidden. */
  since: number;
  /** Hold live events aside until `goLive`: the client is catching up from the store. */
  holding: boolean;
  /**
   * Called once when the server ends the stream. Bun keeps a socket open while it still holds
   * bytes for a client that does not read, whether the stream was closed or errored; re-arming the
   * request's idle timeout (server.timeout) is what closes such a socket.
   */
  onServerEnd?: (reason: EndReason) => void;
}

/**
 * A queue bounded by events and by bytes at once, in whole units so that sums stay exact: the queue
 * holds `units`, and an event weighs the larger of its share of the event bound and of the byte
 * bound. So the queue is full before either bound is passed, and never while both are under
 * half (an event weighs at most the sum of its two shares). One event never weighs more than half,
 * less one event's share (room for a ping behind it): an event larger than the byte bound is still
 * sent, never a reason to drop a client that reads.
 */
class QueueWeights {
  readonly units: number;
  private readonly perEvent: number;
  private readonly perByte: number;

  constructor(events: number, bytes: number) {
    this.units = events * bytes;
    this.perEvent = bytes;
    this.perByte = events;
  }

  of(frame: Uint8Array): number {
    return Math.max(this.perEvent, Math.min(this.units / 2 - this.perEvent, frame.byteLength * this.perByte));
  }
}

export class SseConnection {
  readonly stream: ReadableStream<Uint8Array>;
  private controller: ReadableStreamDefaultController<Uint8Array> | null = null;
  private readonly weights: QueueWeights;
  private held: Map<string, EventFrame> | null;
  /** The weight of the held events (QueueWeights): holding stops at the queue's bound. */
  private heldUnits = 0;
  /**
   * Ids sent by catch-up that were not held, newest `buffer` of them: their live copy may still be
   * on its way (another node's bus delivery can lag its store insert) and must not be sent twice.
   */
  private replayed: Set<string> | null;
  private overflowed = false;
  private endReason: EndReason | null = null;
  private drained: (() => void) | null = null;
  private readonly endHandlers: ((reason: EndReason) => void)[] = [];

  constructor(private readonly opts: ConnectionOptions) {
    this.held = opts.holding ? new Map() : null;
    this.replayed = opts.holding ? new Set() : null;
    const weights = new QueueWeights(opts.buffer, opts.bufferBytes);
    this.weights = weights;
    this.stream = new ReadableStream<Uint8Array>(
      {
        start: (c) => {
          this.controller = c;
        },
        // Called when the queue has room again: wakes a catch-up waiting in `replay`.
        pull: () => this.wake(),
        cancel: () => this.end('client'),
      },
      // desiredSize = units − queued weight, so a negative desiredSize is the "too slow" signal.
      { highWaterMark: weights.units, size: (chunk) => (chunk === undefined ? 0 : weights.of(chunk)) },
    );
  }

  get isEnded(): boolean {
    return this.endReason !== null;
  }

  /** Runs `handler` once the stream ends (at once if it already has). */
  onEnd(handler: (reason: EndReason) => void): void {
    if (this.endReason === null) this.endHandlers.push(handler);
    else handler(this.endReason);
  }

  /** A live capture. Runs inline on the bus read path once per client: O(1), never throws. */
  deliver(frame: EventFrame): void {
    if (this.endReason !== null || frame.receivedAt <= this.opts.since) return;
    const held = this.held;
    if (held === null) {
      this.push(frame.bytes);
      return;
    }
    if (this.overflowed || this.replayed?.has(frame.id)) return;
    const weight = this.weights.of(frame.bytes);
    if (this.heldUnits + weight > this.weights.units) {
      // Too many (or too large) to hold while catching up: forget them; `restartHolding` makes
      // catch-up read them back from the store instead.
      held.clear();
      this.heldUnits = 0;
      this.overflowed = true;
      return;
    }
    held.set(frame.id, frame);
    this.heldUnits += weight;
  }

  ping(): void {
    this.push(PING);
  }

  /** Queues bytes; a client whose queue is past its bound is dropped. */
  push(bytes: Uint8Array): void {
    const c = this.controller;
    if (this.endReason !== null || c === null) return;
    try {
      c.enqueue(bytes);
    } catch {
      // The runtime closed the stream before telling us (client gone).
      this.end('client');
      return;
    }
    if ((c.desiredSize ?? 0) < 0) this.end('slow');
  }

  /**
   * Catch-up: sends a frame read from the store in place of its held live copy, then waits while
   * the queue is more than half full, so catch-up never outruns the client and pings still fit
   * (the next frame weighs half the queue at most, so it fits too).
   */
  async replay(frame: EventFrame): Promise<void> {
    const replayed = this.replayed;
    const heldCopy = this.held?.get(frame.id);
    if (heldCopy !== undefined) this.heldUnits -= this.weights.of(heldCopy.bytes);
    if (this.held?.delete(frame.id) === false && replayed !== null) {
      replayed.add(frame.id);
      // Catch-up runs oldest first, so the ids kept are the newest: the only ones still live.
      if (replayed.size > this.opts.buffer) {
        const oldest = replayed.values().next();
        if (!oldest.done) replayed.delete(oldest.value);
      }
    }
    this.push(frame.bytes);
    const half = this.weights.units / 2;
    for (;;) {
      const c = this.controller;
      if (this.endReason !== null || c === null || (c.desiredSize ?? 0) >= half) return;
      // Woken by each pull (the client took something) and by the end.
      await new Promise<void>((resolve) => {
        this.drained = resolve;
      });
    }
  }

  /**
   * The live events held so far, oldest first, handed over to be sent as catch-up frames (waiting
   * for room); holding goes on for the ones arriving meanwhile.
   */
  takeHeld(): EventFrame[] {
    const held = this.held;
    if (held === null || held.size === 0) return [];
    this.held = new Map();
    this.heldUnits = 0;
    return [...held.values()];
  }

  /**
   * True when live events were forgotten while holding (too many): holding starts afresh and the
   * caller must read the store again once the forgotten ones have reached it.
   */
  restartHolding(): boolean {
    if (!this.overflowed || this.endReason !== null) return false;
    this.overflowed = false;
    this.held = new Map();
    this.heldUnits = 0;
    return true;
  }

  /**
   * Catch-up is over: sends the held live events the client has not had, in arrival order. After
   * a store catch-up those are the ones after `after` in store order; after a resume from the
   * node's recent frames (`after` null), every one still held.
   */
  goLive(after: PageCursor | null): void {
    const held = this.held;
    this.held = null;
    this.replayed = null;
    if (held === null) return;
    for (const f of held.values()) if (after === null || isAfter(f, after)) this.push(f.bytes);
  }

  end(reason: EndReason): void {
    if (this.endReason !== null) return;
    this.endReason = reason;
    this.held = null;
    this.replayed = null;
    this.wake();
    try {
      // The client learns why, after what is already queued (past the queue's bound if need be).
      if (isFinalReason(reason)) this.controller?.enqueue(END_FRAMES[reason]);
      else if (reason === 'bus_lost') this.controller?.enqueue(BUS_LOST);
      // A graceful end lets queued events flush; otherwise the queue is discarded. error() gets
      // undefined because Bun prints any Error it is given to stderr.
      if (isGraceful(reason)) this.controller?.close();
      else this.controller?.error(undefined);
    } catch {
      // already closed or cancelled by the runtime
    }
    if (reason !== 'client') this.opts.onServerEnd?.(reason);
    for (const h of this.endHandlers.splice(0)) h(reason);
  }

  private wake(): void {
    const resolve = this.drained;
    this.drained = null;
    resolve?.();
  }
}
