/**
 * A node's open streams registered under keys (slugs, endpoint ids), and the bus subject that
 * announces which keys changed. The guards that end streams when their endpoint goes away or
 * their viewer's access ends build on it. The subscription is made at the first registration, so
 * a node that never streams carries none, and then kept until `close` (shutdown): re-subscribing
 * on NATS would leave a moment in which an announcement is not heard.
 *
 * @example
 * const watches = new StreamWatches<Watch>(bus, subjects.endpointChanged, slugsOf, (slug, set) => recheck(slug, set));
 * const remove = watches.add(slug, watch); // call remove() when the stream ends
 */
import type { Bus } from '../../bus/types';

export class StreamWatches<W> {
  private readonly byKey = new Map<string, Set<W>>();
  private unsubscribe: (() => void) | null = null;
  private closed = false;
  private heard = false;
  /** Settles (never rejects) once the bus has answered the subscription's flush, either way. */
  private answered: Promise<void> = Promise.resolve();

  /**
   * @param keysOf the keys a message names; a message it throws on is ignored.
   * @param onAnnounce runs on the bus read path, once per watched key named: it must only schedule work.
   */
  constructor(
    private readonly bus: Pick<Bus, 'subscribe' | 'flush'>,
    private readonly subject: string,
    private readonly keysOf: (data: Uint8Array) => string[],
    private readonly onAnnounce: (key: string, watches: ReadonlySet<W>) => void,
  ) {}

  /**
   * True once the bus has confirmed the subscription: from then on every announcement reaches this
   * node. A watch added before may have missed one and should re-check once.
   */
  get listening(): boolean {
    return this.heard;
  }

  /**
   * Settles once the bus has answered the subscription made by the first `add` (at once before
   * any): a read made after it sees every write whose announcement this node could have missed.
   */
  settled(): Promise<void> {
    return this.answered;
  }

  /** Registers `w` under `key`; returns the function that removes it again. */
  add(key: string, w: W): () => void {
    this.subscribe();
    let set = this.byKey.get(key);
    if (!set) {
      set = new Set();
      this.byKey.set(key, set);
    }
    set.add(w);
    return () => {
      const s = this.byKey.get(key);
      if (!s?.delete(w)) return;
      if (s.size === 0) this.byKey.delete(key);
    };
  }

  /** The watches under `key` now. */
  get(key: string): ReadonlySet<W> {
    return this.byKey.get(key) ?? new Set();
  }

  /** Drops the bus subscription and every watch; later registrations are not heard. */
  close(): void {
    this.closed = true;
    this.unsubscribe?.();
    this.unsubscribe = null;
    this.byKey.clear();
  }

  private subscribe(): void {
    if (this.unsubscribe || this.closed) return;
    this.unsubscribe = this.bus.subscribe(this.subject, (data) => {
      let keys: string[];
      try {
        keys = this.keysOf(data);
      } catch {
        return;
      }
      for (const key of keys) {
        const set = this.byKey.get(key);
        if (set) this.onAnnounce(key, set);
      }
    });
    // NATS sends SUB asynchronously; a flush round-trip proves the server has it. A failed flush
    // leaves `listening` false, so watches keep re-checking once each.
    this.answered = this.bus.flush().then(
      () => {
        this.heard = true;
      },
      () => {},
    );
  }
}
