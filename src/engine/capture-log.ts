/**
 * The node-local, append-only capture log. A capture is acknowledged to its sender only after its
 * frame is on disk: appends made while one write+fdatasync is in flight form the next group, so
 * thousands of captures share one fsync (group commit).
 *
 * Layout: DATA_DIR/log/<segment>.log files of frames [u32 length][u32 crc32][payload], and
 * `checkpoint.json`, the position up to which the shipper has stored everything. The shipper
 * worker tails these files (log-reader.ts): the log itself is the shipping queue.
 */
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';

export interface LogPosition {
  segment: number;
  /** Byte offset just past the last frame counted. */
  offset: number;
}

interface PendingAppend {
  payload: Uint8Array;
  resolve: () => void;
  reject: (err: unknown) => void;
}

export const FRAME_HEADER = 8;
export const segmentName = (n: number) => `${String(n).padStart(12, '0')}.log`;

export function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^\d{12}\.log$/.test(f))
    .map((f) => Number.parseInt(f, 10))
    .sort((a, b) => a - b);
}

export function readCheckpoint(dir: string): LogPosition {
  const path = join(dir, 'checkpoint.json');
  if (!existsSync(path)) return { segment: 0, offset: 0 };
  const pos = JSON.parse(readFileSync(path, 'utf8')) as LogPosition;
  return Number.isInteger(pos.segment) && Number.isInteger(pos.offset) ? pos : { segment: 0, offset: 0 };
}

/** Everything up to `pos` is stored: persist that, and drop whole segments before it. */
export function writeCheckpoint(dir: string, pos: LogPosition): void {
  const tmp = join(dir, 'checkpoint.json.tmp');
  writeFileSync(tmp, JSON.stringify(pos));
  renameSync(tmp, join(dir, 'checkpoint.json'));
  for (const seg of listSegments(dir)) {
    if (seg < pos.segment) unlinkSync(join(dir, segmentName(seg)));
  }
}

/** Calls `each` for every intact frame from `start`; returns the offset where intact data ends. */
export function scanFrames(data: Uint8Array, start: number, each?: (payload: Uint8Array, end: number) => void): number {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  let at = start;
  while (at + FRAME_HEADER <= data.length) {
    const len = view.getUint32(at, true);
    const crc = view.getUint32(at + 4, true);
    const end = at + FRAME_HEADER + len;
    if (end > data.length) break;
    const payload = data.subarray(at + FRAME_HEADER, end);
    if ((Bun.hash.crc32(payload) >>> 0) !== crc) break;
    each?.(payload, end);
    at = end;
  }
  return at;
}

export class CaptureLog {
  private file: FileHandle | null = null;
  private segment = 0;
  private size = 0;
  private group: PendingAppend[] = [];
  private groupBytes = 0;
  private writing = false;
  private closed = false;
  private idle: (() => void)[] = [];
  /** Called after each group is durable, with the new end of the log. */
  onDurable: (end: LogPosition, frames: number) => void = () => {};
  /** Captures per fsync, for the bench and tests. */
  readonly stats = { groups: 0, frames: 0 };

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  /**
   * Opens (or creates) the log. A torn tail (crash mid-write: never acknowledged) is cut off.
   * Returns the end of the log and how many frames lie after the checkpoint (still to ship).
   */
  static async open(dir: string, segmentBytes: number): Promise<{ log: CaptureLog; end: LogPosition; unshipped: number }> {
    mkdirSync(dir, { recursive: true });
    const log = new CaptureLog(dir, segmentBytes);
    const checkpoint = readCheckpoint(dir);
    const segments = listSegments(dir);
    let unshipped = 0;
    for (const seg of segments) {
      if (seg < checkpoint.segment) continue;
      const path = join(dir, segmentName(seg));
      const data = new Uint8Array(readFileSync(path));
      const start = seg === checkpoint.segment ? checkpoint.offset : 0;
      const valid = scanFrames(data, start, () => unshipped++);
      if (valid < data.length) {
        const fh = await open(path, 'r+');
        await fh.truncate(valid);
        await fh.sync();
        await fh.close();
      }
    }
    const last = segments.at(-1);
    await log.openSegment(last === undefined ? Math.max(1, checkpoint.segment) : last);
    return { log, end: { segment: log.segment, offset: log.size }, unshipped };
  }

  /** Resolves once the frame is durable on disk. */
  append(payload: Uint8Array): Promise<void> {
    if (this.closed) return Promise.reject(new Error('capture log is closed'));
    return new Promise<void>((resolve, reject) => {
      this.group.push({ payload, resolve, reject });
      this.groupBytes += FRAME_HEADER + payload.length;
      if (!this.writing) void this.writeGroups();
    });
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
        // One buffer per group, frames written straight into it: one copy per capture.
        const buf = new Uint8Array(bytes);
        const view = new DataView(buf.buffer);
        let at = 0;
        for (const p of batch) {
          view.setUint32(at, p.payload.length, true);
          view.setUint32(at + 4, Bun.hash.crc32(p.payload) >>> 0, true);
          buf.set(p.payload, at + FRAME_HEADER);
          at += FRAME_HEADER + p.payload.length;
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
        for (const p of batch) p.resolve();
        this.onDurable({ segment: this.segment, offset: this.size }, batch.length);
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
}
