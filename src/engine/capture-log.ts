/**
 * The node-local, append-only capture log. A capture is acknowledged to its sender only after its
 * frame is on disk: appends made while one write+fdatasync is in flight form the next group, so
 * thousands of captures share one fsync (group commit).
 *
 * Layout: DATA_DIR/log/<segment>.log files of frames [u32 length][u32 crc32][payload], and
 * `checkpoint.json`, the position up to which the shipper has stored everything. On open, frames
 * after the checkpoint are handed back for replay; a torn tail (crash mid-write) is cut off.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export interface LogPosition {
  segment: number;
  /** Byte offset just past the frame. */
  offset: number;
}

export interface ReplayedFrame {
  payload: Uint8Array;
  position: LogPosition;
}

interface PendingAppend {
  frame: Uint8Array;
  resolve: (pos: LogPosition) => void;
  reject: (err: unknown) => void;
}

const HEADER = 8;
const segmentName = (n: number) => `${String(n).padStart(12, '0')}.log`;

export class CaptureLog {
  private file: FileHandle | null = null;
  private segment = 0;
  private size = 0;
  private group: PendingAppend[] = [];
  private groupBytes = 0;
  private writing = false;
  private closed = false;
  private idle: (() => void)[] = [];
  /** Captures per fsync, for the bench and /healthz. */
  readonly stats = { groups: 0, frames: 0 };

  private constructor(
    private readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  /** Opens (or creates) the log and returns the frames not yet covered by the checkpoint. */
  static async open(dir: string, segmentBytes: number): Promise<{ log: CaptureLog; unshipped: ReplayedFrame[] }> {
    mkdirSync(dir, { recursive: true });
    const log = new CaptureLog(dir, segmentBytes);
    const checkpoint = log.readCheckpoint();
    const segments = log.listSegments();
    const unshipped: ReplayedFrame[] = [];
    for (const seg of segments) {
      if (seg < checkpoint.segment) continue;
      const path = join(dir, segmentName(seg));
      const data = new Uint8Array(readFileSync(path));
      const start = seg === checkpoint.segment ? checkpoint.offset : 0;
      const valid = scanFrames(data, start, (payload, end) => unshipped.push({ payload, position: { segment: seg, offset: end } }));
      if (valid < data.length) {
        // A crash mid-write left a torn frame: it was never acknowledged, so cut it off.
        const fh = await open(path, 'r+');
        await fh.truncate(valid);
        await fh.sync();
        await fh.close();
      }
    }
    const last = segments.at(-1);
    log.segment = last === undefined ? Math.max(1, checkpoint.segment) : last;
    await log.openSegment(log.segment);
    return { log, unshipped };
  }

  /** Resolves with the frame's position once it is durable on disk. */
  append(payload: Uint8Array): Promise<LogPosition> {
    if (this.closed) return Promise.reject(new Error('capture log is closed'));
    const frame = new Uint8Array(HEADER + payload.length);
    const view = new DataView(frame.buffer);
    view.setUint32(0, payload.length, true);
    view.setUint32(4, Bun.hash.crc32(payload) >>> 0, true);
    frame.set(payload, HEADER);
    return new Promise<LogPosition>((resolve, reject) => {
      this.group.push({ frame, resolve, reject });
      this.groupBytes += frame.length;
      if (!this.writing) void this.writeGroups();
    });
  }

  /** Everything up to `pos` is stored elsewhere: persist that, and drop whole shipped segments. */
  checkpoint(pos: LogPosition): void {
    const tmp = join(this.dir, 'checkpoint.json.tmp');
    writeFileSync(tmp, JSON.stringify(pos));
    renameSync(tmp, join(this.dir, 'checkpoint.json'));
    for (const seg of this.listSegments()) {
      if (seg < pos.segment) unlinkSync(join(this.dir, segmentName(seg)));
    }
  }

  /** Waits for in-flight groups, then closes the file. */
  async close(): Promise<void> {
    if (this.writing || this.group.length > 0) await new Promise<void>((r) => this.idle.push(r));
    this.closed = true;
    await this.file?.close();
    this.file = null;
  }

  private async writeGroups(): Promise<void> {
    this.writing = true;
    while (this.group.length > 0) {
      const batch = this.group;
      const bytes = this.groupBytes;
      this.group = [];
      this.groupBytes = 0;
      try {
        if (this.size > 0 && this.size + bytes > this.segmentBytes) await this.roll();
        const file = this.file;
        if (!file) throw new Error('capture log has no open segment');
        const buf = new Uint8Array(bytes);
        const positions: LogPosition[] = [];
        let at = 0;
        for (const p of batch) {
          buf.set(p.frame, at);
          at += p.frame.length;
          positions.push({ segment: this.segment, offset: this.size + at });
        }
        let written = 0;
        while (written < buf.length) {
          const { bytesWritten } = await file.write(buf, written, buf.length - written, this.size + written);
          written += bytesWritten;
        }
        await file.datasync();
        this.size += bytes;
        this.stats.groups++;
        this.stats.frames += batch.length;
        batch.forEach((p, i) => p.resolve(positions[i] ?? { segment: this.segment, offset: this.size }));
      } catch (err) {
        // Nothing in this group was acknowledged; the senders get an error and may retry.
        for (const p of batch) p.reject(err);
      }
    }
    this.writing = false;
    for (const r of this.idle.splice(0)) r();
  }

  private async roll(): Promise<void> {
    await this.file?.close();
    await this.openSegment(this.segment + 1);
  }

  private async openSegment(n: number): Promise<void> {
    const path = join(this.dir, segmentName(n));
    this.file = await open(path, existsSync(path) ? 'r+' : 'w+');
    this.segment = n;
    this.size = (await this.file.stat()).size;
  }

  private listSegments(): number[] {
    return readdirSync(this.dir)
      .filter((f) => /^\d{12}\.log$/.test(f))
      .map((f) => Number.parseInt(f, 10))
      .sort((a, b) => a - b);
  }

  private readCheckpoint(): LogPosition {
    const path = join(this.dir, 'checkpoint.json');
    if (!existsSync(path)) return { segment: 0, offset: 0 };
    const pos = JSON.parse(readFileSync(path, 'utf8')) as LogPosition;
    return Number.isInteger(pos.segment) && Number.isInteger(pos.offset) ? pos : { segment: 0, offset: 0 };
  }
}

/** Calls `each` for every intact frame from `start`; returns the offset where intact data ends. */
export function scanFrames(data: Uint8Array, start: number, each: (payload: Uint8Array, end: number) => void): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = start;
  while (at + HEADER <= data.length) {
    const len = view.getUint32(at, true);
    const crc = view.getUint32(at + 4, true);
    const end = at + HEADER + len;
    if (end > data.length) break;
    const payload = data.subarray(at + HEADER, end);
    if ((Bun.hash.crc32(payload) >>> 0) !== crc) break;
    each(payload, end);
    at = end;
  }
  return at;
}
