/**
 * The receiver's endpoint snapshot cache, one entry per slug per node, in memory: an entry holds the
 * endpoint's snapshot (owner, mock response, signing, notification URL and key, expiry) so the capture path never reads
 * Postgres once the slug is warm. A config change anywhere is announced on the bus
 * (config.endpoint) and every node's cache drops that slug's entry.
 *
 * The cache is bounded by entries (ENDPOINT_CACHE_MAX) and by estimated bytes
 * (ENDPOINT_CACHE_MAX_BYTES), and evicts by CLOCK, an approximation of least
 * recently used: a hit only sets a flag on the entry (no map reordering on the warm path), and
 * the eviction sweep, walking from the oldest insertion, gives a flagged entry a second chance
 * (flag cleared, moved to the back) and drops the first unflagged one. The sweep looks at
 * EVICT_SCAN entries at most, so a cold slug's insertion costs O(1) even when everything is hot.
 *
 * Cold slugs are loaded in batches: every slug asked for in one turn of the event loop (and those
 * arriving while MAX_LOADS_IN_FLIGHT batches are already out) goes to the state store in one
 * query, and a slug already being loaded is waited for, not loaded again. A flood of distinct
 * slugs therefore costs a few queries per round trip to Postgres, not one per capture.
 *
 * A snapshot is re-read in the background, while it keeps answering, once it is older than a
 * random age between 80% and all of `maxAgeMs` (stale while revalidate); only one loaded before
 * `revalidateAll` waits for its re-read. The age is a backstop for an invalidation that never
 * came, so it is long (ENDPOINT_CACHE_MAX_AGE_MS, 5 minutes): every re-read is receiver-thread
 * CPU, and at the earlier 60 s, 100,000 endpoints meant ~1,700 re-reads a second. It is random so
 * that snapshots loaded together (a node's first minutes, a flood of new slugs) do not stay in step
 * and go stale together, cycle after cycle, as a storm of re-reads (docs/benchmarks.md, tenants).
 */
import type { MockResponse } from '../stores/state/schema';
import { systemClock, type Clock } from '../clock';
import type { SigningConfig } from './signing';

export interface EndpointSnapshot {
  id: string;
  slug: string;
  userId: string | null;
  ownerKeyId: string | null;
  mockResponse: MockResponse | null;
  notificationUrl: string | null;
  signing: SigningConfig | null;
  /**
   * The HMAC key outgoing notifications are signed with (the endpoint's `whsec_` notification
   * secret, decoded once here), or null: unsigned. Read by the notifier at each attempt, never
   * by the capture path.
   */
  notificationKey: Uint8Array | null;
  expiresAt: number | null;
}

interface Entry {
  snapshot: EndpointSnapshot | null;
  loadedAt: number;
  /** When the snapshot goes stale: loadedAt plus a random age between 80% and all of maxAgeMs. */
  staleAt: number;
  /** After a failed re-read: the kept snapshot is served until then without trying again. */
  retryAt: number;
  loading: Promise<EndpointSnapshot | null> | null;
  /** Set by every hit; the eviction sweep clears it instead of evicting (CLOCK's reference bit). */
  used: boolean;
  /** Estimated bytes this entry holds (counted in `bytes` while it is in the map). */
  bytes: number;
}

export interface EndpointCacheOptions {
  /** Loads the snapshots of many slugs from the state store in one query; absent = no such endpoint. */
  loadMany: (slugs: readonly string[]) => Promise<Map<string, EndpointSnapshot>>;
  /**
   * A known slug is re-read at least this often (ENDPOINT_CACHE_MAX_AGE_MS), in case an
   * invalidation was missed; each snapshot after a random age between 80% and all of it.
   */
  maxAgeMs?: number;
  /** An unknown slug is remembered this long, so a 404 flood does not reach Postgres. */
  missingTtlMs?: number;
  /** Most entries kept (ENDPOINT_CACHE_MAX); the least recently used (CLOCK) are dropped first. */
  maxEntries?: number;
  /**
   * Most estimated bytes kept (ENDPOINT_CACHE_MAX_BYTES). A mock response may be megabytes and an
   * account may own any number of endpoints, so a count alone does not bound memory: one account
   * could fill every receiver with its mocks by sending each slug one request.
   */
  maxBytes?: number;
  /**
   * Memory the unknown slugs may hold, estimated per entry; the oldest are forgotten first. Only
   * well-formed slugs get here (the engine answers 404 to the rest without looking).
   */
  maxMissingBytes?: number;
  /** Most slugs in one load query. */
  maxBatch?: number;
  /** Where the time is read (the service's clock; the system clock if none). */
  clock?: Clock;
}

