/**
 * The last frames a stream node delivered for one endpoint, in the order its clients got them.
 *
 * A client that reconnects with Last-Event-ID to the same node resumes from here, exactly: what
 * came after its last event on this node is what it missed. The capture store cannot say that
 * with several receivers: their captures reach the stream node a few milliseconds out of
 * `(receivedAt, id)` order, so "after Last-Event-ID in store order" both repeats events the client
 * had and skips ones it had not; and a capture acknowledged just before the reconnect may not
 * have reached the store yet.
 */
import type { EventFrame } from './frames';

export class RecentFrames {
  // Plain arrays from `start` on, compacted now and then: an idle endpoint's window costs next to
  // nothing, a busy one at most about twice `capacity` entries.
  private frames: EventFrame[] = [];
  private times: number[] = [];
  private start = 0;
  private bytes = 0;

  /**
   * Keeps at most `capacity` frames, `maxBytes` of them (large captures would otherwise pin
   * megabytes each), none older than `maxAgeMs`.
   */
  constructor(
    private readonly capacity: number,
    private readonly maxAgeMs: number,
    private readonly maxBytes = 4 * 1024 * 1024,
  ) {}

  /** Amortised O(1): runs on the bus read path. */
  push(frame: EventFrame, now: number): void {
    if (this.capacity === 0) return;
    this.frames.push(frame);
    this.times.push(now);
    this.bytes += frame.bytes.length;
    this.evict(now);
  }

  /**
   * The frames delivered after the one with this id, oldest first; null when that one is not
   * here (older than the window, or never delivered by this node): the caller reads the store.
   */
  after(id: string, now: number): EventFrame[] | null {
    this.evict(now);
    for (let i = this.frames.length - 1; i >= this.start; i--) {
      if (this.frames[i]?.id === id) return this.frames.slice(i + 1);
    }
    return null;
  }

  private evict(now: number): void {
    const oldest = now - this.maxAgeMs;
    while (
      this.start < this.frames.length &&
      (this.frames.length - this.start > this.capacity || this.bytes > this.maxBytes || (this.times[this.start] ?? 0) < oldest)
    ) {
      this.bytes -= this.frames[this.start]?.bytes.length ?? 0;
      this.start++;
    }
    if (this.start === this.frames.length) {
      this.frames = [];
      this.times = [];
      this.start = 0;
    } else if (this.start >= 64 && this.start * 2 >= this.frames.length) {
      this.frames = this.frames.slice(this.start);
      this.times = this.times.slice(this.start);
      this.start = 0;
    }
  }
}
