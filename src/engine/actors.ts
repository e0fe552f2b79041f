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
}

export class SlugActors {
  private readonly actors = new Map<string, Actor>();
  private readonly maxAgeMs: number;
  private readonly missingTtlMs: number;
  private readonly maxActors: number;

  constructor(private readonly opts: ActorOptions) {
    this.maxAgeMs = opts.maxAgeMs ?? 60_000;
    this.missingTtlMs = opts.missingTtlMs ?? 1_000;
    this.maxActors = opts.maxActors ?? 100_000;
  }

  /** The snapshot, synchronously when warm (the common case), else after one load. */
  get(slug: string): EndpointSnapshot | null | Promise<EndpointSnapshot | null> {
    const now = Date.now();
    const actor = this.actors.get(slug);
    if (actor) {
      if (actor.loading) return actor.loading;
      const ttl = actor.snapshot ? this.maxAgeMs : this.missingTtlMs;
      if (now - actor.loadedAt < ttl) return actor.snapshot;
    }
    return this.load(slug, actor);
  }

  /** Drops a slug's snapshot (config changed, endpoint created or deleted). */
  invalidate(slug: string): void {
    this.actors.delete(slug);
  }

  private load(slug: string, existing: Actor | undefined): Promise<EndpointSnapshot | null> {
    const actor: Actor = existing ?? { snapshot: null, loadedAt: 0, loading: null };
    const loading = this.opts.load(slug).then(
      (snapshot) => {
        // An invalidation during the load wins: only store if this load is still the current one.
        if (this.actors.get(slug) === actor && actor.loading === loading) {
          actor.snapshot = snapshot;
          actor.loadedAt = Date.now();
          actor.loading = null;
        }
        return snapshot;
      },
      (err: unknown) => {
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