export interface EndpointCacheStats {
  /** Entries held (known endpoints, and loads under way). */
  entries: number;
  /** Their estimated memory. */
  bytes: number;
  /** ENDPOINT_CACHE_MAX. */
  max: number;
  /** ENDPOINT_CACHE_MAX_BYTES: the budget `bytes` is kept within (one snapshot larger than it is still served). */
  maxBytes: number;
  /** Load queries sent to the state store since start (one per batch). */
  queries: number;
  /** Slugs those queries asked for. */
  slugsLoaded: number;
  /** Entries dropped to stay within `max` and `maxBytes`. */
  evictions: number;
}

/** The share of maxAgeMs by which a snapshot's age limit is shortened at random (see above). */
const AGE_JITTER = 0.2;

/** How soon a snapshot kept after a failed re-read is tried again. */
const STALE_RETRY_MS = 5_000;

/** Estimated bytes of one remembered unknown slug besides its characters (map entry, number). */
const MISSING_ENTRY_BYTES = 96;
/**
 * Estimated bytes of one entry besides its strings and JSON: the map slot, the entry and the
 * snapshot objects. bench/tenants.ts compares the estimate with the heap it measures.
 */
const ENTRY_BYTES = 320;
/** Entries the eviction sweep examines at most before it drops one regardless of its flag. */
const EVICT_SCAN = 32;
/** Batches out at once; later slugs wait and go together in the next one. */
const MAX_LOADS_IN_FLIGHT = 2;

interface Waiter {
  resolve: (s: EndpointSnapshot | null) => void;
  reject: (err: unknown) => void;
  promise: Promise<EndpointSnapshot | null>;
}

export class EndpointCache {
  /** Known endpoints and loads under way; insertion order is the CLOCK's hand order. */
  private readonly entries = new Map<string, Entry>();
  /** Slugs found not to exist, with when (insertion order is age order). */
  private readonly missing = new Map<string, number>();
  private missingBytes = 0;
  private entryBytes = 0;
  /** Snapshots loaded at or before this are re-read on next use (revalidateAll). */
  private validAfter = 0;
  /** Slugs waiting for the next batch. */
  private readonly pending = new Map<string, Waiter>();
  private flushScheduled = false;
  private inFlight = 0;
  private queries = 0;
  private slugsLoaded = 0;
  private evictions = 0;
  private readonly maxAgeMs: number;
  private readonly missingTtlMs: number;
  private readonly maxEntries: number;
  private readonly maxBytes: number;
  private readonly maxMissingBytes: number;
  private readonly maxBatch: number;
  private readonly clock: Clock;

  constructor(private readonly opts: EndpointCacheOptions) {
    this.clock = opts.clock ?? systemClock;
    this.maxAgeMs = opts.maxAgeMs ?? 300_000;
    this.missingTtlMs = opts.missingTtlMs ?? 1_000;
    this.maxEntries = Math.max(1, opts.maxEntries ?? 100_000);
    this.maxBytes = Math.max(1, opts.maxBytes ?? 256 * 1024 * 1024);
    this.maxMissingBytes = opts.maxMissingBytes ?? 4 * 1024 * 1024;
    this.maxBatch = Math.max(1, opts.maxBatch ?? 500);
  }

