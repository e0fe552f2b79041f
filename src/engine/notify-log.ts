/**
 * The notifier's place in the capture log, so notifications survive a restart or a crash (the log
 * is already the durable queue; notifier.ts is only the in-memory window over it).
 *
 * `notify-checkpoint.json` in the log directory holds the start of the earliest capture frame
 * whose notification is not settled (delivered or given up), and the attempts already made for
 * the unsettled ones that failed at least once. It is rewritten (temp file + rename) at most every
 * `persistMs` while anything changed, and once more at a clean stop. The shipper does not recycle
 * a segment at or after it (capture-log.ts, writeCheckpoint).
 *
 * At start-up the frames from that checkpoint to the end of the log are read again, and each one
 * whose endpoint (looked up by id) has a notificationUrl is enqueued with its remembered attempt
 * count; new captures go through the capture hook as usual. A notification settled after the last
 * rewrite is sent again: delivery is at least once, and `request.id` is the key to drop repeats.
 */
import { existsSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { log } from '../log';
import type { Capture } from '../model/capture';
import { errorMessage } from '../unknown';
import type { EndpointSnapshot } from './actors';
import { FRAME_HEADER, NOTIFY_CHECKPOINT, readCheckpoint, type LogPosition } from './capture-log';
import { before, LogReader } from './log-reader';
import { enqueueFor, tenantOf, type Notifier } from './notifier';


/** What an endpoint's notifications need, looked up by id for frames read again at start-up. */
export type NotifyTarget = Pick<EndpointSnapshot, 'id' | 'slug' | 'userId' | 'ownerKeyId' | 'notificationUrl'>;

export interface NotifyCheckpoint extends LogPosition {
  /** Failed attempts so far, by capture id (only notifications that failed at least once). */
  tries: Record<string, number>;
}

export interface NotifyLogOptions {
  dir: string;
  notifier: Notifier;
  /** The end of the durable log now (CaptureLog#end). */
  end: () => LogPosition;
  lookup: (endpointId: string) => Promise<NotifyTarget | null>;
  baseUrl: string;
  persistMs?: number;
}

const REPLAY_BATCH = 256;
const ROOM_POLL_MS = 50;
const decoder = new TextDecoder();

/**
 * The saved checkpoint; null when there is none (first start with this file: begin at the end of
 * the log, not with notifications of old captures). A torn file (a crash of the machine while it
 * was written) falls back to the shipper's checkpoint, which is never ahead of what was captured
 * since: more is sent again, nothing is skipped that the shipper had not passed.
 */
export function readNotifyCheckpoint(dir: string): NotifyCheckpoint | null {
  const path = join(dir, NOTIFY_CHECKPOINT);
  if (!existsSync(path)) return null;
  try {
    const c = JSON.parse(readFileSync(path, 'utf8')) as Partial<NotifyCheckpoint>;
    if (Number.isInteger(c.segment) && Number.isInteger(c.offset)) {
      return { segment: c.segment as number, offset: c.offset as number, tries: typeof c.tries === 'object' && c.tries !== null ? c.tries : {} };
    }
  } catch {
    // torn: below
  }
  log.warn('notification checkpoint unreadable; resending from the shipper checkpoint', { path });
  return { ...readCheckpoint(dir), tries: {} };
}

export class NotifyLog {
  private readonly persistMs: number;
  private timer: ReturnType<typeof setInterval> | null = null;
  /** The next frame the start-up replay has yet to enqueue; null when not replaying. */
  private cursor: LogPosition | null = null;
  private replaying: Promise<void> = Promise.resolve();
  private stopped = false;
  private lastWritten = '';
  readonly stats = { replayed: 0 };

  constructor(private readonly opts: NotifyLogOptions) {
    this.persistMs = opts.persistMs ?? 250;
  }

  /** Re-reads what the last run left unsettled (up to `until`, the end of the log at open), then keeps the checkpoint. */
  start(until: LogPosition): void {
    const saved = readNotifyCheckpoint(this.opts.dir);
    if (saved && before(saved, until)) {
      this.cursor = { segment: saved.segment, offset: saved.offset };
      this.replaying = this.replay(saved, until).catch((err: unknown) => {
        log.error('notification replay failed; the checkpoint stays where it stopped', { error: errorMessage(err) });
      });
    }
    this.persist();
    this.timer = setInterval(() => this.persist(), this.persistMs);
  }

  /** Stops the replay and the notifier, then saves where the next start resumes. */
  async stop(): Promise<void> {
    this.stopped = true;
    await this.replaying;
    await this.opts.notifier.stop();
    if (this.timer) clearInterval(this.timer);
    this.timer = null;
    this.persist();
  }

  /** The checkpoint now: the earliest of the unsettled frames, the replay cursor and the log's end. */
  checkpoint(): NotifyCheckpoint {
    let low = this.cursor ?? this.opts.end();
    const tries: Record<string, number> = {};
    for (const [id, u] of this.opts.notifier.unsettled()) {
      if (before(u.at, low)) low = u.at;
      if (u.tries > 0) tries[id] = u.tries;
    }
    return { segment: low.segment, offset: low.offset, tries };
  }

  private persist(): void {
    const text = JSON.stringify(this.checkpoint());
    if (text === this.lastWritten) return;
    try {
      const tmp = join(this.opts.dir, `${NOTIFY_CHECKPOINT}.tmp`);
      writeFileSync(tmp, text);
      renameSync(tmp, join(this.opts.dir, NOTIFY_CHECKPOINT));
      this.lastWritten = text;
    } catch (err) {
      // Kept in memory; the next tick tries again. An old checkpoint only means more resent.
      log.warn('notification checkpoint not saved', { error: errorMessage(err) });
    }
  }

  private async replay(saved: NotifyCheckpoint, until: LogPosition): Promise<void> {
    const reader = new LogReader(this.opts.dir, { segment: saved.segment, offset: saved.offset });
    const targets = new Map<string, NotifyTarget | null>();
    try {
      while (!this.stopped) {
        const frames = reader.read(until, REPLAY_BATCH);
        if (frames.length === 0) break;
        for (const f of frames) {
          const at = { segment: f.end.segment, offset: f.end.offset - FRAME_HEADER - f.payload.length };
          this.cursor = at;
          const capture = JSON.parse(decoder.decode(f.payload)) as Capture;
          let target = targets.get(capture.endpointId);
          if (target === undefined) {
            target = await this.opts.lookup(capture.endpointId);
            targets.set(capture.endpointId, target);
          }
          // A deleted endpoint, or one whose URL was removed since: nothing to send.
          if (!target?.notificationUrl) continue;
          // The log waits for room; dropping here would lose what the crash left pending.
          while (!this.opts.notifier.hasRoom(tenantOf(target))) {
            if (this.stopped) return;
            await Bun.sleep(ROOM_POLL_MS);
          }
          if (enqueueFor(this.opts.notifier, capture, target, this.opts.baseUrl, { at, attempt: (saved.tries[capture.id] ?? 0) + 1 })) this.stats.replayed++;
        }
        this.cursor = reader.pos;
      }
      if (this.stats.replayed > 0) log.info('notifications pending at the last stop re-queued', { notifications: this.stats.replayed });
    } finally {
      reader.close();
      // Stopped midway: the cursor stays, so the checkpoint keeps what was not yet read.
      if (!this.stopped) this.cursor = null;
    }
  }
}
