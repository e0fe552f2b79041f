/**
 * Ends a node's open streams whose credential — the API key or browser session that opened them —
 * is revoked (key deleted or revoked, log-out, sessions ended, account deleted), on whichever node
 * the revocation ran, with a final `event: end` (`credential_revoked`); and those whose session
 * reaches its expiry while streaming (`session_expired`). Every revoking write announces the
 * accounts concerned on the bus after it commits (../credential-revocation.ts); a node re-checks in
 * Postgres the credential of each of its streams of those accounts and ends the streams whose
 * credential is gone, so another key of the same account streams on.
 *
 * The credential was checked when the request came in, before the stream was registered: a
 * revocation committed in between is announced to nobody here. So every stream re-checks once as
 * it attaches, after the bus has confirmed the subscription.
 *
 * The bus is at-most-once, so an announcement can be lost (a publisher that had lost NATS drops
 * it). As a backstop the node's periodic re-check (./recheck.ts) reads the credentials of all its
 * open streams every STREAM_RECHECK_MS, in one query, and once more whenever its bus connection
 * comes back.
 *
 * A session's expiry is known at open: a stream that would still be open then gets a timer at it,
 * which re-reads the session before ending anything (a session whose expiry moved later is kept).
 *
 * @example
 * const watch = ctx.streams.credentials.watch(user.id, credential); // before the stream subscribes
 * watch.attach((loss) => conn.end(loss === 'expired' ? 'session_expired' : 'credential_revoked')); // once subscribed
 * conn.onEnd(watch.cancel);
 */
import { log } from '../../log';
import * as accounts from '../../stores/state/accounts';
import { errorMessage } from '../../unknown';
import type { BaseCtx, Principal } from '../context';
import { CREDENTIALS_REVOKED_SUBJECT, decodeRevoked } from '../credential-revocation';
import type { StreamStates } from '../../stores/state/stream-states';
import type { RecheckSource, RecheckTargets, StreamRecheck } from './recheck';
import { StreamWatches } from './watches';

/** What opened a stream: an account's API key (by id) or a browser session (by its token's hash, with its expiry). */
export type StreamCredential = { kind: 'key'; keyId: string } | { kind: 'session'; tokenHash: string; expiresAt: number };

/** The credential of a principal that may stream (an account's key or session); null otherwise. */
export function streamCredentialOf(p: Principal): StreamCredential | null {
  if (p.kind === 'session') return { kind: 'session', tokenHash: p.tokenHash, expiresAt: p.expiresAt };
  if (p.kind === 'key') return { kind: 'key', keyId: p.key.id };
  return null;
}

/**
 * Why a stream's credential is no longer good: revoked (deleted, logged out), its whole account
 * deleted (its own endpoints went in the same commit), or a session past its expiry.
 */
export type CredentialLoss = 'revoked' | 'account_deleted' | 'expired';

export interface CredentialWatch {
  /**
   * The stream is subscribed: re-checks the credential once, then on every announcement, every
   * re-check interval and at a session's expiry. `end` is called at most once.
   */
  attach(end: (loss: CredentialLoss) => void): void;
  /** Stops watching: the stream ended, or never opened. Safe to call more than once. */
  cancel(): void;
}

export interface CredentialGuardOptions {
  /**
   * STREAM_MAX_MS: no stream lives longer, so a session expiring later than that after the stream
   * attached needs no timer (the stream is gone by then).
   */
  horizonMs: number;
}

/** setTimeout's longest delay; a later expiry re-arms when the timer fires. */
const MAX_TIMER_MS = 2 ** 31 - 1;

/** What a read says about one stream's credential. */
type Verdict = { live: true; expiresAt: number | null } | { live: false; loss: 'revoked' | 'expired' };

class Watch implements CredentialWatch {
  end: ((loss: CredentialLoss) => void) | null = null;
  done = false;
  /** A check is running; `again`: an announcement came in meanwhile, so check once more after it. */
  checking = false;
  again = false;
  /** A session's expiry as last read (null for a key); its timer, when it falls within the stream's life. */
  expiresAt: number | null;
  timer: ReturnType<typeof setTimeout> | null = null;
  remove: () => void = () => {};
  /** Lets the periodic re-check stop once no stream is open. */
  release: () => void = () => {};

  constructor(
    readonly userId: string,
    readonly credential: StreamCredential,
    private readonly onAttach: (w: Watch) => void,
  ) {
    this.expiresAt = credential.kind === 'session' ? credential.expiresAt : null;
  }

  get attached(): boolean {
    return this.end !== null && !this.done;
  }

  attach(end: (loss: CredentialLoss) => void): void {
    if (this.done) return;
    this.end = end;
    this.onAttach(this);
  }

  cancel = (): void => {
    if (this.done) return;
    this.done = true;
    this.disarm();
    this.remove();
  };

  disarm(): void {
    if (this.timer !== null) clearTimeout(this.timer);
    this.timer = null;
  }

  finish(loss: CredentialLoss): void {
    const end = this.end;
    this.cancel();
    end?.(loss);
  }
}

export class CredentialStreamGuard implements RecheckSource {
  private readonly watches: StreamWatches<Watch>;
  /** Every attached watch: what the periodic re-check reads. */
  private readonly open = new Set<Watch>();
  private closed = false;

