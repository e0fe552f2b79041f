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
import { perCtx, StreamWatches } from './stream/watches';
import { decodeTeamAccess, TEAM_ACCESS_SUBJECT } from './team-access';
import { errorMessage } from '../unknown';

interface Watch {
  user: UserRow;
  slug: string;
  revoke: () => void;
}

class TeamStreamGuard {
  private readonly watches: StreamWatches<Watch>;

  constructor(private readonly ctx: Ctx) {
    this.watches = new StreamWatches<Watch>(
      ctx.bus,
      TEAM_ACCESS_SUBJECT,
      (data) => decodeTeamAccess(data).endpointIds,
      // Bus handlers run on the read path: only schedule the checks here.
      (_endpointId, set) => {
        for (const w of [...set]) void this.check(w);
      },
    );
  }

  watch(endpointId: string, w: Watch): () => void {
    const remove = this.watches.add(endpointId, w);
    // Access may have ended between the opening check and this registration.
    void this.check(w);
    return remove;
  }

  private async check(w: Watch): Promise<void> {
    try {
      await getReadableEndpoint(this.ctx, w.user, w.slug);
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') w.revoke();
      else log.warn('could not re-check team stream access', { error: errorMessage(e) });
    }
  }
}

const guardOf = perCtx((ctx) => new TeamStreamGuard(ctx));

/**
 * Registers an open stream of `endpointId` for a viewer reading it through a team; `revoke` is
 * called once their access is gone. Returns the function that unregisters it (call on stream end).
 */
export function watchTeamAccess(ctx: Ctx, target: { endpointId: string; user: UserRow; slug: string }, revoke: () => void): () => void {
  let revoked = false;
  return guardOf(ctx).watch(target.endpointId, {
    user: target.user,
    slug: target.slug,
    revoke: () => {
      if (revoked) return;
      revoked = true;
      revoke();
    },
  });
}
