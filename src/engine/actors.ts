/**
 * One actor per slug per node, in memory: it holds the endpoint's snapshot (owner, mock response,
 * signing, expiry) so the capture path never reads Postgres once the slug is warm. A config change
 * anywhere is announced on the bus (config.endpoint) and every node's actor drops its snapshot.
 */
import type { MockResponse } from '../stores/state/schema';
import type { SigningConfig } from './signing';

export interface EndpointSnapshot {
  id: string;
  slug: string;
  userId: string | null;
  ownerKeyId: string | null;
  mockResponse: MockResponse | null;
  notificationUrl: string | null;
  signing: SigningConfig | null;
  expiresAt: number | null;
}

interface Actor {
  snapshot: EndpointSnapshot | null;
  loadedAt: number;
  /** After a failed re-read: the kept snapshot is served until then without trying again. */
  retryAt: number;
  loading: Promise<EndpointSnapshot | null> | null;
}

export interface ActorOptions {
  /** Loads a slug's snapshot from the state store; null when no such endpoint. */
  load: (slug: string) => Promise<EndpointSnapshot | null>;
  /** A known slug is re-read at least this often, in case an invalidation was missed. */
  maxAgeMs?: number;
  /** An unknown slug is remembered this long, so a 404 flood does not reach Postgres. */
  missingTtlMs?: number;
  /** Most actors kept; the least recently created are dropped first. */
  maxActors?: number;
  /**
   * Memory the unknown slugs may hold, estimated per entry; the oldest are forgotten first. Only
   * well-formed slugs get here (the engine answers 404 to the rest without looking).
   */
  maxMissingBytes?: number;
}

/** How soon a snapshot kept after a failed re-read is tried again. */
const STALE_RETRY_MS = 5_000;

/** Estimated bytes of one remembered unknown slug besides its characters (map entry, number). */
const MISSING_ENTRY_BYTES = 96;

export class SlugActors {
  /** Known endpoints and loads under way. */
  private readonly actors = new Map<string, Actor>();
  /** Slugs found not to exist, with when (insertion order is age order). */
  private readonly missing = new Map<string, number>();
  private missingBytes = 0;
  /** Snapshots loaded at or before this are re-read on next use (revalidateAll). */
  private validAfter = 0;
  private readonly maxAgeMs: number;
  private readonly missingTtlMs: number;
  private readonly maxActors: number;
  private readonly maxMissingBytes: number;

  constructor(private readonly opts: ActorOptions) {
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
    this.missingTtlMs = opts.missingTtlMs ?? 1_000;
    this.maxActors = opts.maxActors ?? 100_000;
    this.maxMissingBytes = opts.maxMissingBytes ?? 4 * 1024 * 1024;
  }

  /** The snapshot, synchronously when warm (the common case), else after one load. */
  get(slug: string): EndpointSnapshot | null | Promise<EndpointSnapshot | null> {
    const now = Date.now();
    const actor = this.actors.get(slug);
    if (actor) {
      if (actor.loading) return actor.loading;
      if ((now - actor.loadedAt < this.maxAgeMs && actor.loadedAt > this.validAfter) || now < actor.retryAt) return actor.snapshot;
      return this.load(slug, actor);
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
    this.actors.delete(slug);
    this.forgetMissing(slug);
  }

  /**
   * Every snapshot is re-read on its next use: invalidations may have been missed (the bus was
   * lost). Lazy, so a reconnect does not reload every endpoint at once.
   */
  revalidateAll(): void {
    this.validAfter = Date.now();
    this.missing.clear();
    this.missingBytes = 0;
  }

  /** Unknown slugs remembered now, and their estimated bytes (for tests and /healthz-style checks). */
  missingStats(): { entries: number; bytes: number } {
    return { entries: this.missing.size, bytes: this.missingBytes };
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

  private load(slug: string, existing: Actor | undefined): Promise<EndpointSnapshot | null> {
    const actor: Actor = existing ?? { snapshot: null, loadedAt: 0, retryAt: 0, loading: null };
    const loading = this.opts.load(slug).then(
      (snapshot) => {
        // An invalidation during the load wins: only store if this load is still the current one.
        if (this.actors.get(slug) === actor && actor.loading === loading) {
          if (snapshot) {
            actor.snapshot = snapshot;
            actor.loadedAt = Date.now();
            actor.retryAt = 0;
            actor.loading = null;
          } else {
            this.actors.delete(slug);
            this.rememberMissing(slug, Date.now());
          }
        }
        return snapshot;
      },
      (err: unknown) => {
        // A re-read that fails (Postgres down) keeps serving the snapshot it had, and tries again
        // in a while: captures to a known endpoint do not depend on Postgres being up.
        const stale = actor.snapshot;
        if (stale && this.actors.get(slug) === actor && actor.loading === loading) {
          actor.loading = null;
          actor.retryAt = Date.now() + STALE_RETRY_MS;
          return stale;
        }
        if (this.actors.get(slug) === actor) this.actors.delete(slug);
        throw err;
      },
    );
    actor.loading = loading;
    if (!existing) {
      if (this.actors.size >= this.maxActors) {
        const oldest = this.actors.keys().next();
        if (!oldest.done) this.actors.delete(oldest.value);
      }
      this.actors.set(slug, actor);
    }
    return loading;
  }
}

function missingEntryBytes(slug: string): number {
  return MISSING_ENTRY_BYTES + 2 * slug.length;
}
