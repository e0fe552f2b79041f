/**
 * Ends a node's open streams of an endpoint once it is deleted, on whichever node the delete ran
 * (endpoint or account deletion, the expiry sweep), or once it reaches its expiresAt. Every path
 * that deletes or changes an endpoint already announces its slug on `config.endpoint` for the
 * receivers' endpoint caches; a node with open streams of that slug re-reads the row once, however many
 * streams it has, and ends them all if it is gone. Expiry needs no read: a timer per stream, armed
 * from the row's expiresAt (sandbox endpoints, and accounts' endpoints made with `expiresIn`) and
 * re-armed when a re-read finds it changed (a claim clears it; a PATCH of `expiresIn` moves or clears it).
 *
 * The bus is at-most-once: an announcement lost on the wire would leave the streams open until
 * STREAM_MAX_MS. The node's periodic re-check (./recheck.ts) reads the slugs of all its open
 * streams every STREAM_RECHECK_MS in the same query as their credentials, and ends those whose
 * endpoint is gone the same way.
 *
 * @example
 * const watch = ctx.streams.endpoints.watch(slug); // before the permission read
 * const ep = await getReadableEndpoint(ctx, user, slug);
 * watch.attach(ep, (reason) => conn.end(reason)); // once the stream is subscribed
 * conn.onEnd(watch.cancel);
 */
import { decodeJson, subjects } from '../../bus/types';
import type { Clock } from '../../clock';
import { log } from '../../log';
import { findEndpointBySlug } from '../../stores/state/endpoints';
import { isExpired } from '../endpoints';
import type { EndpointRow } from '../../stores/state/schema';
import type { BaseCtx } from '../context';
import type { FinalReason } from './frames';
import type { StreamStates } from '../../stores/state/stream-states';
import type { RecheckSource, RecheckTargets, StreamRecheck } from './recheck';
import { StreamWatches } from './watches';
import { errorMessage } from '../../unknown';

type Lifetime = Pick<EndpointRow, 'id' | 'expiresAt'>;

export interface EndpointWatch {
  /**
   * The stream of `endpoint` is open: arms its expiry, and re-reads the row if a change was
   * announced since the watch began. `end` is called at most once.
   */
  attach(endpoint: Lifetime, end: (reason: FinalReason) => void): void;
  /** Stops watching: the stream ended, or never opened. Safe to call more than once. */
  cancel(): void;
}

/** setTimeout's longest delay; a later expiry re-arms when the timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

class Watch implements EndpointWatch {
  private endpoint: Lifetime | null = null;
  private end: ((reason: FinalReason) => void) | null = null;
  private timer: ReturnType<typeof setTimeout> | null = null;
  private done = false;
  /** A change may have been announced before `attach`: the row read at open may be stale. */
  dirty = false;
  /** Unregisters the watch from the guard. */
  remove: () => void = () => {};

  constructor(
    readonly slug: string,
    private readonly reread: () => void,
    private readonly clock: Clock,
    private readonly onAttach: (w: Watch) => void,
  ) {}

  get attached(): boolean {
    return this.endpoint !== null && !this.done;
  }

  attach(endpoint: Lifetime, end: (reason: FinalReason) => void): void {
    if (this.done) return;
    this.endpoint = { id: endpoint.id, expiresAt: endpoint.expiresAt };
    this.end = end;
    this.arm();
    this.onAttach(this);
    if (this.dirty) this.reread();
  }

  /** The endpoint's row as just read (null: no row has the slug any more). */
  apply(row: Lifetime | null): void {
    const known = this.endpoint;
    if (known === null || this.done) return;
    // A slug is never reused in practice; a different id is a different endpoint all the same.
    if (row === null || row.id !== known.id) this.finish(isExpired(known, this.clock.now()) ? 'endpoint_expired' : 'endpoint_deleted');
    else if (row.expiresAt !== known.expiresAt) {
      known.expiresAt = row.expiresAt;
      this.arm();
    }
  }

  cancel = (): void => {
    if (this.done) return;
    this.done = true;
    this.disarm();
    this.remove();
  };

  private arm(): void {
    this.disarm();
    const at = this.endpoint?.expiresAt ?? null;
    if (at === null) return;
    this.timer = setTimeout(() => {
      this.timer = null;
      if (this.clock.now() >= at) this.finish('endpoint_expired');
      else this.arm();
    }, Math.min(Math.max(0, at - this.clock.now()), MAX_TIMER_MS));
  }

  private disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  private finish(reason: FinalReason): void {
    const end = this.end;
    this.cancel();
    end?.(reason);
  }
}

function slugsOf(data: Uint8Array): string[] {
  const { slug } = decodeJson<{ slug?: unknown }>(data);
  return typeof slug === 'string' ? [slug] : [];
}

export class EndpointStreamGuard implements RecheckSource {
  private readonly watches: StreamWatches<Watch>;
  /** Slugs being re-read, each with whether another announcement came in meanwhile. */
  private readonly reading = new Map<string, boolean>();
  /** Every attached watch: what the periodic re-check reads. */
  private readonly open = new Set<Watch>();

  constructor(
    private readonly ctx: Pick<BaseCtx, 'db' | 'bus' | 'clock'>,
    private readonly recheck: StreamRecheck,
  ) {
    recheck.add(this);
    this.watches = new StreamWatches<Watch>(ctx.bus, subjects.endpointChanged, slugsOf, (slug, set) => {
      let attached = false;
      for (const w of set) {
        if (w.attached) attached = true;
        else w.dirty = true;
      }
      if (attached) void this.reread(slug);
    });
  }

  /**
   * Starts watching the endpoint behind `slug` for one stream. Call it before the permission read:
   * a deletion committed after that read is then announced to a registered watch.
   */
  watch(slug: string): EndpointWatch {
    let release: (() => void) | null = null;
    const w = new Watch(slug, () => void this.reread(slug), this.ctx.clock, (attached) => {
      this.open.add(attached);
      release = this.recheck.hold();
    });
    const unregister = this.watches.add(slug, w);
    w.remove = () => {
      unregister();
      this.open.delete(w);
      release?.();
    };
    // Until the bus has confirmed the subscription, an announcement may pass this node unheard.
    w.dirty = !this.watches.listening;
    return w;
  }

  /** The periodic re-check (./recheck.ts): the slugs of every attached stream. */
  collect(t: RecheckTargets): void {
    for (const w of this.open) t.slugs.add(w.slug);
  }

  /**
   * Ends the streams whose endpoint is no longer there, as an announced deletion would (its
   * announcement may have been lost); follows an expiry that changed.
   */
  apply(states: StreamStates): void {
    for (const w of [...this.open]) if (w.attached) w.apply(states.endpoints.get(w.slug) ?? null);
  }

  /** Shutdown: drops the bus subscription. */
  close(): void {
    this.watches.close();
    this.open.clear();
  }

  /** One read per slug at a time, and one more after it when announcements came in meanwhile. */
  private async reread(slug: string): Promise<void> {
    if (this.reading.has(slug)) {
      this.reading.set(slug, true);
      return;
    }
    try {
      do {
        this.reading.set(slug, false);
        const row = await findEndpointBySlug(this.ctx.db, slug);
        for (const w of [...this.watches.get(slug)]) if (w.attached) w.apply(row);
      } while (this.reading.get(slug) === true);
    } catch (e) {
      // The streams stay open; the next announcement or STREAM_MAX_MS ends them.
      log.warn('could not re-read a streamed endpoint', { slug, error: errorMessage(e) });
    } finally {
      this.reading.delete(slug);
    }
  }
}