  /** The snapshot, synchronously when warm (the common case), else after one (batched) load. */
  get(slug: string): EndpointSnapshot | null | Promise<EndpointSnapshot | null> {
    const now = this.clock.now();
    const entry = this.entries.get(slug);
    if (entry) {
      entry.used = true;
      // Trusted: loaded since the last revalidateAll, so every invalidation since was applied to it.
      const trusted = entry.snapshot !== null && entry.loadedAt > this.validAfter;
      if (entry.loading) return trusted ? entry.snapshot : entry.loading;
      if ((trusted && now < entry.staleAt) || now < entry.retryAt) return entry.snapshot;
      // Past its age: re-read in the background and answer with the snapshot held meanwhile. The
      // age is a backstop for an invalidation that never came, and a few milliseconds more of it
      // change nothing; waiting instead put a Postgres round trip on every endpoint's capture
      // once per age (with a 60 s age, a quarter of all captures spread over 100,000 endpoints).
      // After revalidateAll (the bus was lost, invalidations may be missing) the re-read is waited for.
      const loading = this.load(slug, entry);
      if (!trusted) return loading;
      loading.catch(() => {}); // a failed re-read keeps the snapshot (load's own handler)
      return entry.snapshot;
    }
    const missingAt = this.missing.get(slug);
    if (missingAt !== undefined) {
      if (now - missingAt < this.missingTtlMs) return null;
      this.forgetMissing(slug);
    }
    return this.load(slug, undefined);
  }

  /** Drops a slug's snapshot (config changed, endpoint created or deleted). */
  invalidate(slug: string): void {
    const entry = this.entries.get(slug);
    if (entry) this.drop(slug, entry);
    this.forgetMissing(slug);
  }

  /**
   * Every snapshot is re-read on its next use: invalidations may have been missed (the bus was
   * lost). Lazy, so a reconnect does not reload every endpoint at once.
   */
  revalidateAll(): void {
    this.validAfter = this.clock.now();
    this.missing.clear();
    this.missingBytes = 0;
  }

  /** Unknown slugs remembered now, and their estimated bytes (for tests and /healthz-style checks). */
  missingStats(): { entries: number; bytes: number } {
    return { entries: this.missing.size, bytes: this.missingBytes };
  }

  /** The cache's size, memory and load counters (/healthz `endpointCache`). */
  stats(): EndpointCacheStats {
    return {
      entries: this.entries.size,
      bytes: this.entryBytes,
      max: this.maxEntries,
      maxBytes: this.maxBytes,
      queries: this.queries,
      slugsLoaded: this.slugsLoaded,
      evictions: this.evictions,
    };
  }

  private rememberMissing(slug: string, at: number): void {
    this.forgetMissing(slug);
    this.missing.set(slug, at);
    this.missingBytes += missingEntryBytes(slug);
    for (const oldest of this.missing.keys()) {
      if (this.missingBytes <= this.maxMissingBytes) break;
      this.forgetMissing(oldest);
    }
  }

  private forgetMissing(slug: string): void {
    if (this.missing.delete(slug)) this.missingBytes -= missingEntryBytes(slug);
  }

  private drop(slug: string, entry: Entry): void {
    if (this.entries.get(slug) !== entry) return;
    this.entries.delete(slug);
    this.entryBytes -= entry.bytes;
  }

  private setBytes(entry: Entry, bytes: number): void {
    this.entryBytes += bytes - entry.bytes;
    entry.bytes = bytes;
  }

  /**
   * Makes room for one entry: CLOCK sweep from the hand (the map's oldest insertion). `keep` (the
   * snapshot just loaded, which its caller is about to serve) is passed over.
   */
  private evictOne(keep?: Entry): void {
    let scanned = 0;
    for (const [slug, entry] of this.entries) {
      if (entry === keep) continue;
      if (entry.used && ++scanned < EVICT_SCAN) {
        // Second chance: clear the flag and move behind the hand.
        entry.used = false;
        this.entries.delete(slug);
        this.entries.set(slug, entry);
        continue;
      }
      this.drop(slug, entry);
      this.evictions++;
      return;
    }
  }

