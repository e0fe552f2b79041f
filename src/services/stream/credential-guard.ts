/**
 * Ends a node's open streams whose credential — the API key or browser session that opened them —
 * is revoked (key deleted or revoked, log-out, sessions ended, account deleted), on whichever node
 * the revocation ran, with a final `event: end` (`credential_revoked`). Every revoking write
 * announces the accounts concerned on the bus after it commits (../credential-revocation.ts); a
 * node re-checks in Postgres the credential of each of its streams of those accounts and ends the
 * streams whose credential is gone, so another key of the same account streams on.
 *
 * The credential was checked when the request came in, before the stream was registered: a
 * revocation committed in between is announced to nobody here. So every stream re-checks once as
 * it attaches, after the bus has confirmed the subscription.
 *
 * @example
 * const watch = ctx.streams.credentials.watch(user.id, credential); // before the stream subscribes
 * watch.attach(() => conn.end('credential_revoked')); // once it is subscribed
 * conn.onEnd(watch.cancel);
 */
import { log } from '../../log';
import * as accounts from '../../stores/state/accounts';
import { errorMessage } from '../../unknown';
import type { BaseCtx, Principal } from '../context';
import { CREDENTIALS_REVOKED_SUBJECT, decodeRevoked } from '../credential-revocation';
import { StreamWatches } from './watches';

/** What opened a stream: an account's API key (by id) or a browser session (by its token's hash). */
export type StreamCredential = { kind: 'key'; keyId: string } | { kind: 'session'; tokenHash: string };

/** The credential of a principal that may stream (an account's key or session); null otherwise. */
export function streamCredentialOf(p: Principal): StreamCredential | null {
  if (p.kind === 'session') return { kind: 'session', tokenHash: p.tokenHash };
  if (p.kind === 'key') return { kind: 'key', keyId: p.key.id };
  return null;
}

export interface CredentialWatch {
  /**
   * The stream is subscribed: re-checks the credential once, then on every announcement. `end` is
   * called at most once, with whether the whole account is gone (its own endpoints went with it).
   */
  attach(end: (accountDeleted: boolean) => void): void;
  /** Stops watching: the stream ended, or never opened. Safe to call more than once. */
  cancel(): void;
}

class Watch implements CredentialWatch {
  end: ((accountDeleted: boolean) => void) | null = null;
  done = false;
  /** A check is running; `again`: an announcement came in meanwhile, so check once more after it. */
  checking = false;
  again = false;
  remove: () => void = () => {};

  constructor(
    readonly userId: string,
    readonly credential: StreamCredential,
    private readonly onAttach: (w: Watch) => void,
  ) {}

  get attached(): boolean {
    return this.end !== null && !this.done;
  }

  attach(end: (accountDeleted: boolean) => void): void {
    if (this.done) return;
    this.end = end;
    this.onAttach(this);
  }

  cancel = (): void => {
    if (this.done) return;
    this.done = true;
    this.remove();
  };

  finish(accountDeleted: boolean): void {
    const end = this.end;
    this.cancel();
    end?.(accountDeleted);
  }
}

export class CredentialStreamGuard {
  private readonly watches: StreamWatches<Watch>;

  constructor(private readonly ctx: Pick<BaseCtx, 'db' | 'bus' | 'clock'>) {
    this.watches = new StreamWatches<Watch>(ctx.bus, CREDENTIALS_REVOKED_SUBJECT, decodeRevoked, (_userId, set) => {
      // Bus handlers run on the read path: only schedule the checks. A watch not yet attached
      // checks as it attaches.
      for (const w of [...set]) if (w.attached) void this.check(w);
    });
  }

  /** Starts watching the credential of one stream of `userId`'s. */
  watch(userId: string, credential: StreamCredential): CredentialWatch {
    const w = new Watch(userId, credential, (attached) => {
      // Read only once the subscription is confirmed: a revocation committed after this read is
      // announced to it, one committed before is seen by it.
      void this.watches.settled().then(() => this.check(attached));
    });
    w.remove = this.watches.add(userId, w);
    return w;
  }

  /** Shutdown: drops the bus subscription. */
  close(): void {
    this.watches.close();
  }

  /** One read per stream at a time, and one more after it when announcements came in meanwhile. */
  private async check(w: Watch): Promise<void> {
    if (w.checking) {
      w.again = true;
      return;
    }
    w.checking = true;
    try {
      do {
        w.again = false;
        if (!w.attached) return;
        if (!(await this.isLive(w))) {
          // Rare (a revocation), so one more read: a deleted account's streams of its own
          // endpoints end as those endpoints do, whichever guard hears first.
          const accountDeleted = (await accounts.findUserById(this.ctx.db, w.userId)) === null;
          if (w.attached) w.finish(accountDeleted);
          return;
        }
      } while (w.again);
    } catch (e) {
      // The stream stays open; the next announcement or STREAM_MAX_MS ends it.
      log.warn('could not re-check a stream credential', { error: errorMessage(e) });
    } finally {
      w.checking = false;
    }
  }

  private async isLive(w: Watch): Promise<boolean> {
    const c = w.credential;
    if (c.kind === 'key') return accounts.isLiveUserKey(this.ctx.db, c.keyId, w.userId);
    const user = await accounts.findSessionUser(this.ctx.db, c.tokenHash, this.ctx.clock.now());
    return user !== null && user.id === w.userId;
  }
}