  constructor(
    private readonly ctx: Pick<BaseCtx, 'db' | 'bus' | 'clock'>,
    private readonly opts: CredentialGuardOptions,
    private readonly recheck: StreamRecheck,
  ) {
    this.watches = new StreamWatches<Watch>(ctx.bus, CREDENTIALS_REVOKED_SUBJECT, decodeRevoked, (_userId, set) => {
      // Bus handlers run on the read path: only schedule the checks. A watch not yet attached
      // checks as it attaches.
      for (const w of [...set]) if (w.attached) void this.check(w);
    });
    recheck.add(this);
  }

  /** Starts watching the credential of one stream of `userId`'s. */
  watch(userId: string, credential: StreamCredential): CredentialWatch {
    const w = new Watch(userId, credential, (attached) => {
      this.track(attached);
      // Read only once the subscription is confirmed: a revocation committed after this read is
      // announced to it, one committed before is seen by it.
      void this.watches.settled().then(() => this.check(attached));
    });
    const unregister = this.watches.add(userId, w);
    w.remove = () => {
      unregister();
      this.untrack(w);
    };
    return w;
  }

  /** The periodic re-check (./recheck.ts): the keys and sessions of every attached stream. */
  collect(t: RecheckTargets): void {
    for (const w of this.open) {
      if (w.credential.kind === 'key') t.keyIds.add(w.credential.keyId);
      else t.tokenHashes.add(w.credential.tokenHash);
    }
  }

  /** Ends nothing by itself: a credential found gone is read again for its stream, for the reason. */
  apply(states: StreamStates): void {
    const now = this.ctx.clock.now();
    for (const w of [...this.open]) {
      if (!w.attached) continue;
      const c = w.credential;
      const verdict = judge(w, c.kind === 'key' ? states.keys.get(c.keyId) : states.sessions.get(c.tokenHash), now);
      // Rare: the per-stream check reads again and tells revoked from a deleted account.
      if (!verdict.live) void this.check(w);
      else this.renew(w, verdict.expiresAt);
    }
  }

  /** Shutdown: drops the bus subscription and the expiry timers. */
  close(): void {
    this.closed = true;
    this.watches.close();
    for (const w of this.open) w.disarm();
    for (const w of this.open) w.release();
    this.open.clear();
  }

  private track(w: Watch): void {
    if (this.closed) return;
    this.open.add(w);
    w.release = this.recheck.hold();
    this.arm(w);
  }

  private untrack(w: Watch): void {
    if (this.open.delete(w)) w.release();
  }

  /**
   * A session's timer at its expiry, when that comes before the stream's own end. It re-reads the
   * session when it fires: one whose expiry moved later is re-armed, not ended.
   */
  private arm(w: Watch): void {
    w.disarm();
    const at = w.expiresAt;
    if (at === null || !w.attached) return;
    const wait = Math.max(0, at - this.ctx.clock.now());
    if (wait > this.opts.horizonMs) return;
    w.timer = setTimeout(() => {
      w.timer = null;
      if (this.ctx.clock.now() >= at) void this.check(w);
      else this.arm(w);
    }, Math.min(wait, MAX_TIMER_MS));
  }

  /** A live session read with another expiry than the one known: follows it. */
  private renew(w: Watch, expiresAt: number | null): void {
    if (expiresAt === w.expiresAt) return;
    w.expiresAt = expiresAt;
    this.arm(w);
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
        const c = w.credential;
        const out = await accounts.credentialStates(this.ctx.db, c.kind === 'key' ? [c.keyId] : [], c.kind === 'session' ? [c.tokenHash] : []);
        const verdict = judge(w, c.kind === 'key' ? out.keys.get(c.keyId) : out.sessions.get(c.tokenHash), this.ctx.clock.now());
        if (verdict.live) {
          if (w.attached) this.renew(w, verdict.expiresAt);
          continue;
        }
        if (verdict.loss === 'expired') {
          if (w.attached) w.finish('expired');
          return;
        }
        // Rare (a revocation), so one more read: a deleted account's streams of its own
        // endpoints end as those endpoints do, whichever guard hears first.
        const accountDeleted = (await accounts.findUserById(this.ctx.db, w.userId)) === null;
        if (w.attached) w.finish(accountDeleted ? 'account_deleted' : 'revoked');
        return;
      } while (w.again);
    } catch (e) {
      // The stream stays open; the next announcement, re-check or STREAM_MAX_MS ends it.
      log.warn('could not re-check a stream credential', { error: errorMessage(e) });
    } finally {
      w.checking = false;
    }
  }
}

/**
 * A credential as read against the stream's: a key is live while it exists unrevoked and is still
 * the account's; a session while it exists, is the account's and has not reached its expiry.
 */
function judge(w: Watch, state: accounts.CredentialState | undefined, now: number): Verdict {
  if (state === undefined || state.userId !== w.userId) return { live: false, loss: 'revoked' };
  if (state.expiresAt !== null && state.expiresAt <= now) return { live: false, loss: 'expired' };
  return { live: true, expiresAt: state.expiresAt };
}