  private load(slug: string, existing: Entry | undefined): Promise<EndpointSnapshot | null> {
    const entry: Entry = existing ?? { snapshot: null, loadedAt: 0, staleAt: 0, retryAt: 0, loading: null, used: false, bytes: 0 };
    const loading = this.enqueue(slug).then(
      (snapshot) => {
        // An invalidation (or eviction) during the load wins: only store if this load is still current.
        if (this.entries.get(slug) === entry && entry.loading === loading) {
          if (snapshot) {
            entry.snapshot = snapshot;
            entry.loadedAt = this.clock.now();
            entry.staleAt = entry.loadedAt + this.maxAgeMs * (1 - AGE_JITTER * Math.random());
            entry.retryAt = 0;
            entry.loading = null;
            this.setBytes(entry, snapshotBytes(snapshot));
            // Within the byte budget; a snapshot bigger than all of it is kept alone.
            while (this.entryBytes > this.maxBytes && this.entries.size > 1) this.evictOne(entry);
          } else {
            this.drop(slug, entry);
            this.rememberMissing(slug, this.clock.now());
          }
        }
        return snapshot;
      },
      (err: unknown) => {
        // A re-read that fails (Postgres down) keeps serving the snapshot it had, and tries again
        // in a while: captures to a known endpoint do not depend on Postgres being up.
        const stale = entry.snapshot;
        if (stale && this.entries.get(slug) === entry && entry.loading === loading) {
          entry.loading = null;
          entry.retryAt = this.clock.now() + STALE_RETRY_MS;
          return stale;
        }
        // A failed first load leaves nothing behind.
        if (!stale) this.drop(slug, entry);
        throw err;
      },
    );
    entry.loading = loading;
    if (!existing) {
      if (this.entries.size >= this.maxEntries) this.evictOne();
      this.entries.set(slug, entry);
      this.setBytes(entry, ENTRY_BYTES + 2 * slug.length);
    }
    return loading;
  }

  /** Joins the next batch (or the one not yet sent that already asks for this slug). */
  private enqueue(slug: string): Promise<EndpointSnapshot | null> {
    const waiting = this.pending.get(slug);
    if (waiting) return waiting.promise;
    const w = Promise.withResolvers<EndpointSnapshot | null>();
    this.pending.set(slug, { resolve: w.resolve, reject: w.reject, promise: w.promise });
    this.scheduleFlush();
    return w.promise;
  }

  private scheduleFlush(): void {
    if (this.flushScheduled || this.inFlight >= MAX_LOADS_IN_FLIGHT || this.pending.size === 0) return;
    this.flushScheduled = true;
    // After the I/O of this turn: every request parsed in it joins the same batch.
    setImmediate(() => {
      this.flushScheduled = false;
      this.flush();
    });
  }

  private flush(): void {
    while (this.inFlight < MAX_LOADS_IN_FLIGHT && this.pending.size > 0) {
      const batch = new Map<string, Waiter>();
      for (const [slug, w] of this.pending) {
        if (batch.size >= this.maxBatch) break;
        batch.set(slug, w);
      }
      for (const slug of batch.keys()) this.pending.delete(slug);
      this.inFlight++;
      this.queries++;
      this.slugsLoaded += batch.size;
      let query: Promise<Map<string, EndpointSnapshot>>;
      try {
        query = this.opts.loadMany([...batch.keys()]);
      } catch (err) {
        query = Promise.reject(err);
      }
      query.then(
        (found) => {
          for (const [slug, w] of batch) w.resolve(found.get(slug) ?? null);
        },
        (err: unknown) => {
          for (const w of batch.values()) w.reject(err);
        },
      ).finally(() => {
        this.inFlight--;
        this.scheduleFlush();
      });
      // A full batch with more waiting is sent at once; a partial one waits for the next turn.
      if (this.pending.size === 0 || batch.size < this.maxBatch) break;
    }
  }
}

function missingEntryBytes(slug: string): number {
  return MISSING_ENTRY_BYTES + 2 * slug.length;
}

/** Estimated bytes of a loaded entry: fixed overhead, strings at 2 bytes a character, JSON values by their text. */
function snapshotBytes(s: EndpointSnapshot): number {
  let chars = s.id.length + 2 * s.slug.length + (s.userId?.length ?? 0) + (s.ownerKeyId?.length ?? 0) + (s.notificationUrl?.length ?? 0);
  // Parsed JSON takes more than its text; twice the text's characters is the estimate's allowance.
  if (s.mockResponse) chars += 2 * JSON.stringify(s.mockResponse).length;
  if (s.signing) chars += 2 * JSON.stringify(s.signing).length;
  if (s.notificationKey) chars += s.notificationKey.byteLength;
  return ENTRY_BYTES + 2 * chars;
}
