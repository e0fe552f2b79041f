/**
 * Closes live streams whose viewer reads an endpoint only through a team, the moment that access
 * ends (leave, removal, unshare, team deletion, lapsed subscription), on whichever node holds the
 * stream. Every read path asks Postgres per call; a stream is one long read, so it is re-asked
 * whenever a team access change is announced on the bus for its endpoint, and, should that
 * announcement be lost, at the node's periodic re-check (./recheck.ts: every STREAM_RECHECK_MS,
 * the same one query as the streams' credentials and endpoints).
 *
 * @example
 * // after getReadableEndpoint succeeded for a viewer who is not the owner:
 * conn.onEnd(ctx.streams.teams.watch({ endpointId: ep.id, user, slug }, () => conn.end('access_revoked')));
 */
import { AppError } from '../../errors';
import { log } from '../../log';
import type { UserRow } from '../../stores/state/schema';
import type { BaseCtx } from '../context';
import { getReadableEndpoint } from '../visibility';
import { shareKey, type StreamStates } from '../../stores/state/stream-states';
import type { RecheckSource, RecheckTargets, StreamRecheck } from './recheck';
import { StreamWatches } from './watches';
import { decodeTeamAccess, TEAM_ACCESS_SUBJECT } from '../team-access';
import { errorMessage } from '../../unknown';

interface TeamWatch {
  endpointId: string;
  user: UserRow;
  slug: string;
  revoke: () => void;
}

export class TeamStreamGuard implements RecheckSource {
  private readonly watches: StreamWatches<TeamWatch>;
  /** Every open team viewer's stream: what the periodic re-check reads. */
  private readonly open = new Set<TeamWatch>();

  constructor(
    private readonly ctx: Pick<BaseCtx, 'db' | 'bus' | 'clock'>,
    private readonly recheck: StreamRecheck,
  ) {
    recheck.add(this);
    this.watches = new StreamWatches<TeamWatch>(
      ctx.bus,
      TEAM_ACCESS_SUBJECT,
      (data) => decodeTeamAccess(data).endpointIds,
      // Bus handlers run on the read path: only schedule the checks here.
      (_endpointId, set) => {
        for (const w of [...set]) void this.check(w);
      },
    );
  }

  /**
   * Registers an open stream of `endpointId` for a viewer reading it through a team; `revoke` is
   * called once their access is gone. Returns the function that unregisters it (call on stream end).
   */
  watch(target: { endpointId: string; user: UserRow; slug: string }, revoke: () => void): () => void {
    let revoked = false;
    const w: TeamWatch = {
      endpointId: target.endpointId,
      user: target.user,
      slug: target.slug,
      revoke: () => {
        if (revoked) return;
        revoked = true;
        revoke();
      },
    };
    const unregister = this.watches.add(target.endpointId, w);
    this.open.add(w);
    const release = this.recheck.hold();
    // Access may have ended between the opening check and this registration.
    void this.check(w);
    return () => {
      unregister();
      this.open.delete(w);
      release();
    };
  }

  /** The periodic re-check (./recheck.ts): every team viewer's endpoint and account. */
  collect(t: RecheckTargets): void {
    for (const w of this.open) t.shares.set(shareKey(w.endpointId, w.user.id), { endpointId: w.endpointId, userId: w.user.id });
  }

  /** A viewer no longer reading through an active team (its announcement lost) is read again, then ended. */
  apply(states: StreamStates): void {
    for (const w of [...this.open]) if (!states.shares.has(shareKey(w.endpointId, w.user.id))) void this.check(w);
  }

  /** Shutdown: drops the bus subscription. */
  close(): void {
    this.watches.close();
    this.open.clear();
  }

  private async check(w: TeamWatch): Promise<void> {
    try {
      await getReadableEndpoint(this.ctx, w.user, w.slug);
    } catch (e) {
      if (e instanceof AppError && e.code === 'not_found') w.revoke();
      else log.warn('could not re-check team stream access', { error: errorMessage(e) });
    }
  }
}
