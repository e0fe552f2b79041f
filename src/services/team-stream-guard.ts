/**
 * Closes live streams whose viewer reads an endpoint only through a team, the moment that access
 * ends (leave, removal, unshare, team deletion, lapsed subscription), on whichever node holds the
 * stream. Every read path asks Postgres per call; a stream is one long read, so it is re-asked
 * whenever a team access change is announced on the bus for its endpoint.
 *
 * @example
 * // after getReadableEndpoint succeeded for a viewer who is not the owner:
 * conn.onEnd(watchTeamAccess(ctx, { endpointId: ep.id, user, slug }, () => conn.end('error')));
 */
import { AppError } from '../errors';
import { log } from '../log';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { getReadableEndpoint } from './requests';
import { decodeTeamAccess, TEAM_ACCESS_SUBJECT } from './team-access';

interface Watch {
  user: UserRow;
  slug: string;
  revoke: () => void;
}

class TeamStreamGuard {
  private readonly byEndpoint = new Map<string, Set<Watch>>();
  private unsubscribe: (() => void) | null = null;

  constructor(private readonly ctx: Ctx) {}

  watch(endpointId: string, w: Watch): () => void {
    // Subscribed on first use, so nodes without team streams carry no subscription.
    this.unsubscribe ??= this.ctx.bus.subscribe(TEAM_ACCESS_SUBJECT, (data) => {
      // Bus handlers run on the read path: only schedule the checks here.
      const { endpointIds } = decodeTeamAccess(data);
      for (const id of endpointIds) void this.recheck(id);
    });
    let set = this.byEndpoint.get(endpointId);
    if (!set) {
      set = new Set();
      this.byEndpoint.set(endpointId, set);
    }
    set.add(w);
    // Access may have ended between the opening check and this registration.
    void this.check(w);
    return () => {
      const s = this.byEndpoint.get(endpointId);
      if (!s) return;
      s.delete(w);
      if (s.size === 0) this.byEndpoint.delete(endpointId);
    };
  }

  private async recheck(endpointId: string): Promise<void> {
    const set = this.byEndpoint.get(endpointId);
    if (!set) return;
    await Promise.all([...set].map((w) => this.check(w)));
  }

  private async check(w: Watch): Promise<void> {
    try {
      await getReadableEndpoint(this.ctx, w.user, w.slug);
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') w.revoke();
      else log.warn('could not re-check team stream access', { error: e instanceof Error ? e.message : String(e) });
    }
  }
}

const guards = new WeakMap<Ctx, TeamStreamGuard>();

/**
 * Registers an open stream of `endpointId` for a viewer reading it through a team; `revoke` is
 * called once their access is gone. Returns the function that unregisters it (call on stream end).
 */
export function watchTeamAccess(ctx: Ctx, target: { endpointId: string; user: UserRow; slug: string }, revoke: () => void): () => void {
  let guard = guards.get(ctx);
  if (!guard) {
    guard = new TeamStreamGuard(ctx);
    guards.set(ctx, guard);
  }
  let revoked = false;
  return guard.watch(target.endpointId, {
    user: target.user,
    slug: target.slug,
    revoke: () => {
      if (revoked) return;
      revoked = true;
      revoke();
    },
  });
}
