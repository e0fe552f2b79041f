/**
 * The node-local, append-only capture log. A capture is acknowledged to its sender only after its
 * frame is on disk: appends made while one write is in flight form the next group, so thousands of
 * captures share one flush to disk (group commit).
 *
 * Layout: DATA_DIR/log/<segment>.log files and `checkpoint.json`, the position up to which the
 * shipper has stored everything. The shipper worker tails the segments (log-reader.ts): the log
 * itself is the shipping queue. A segment is a 16-byte header (magic, segment number) and frames
 * [u32 length][u32 crc32][payload], the checksum seeded with the segment number.
 *
 * Why the seed: shipped segments are recycled (renamed to spares and overwritten) instead of
 * deleted, as PostgreSQL recycles WAL files. Overwriting blocks that already exist needs no block
 * allocation and no metadata journalling, so each synchronous write costs about half the time and
 * CPU of an append to a fresh file (measured in the README). A recycled file still holds the old
 * segment's frames after the new ones; their checksums were seeded with the old number, so they
 * fail validation and the log ends where the new frames end.
 *
 * Segments are opened O_DSYNC: a write returns once its data is durable, one syscall per group
 * instead of write + fdatasync. The syscall runs on the log's write thread (log-writer.ts), so the
 * receiver thread goes on serving requests while the device flushes.
 *
 * Segments written before the header existed ("legacy": frames from offset 0, unseeded checksums)
 * are still read and replayed; new frames never go into them.
 */
import {
  closeSync,
  constants,
  existsSync,
  fsyncSync,
  mkdirSync,
  openSync,
  readdirSync,
  readFileSync,
  readSync,
  renameSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { join } from 'node:path';
import { describeError, log } from '../log';
import { LogWriter } from './log-writer';

export interface LogPosition {
  segment: number;
  /** Byte offset just past the last frame counted. */
  offset: number;
}

interface PendingAppend {
  /** Bytes as given, or text that is encoded as UTF-8 straight into the group's buffer. */
  payload: Uint8Array | string;
  /** The payload's length in bytes. */
  length: number;
  /**
   * With the frame's start (where a reader must begin to read it again: the notifier's
   * checkpoint) and the payload as written, a view into the group's buffer.
   */
  resolve: (at: LogPosition, frame: Uint8Array) => void;
  reject: (err: unknown) => void;
}

/** An appended frame: where it starts in the log, and its payload's bytes. */
export interface Appended {
  at: LogPosition;
  frame: Uint8Array;
}

const utf8 = new TextEncoder();

export const FRAME_HEADER = 8;
export const SEGMENT_HEADER = 16;
const MAGIC = new TextEncoder().encode('HOOKCAP\x01');
/** Shipped segments kept for reuse; more than this are deleted. */
const MAX_SPARES = 2;

export const segmentName = (n: number) => `${String(n).padStart(12, '0')}.log`;
const SPARE = /^spare-\d{12}\.log$/;

export function listSegments(dir: string): number[] {
  return readdirSync(dir)
    .filter((f) => /^\d{12}\.log$/.test(f))
    .map((f) => Number.parseInt(f, 10))
    .sort((a, b) => a - b);
}

/** Where a segment's frames start and how their checksums are seeded. */
export interface SegmentLayout {
  /** Offset of the first frame. */
  start: number;
  seed: number;
  /** False for a header that names another segment (a spare renamed but not yet rewritten). */
  valid: boolean;
}

/** The layout of segment `n` from its first bytes (at least SEGMENT_HEADER of them when present). */
export function layoutOf(n: number, head: Uint8Array): SegmentLayout {
  const hasMagic = head.length >= SEGMENT_HEADER && MAGIC.every((b, i) => head[i] === b);
  if (!hasMagic) return { start: 0, seed: 0, valid: true };
  const named = new DataView(head.buffer, head.byteOffset, head.byteLength).getUint32(MAGIC.length, true);
  return { start: SEGMENT_HEADER, seed: n >>> 0, valid: named === n >>> 0 };
}

/** Reads a segment file's layout through an open descriptor. */
export function layoutOfFd(n: number, fd: number): SegmentLayout {
  const head = new Uint8Array(SEGMENT_HEADER);
  const got = readSync(fd, head, 0, SEGMENT_HEADER, 0);
  return layoutOf(n, head.subarray(0, got));
}

function segmentHeader(n: number): Uint8Array {
  const head = new Uint8Array(SEGMENT_HEADER);
  head.set(MAGIC, 0);
  new DataView(head.buffer).setUint32(MAGIC.length, n >>> 0, true);
  return head;
}

export const frameChecksum = (payload: Uint8Array, seed: number): number => Bun.hash.crc32(payload, seed) >>> 0;

export function readCheckpoint(dir: string): LogPosition {
  const path = join(dir, 'checkpoint.json');
  if (!existsSync(path)) return { segment: 0, offset: 0 };
  const pos = JSON.parse(readFileSync(path, 'utf8')) as LogPosition;
  return Number.isInteger(pos.segment) && Number.isInteger(pos.offset) ? pos : { segment: 0, offset: 0 };
}

/** The notifier's checkpoint file (notify-log.ts). */
export const NOTIFY_CHECKPOINT = 'notify-checkpoint.json';

/**
 * Other readers of the log that must not lose segments they have not passed: each keeps its own
 * checkpoint file here. A missing or unreadable file holds nothing.
 */
const READER_CHECKPOINTS = [NOTIFY_CHECKPOINT];

/** The first segment some reader other than the shipper still needs (Infinity when none). */
function firstSegmentHeld(dir: string): number {
  let held = Number.POSITIVE_INFINITY;
  for (const name of READER_CHECKPOINTS) {
    try {
      const seg = (JSON.parse(readFileSync(join(dir, name), 'utf8')) as { segment?: unknown }).segment;
      if (typeof seg === 'number' && Number.isInteger(seg)) held = Math.min(held, seg);
    } catch {
      // absent (that reader never ran) or torn: it holds nothing
    }
  }
  return held;
}

/**
 * Everything up to `pos` is stored: persist that, and recycle or drop whole segments before it
 * that no other reader (READER_CHECKPOINTS) still needs.
 */
export function writeCheckpoint(dir: string, pos: LogPosition): void {
  const tmp = join(dir, 'checkpoint.json.tmp');
  writeFileSync(tmp, JSON.stringify(pos));
  renameSync(tmp, join(dir, 'checkpoint.json'));
  let spares = readdirSync(dir).filter((f) => SPARE.test(f)).length;
  const keepFrom = Math.min(pos.segment, firstSegmentHeld(dir));
  for (const seg of listSegments(dir)) {
    if (seg >= keepFrom) break;
    const path = join(dir, segmentName(seg));
    // Legacy segments are not recycled: their unseeded frames would read as valid in a spare
    // renamed to a new segment whose header was not yet written when the process died.
    if (spares < MAX_SPARES && hasHeader(path)) {
      renameSync(path, join(dir, `spare-${segmentName(seg)}`));
      spares++;
    } else {
      unlinkSync(path);
    }
  }
}

function hasHeader(path: string): boolean {
  const fd = openSync(path, 'r');
  try {
    return layoutOfFd(0, fd).start === SEGMENT_HEADER;
  } finally {
    closeSync(fd);
  }
}

export interface FrameWalk {
  /** Offset just past the last frame handed to `each`. */
  at: number;
  /**
   * Why the walk stopped: `max` frames were read; `more` bytes are needed (the data ends inside
   * a frame); or the frames `end` here (checked walks only: an empty frame, a checksum that does
   * not match, or a frame that would pass `limit`).
   */
  stop: 'max' | 'more' | 'end';
}

/**
 * The one parser of the frame format: calls `each` for every whole frame in `data` from `start`.
 * With a `seed`, frames are checked (not empty, within `limit`, checksum seeded with the segment
 * number); without one (the part of the live segment known to be durable) they are trusted.
 */
export function walkFrames(
  data: Uint8Array,
  start: number,
  opts: { seed: number | null; limit: number; max: number },
  each: (payload: Uint8Array, end: number) => void,
): FrameWalk {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  const checked = opts.seed !== null;
  let at = start;
  for (let n = 0; n < opts.max; n++) {
    if (at + FRAME_HEADER > data.length) return { at, stop: checked && at + FRAME_HEADER > opts.limit ? 'end' : 'more' };
    const len = view.getUint32(at, true);
    const end = at + FRAME_HEADER + len;
    if (checked && (len === 0 || end > opts.limit)) return { at, stop: 'end' };
    if (end > data.length) return { at, stop: 'more' };
    const payload = data.subarray(at + FRAME_HEADER, end);
    if (opts.seed !== null && frameChecksum(payload, opts.seed) !== view.getUint32(at + 4, true)) return { at, stop: 'end' };
    each(payload, end);
    at = end;
  }
  return { at, stop: 'max' };
}

/** Checks a whole segment's frames from `start`; returns the offset where intact data ends. */
export function scanFrames(data: Uint8Array, start: number, seed: number, each: (payload: Uint8Array, end: number) => void = () => {}): number {
  return walkFrames(data, start, { seed, limit: data.length, max: Number.POSITIVE_INFINITY }, each).at;
}

function syncDir(dir: string): void {
  const fd = openSync(dir, 'r');
  try {
    fsyncSync(fd);
  } finally {
    closeSync(fd);
  }
}

export interface WriteLatency {
  /** Writes the figures are over. */
  writes: number;
  p50: number;
  p99: number;
  max: number;
}

const round3 = (ms: number): number => Math.round(ms * 1000) / 1000;

export class CaptureLog {
  private file: FileHandle | null = null;
  private segment = 0;
  private size = 0;
  private group: PendingAppend[] = [];
  private groupBytes = 0;
  private writing = false;
  private closed = false;
  private idle: (() => void)[] = [];
  /** The last group could not be written (disk full): logged once, until a write succeeds. */
  private failing = false;
  /** Group writes happen on this thread, off the receiver's (log-writer.ts); started once open() succeeded. */
  private writer: LogWriter | null = null;

  /** False while appends fail (disk full, I/O error): captures are refused with 503 meanwhile. */
  get writable(): boolean {
    return !this.failing;
  }
  /** Called after each group is durable, with the new end of the log. */
  onDurable: (end: LogPosition, frames: number) => void = () => {};
  /** Captures per fsync, and segments started from a recycled file, for the bench and tests. */
  readonly stats = { groups: 0, frames: 0, recycled: 0 };

  private constructor(
    readonly dir: string,
    private readonly segmentBytes: number,
  ) {}

  /**
   * How long the recent group writes took on the write thread (ms, the last 1,024 at most): the
   * device's flush, which every capture of a group waits for before its acknowledgement. Null
   * before the first write. Groups too large for the write thread are not counted.
   */
  writeLatency(): WriteLatency | null {
    const times = this.writer?.recentWriteMs() ?? [];
    if (times.length === 0) return null;
    times.sort((a, b) => a - b);
    const at = (q: number) => round3(times[Math.min(times.length - 1, Math.floor(q * times.length))] as number);
    return { writes: times.length, p50: at(0.5), p99: at(0.99), max: round3(times[times.length - 1] as number) };
  }

  /**
   * Opens (or creates) the log. A torn tail (crash mid-write: never acknowledged) and anything
   * after it, such as a recycled file's old frames, is cut off. Returns the end of the log and how
   * many frames lie after the checkpoint (still to ship).
   */
  static async open(dir: string, segmentBytes: number): Promise<{ log: CaptureLog; end: LogPosition; unshipped: number }> {
    mkdirSync(dir, { recursive: true });
    const log = new CaptureLog(dir, segmentBytes);
    const checkpoint = readCheckpoint(dir);
    const segments = listSegments(dir);
    let unshipped = 0;
    let lastLayout: SegmentLayout | null = null;
    for (const seg of segments) {
      if (seg < checkpoint.segment) continue;
      const path = join(dir, segmentName(seg));
      const data = new Uint8Array(readFileSync(path));
      const layout = layoutOf(seg, data);
      lastLayout = layout;
      const from = Math.max(layout.start, seg === checkpoint.segment ? checkpoint.offset : 0);
      const valid = layout.valid ? scanFrames(data, from, layout.seed, () => unshipped++) : 0;
      if (valid < data.length) {
        const fh = await open(path, 'r+');
        await fh.truncate(valid);
        await fh.sync();
        await fh.close();
      }
    }
    const last = segments.at(-1);
    if (last === undefined) await log.startSegment(Math.max(1, checkpoint.segment));
    // New frames go into a segment with this format's header only.
    else if (lastLayout === null || lastLayout.start === 0 || !lastLayout.valid) await log.startSegment(last + 1);
    else await log.reopenSegment(last);
    log.writer = LogWriter.start();
    return { log, end: { segment: log.segment, offset: log.size }, unshipped };
  }

  /** Resolves once the frame is durable on disk, with the position where the frame starts. */
  append(payload: Uint8Array): Promise<LogPosition> {
    return new Promise<LogPosition>((resolve, reject) => this.enqueue({ payload, length: payload.length, resolve, reject }));
  }

  /**
   * Appends text as UTF-8 (the capture path's JSON records). The text is encoded once, into the
   * buffer the group is written from, instead of into a buffer of its own that is then copied
   * there: one allocation and one copy fewer per capture. Resolves once durable, with the frame's
   * bytes for whoever sends them on (the live publisher).
   */
  appendText(text: string): Promise<Appended> {
    return new Promise<Appended>((resolve, reject) =>
      this.enqueue({ payload: text, length: Buffer.byteLength(text, 'utf8'), resolve: (at, frame) => resolve({ at, frame }), reject }),
    );
  }

  private enqueue(p: PendingAppend): void {
    if (this.closed) {
      p.reject(new Error('capture log is closed'));
      return;
    }
    this.group.push(p);
    this.groupBytes += FRAME_HEADER + p.length;
    if (!this.writing) void this.writeGroups();
  }

  /** The end of what is durable: every frame acknowledged so far lies before it. */
  get end(): LogPosition {
    return { segment: this.segment, offset: this.size };
  }

  /** Waits for in-flight groups, then closes the file. */
  async close(): Promise<void> {
    if (this.writing || this.group.length > 0) await new Promise<void>((r) => this.idle.push(r));
    this.closed = true;
    this.writer?.stop();
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
        // No open segment: the last roll failed (disk full); try it again.
        if (!this.file || (this.size > SEGMENT_HEADER && this.size + bytes > this.segmentBytes)) await this.roll();
        const file = this.file;
        if (!file) throw new Error('capture log has no open segment');
        // One buffer per group, frames written straight into it. Not reused: the frames handed
        // to the appenders are views into it.
        const buf = new Uint8Array(bytes);
        const view = new DataView(buf.buffer);
        const seed = this.segment >>> 0;
        let at = 0;
        for (const p of batch) {
          const frame = buf.subarray(at + FRAME_HEADER, at + FRAME_HEADER + p.length);
          if (typeof p.payload !== 'string') frame.set(p.payload);
          else if (utf8.encodeInto(p.payload, frame).written !== p.length) throw new Error('capture log: text encoded to an unexpected length');
          view.setUint32(at, p.length, true);
          view.setUint32(at + 4, frameChecksum(frame, seed), true);
          at += FRAME_HEADER + p.length;
        }
        // O_DSYNC: durable once the write returns.
        if (this.writer?.fits(bytes)) await this.writer.write(file.fd, buf, this.size);
        else await writeAll(file, buf, this.size);
        const base = this.size;
        this.size += bytes;
        this.stats.groups++;
        this.stats.frames += batch.length;
        let start = base;
        for (const p of batch) {
          const from = start - base + FRAME_HEADER;
          p.resolve({ segment: this.segment, offset: start }, buf.subarray(from, from + p.length));
          start += FRAME_HEADER + p.length;
        }
        this.onDurable({ segment: this.segment, offset: this.size }, batch.length);
        if (this.failing) {
          this.failing = false;
          log.info('capture log writable again');
        }
      } catch (err) {
        // Nothing in this group was acknowledged; the senders get an error and may retry. A
        // partial write (disk full) is cut off, so its bytes can never be read as frames later and
        // the space they took is free again.
        await this.file?.truncate(this.size).catch(() => {});
        if (!this.failing) {
          this.failing = true;
          log.error('capture log write failed; captures are refused until it succeeds', { error: describeError(err) });
        }
        for (const p of batch) p.reject(err);
      }
    }
    this.writing = false;
    for (const r of this.idle.splice(0)) r();
  }

  private async roll(): Promise<void> {
    await this.file?.close();
    this.file = null;
    await this.startSegment(this.segment + 1);
  }

  /**
   * Starts segment `n`, on a recycled spare when there is one, and makes its header durable. The
   * segment becomes current only once that succeeded: a failure (disk full) leaves no open file,
   * and the next group tries again.
   */
  private async startSegment(n: number): Promise<void> {
    const path = join(this.dir, segmentName(n));
    const spare = readdirSync(this.dir).filter((f) => SPARE.test(f)).sort()[0];
    if (spare !== undefined && !existsSync(path)) {
      renameSync(join(this.dir, spare), path);
      this.stats.recycled++;
    }
    const file = await open(path, constants.O_RDWR | constants.O_CREAT | constants.O_DSYNC, 0o644);
    try {
      // The new name must be durable before frames in it are acknowledged.
      syncDir(this.dir);
      await writeAll(file, segmentHeader(n), 0);
    } catch (err) {
      await file.close().catch(() => {});
      throw err;
    }
    this.file = file;
    this.segment = n;
    this.size = SEGMENT_HEADER;
  }

  /** Continues the last segment after a restart; open() has cut it to its last intact frame. */
  private async reopenSegment(n: number): Promise<void> {
    this.file = await open(join(this.dir, segmentName(n)), constants.O_RDWR | constants.O_DSYNC);
    this.segment = n;
    this.size = (await this.file.stat()).size;
  }
}

async function writeAll(file: FileHandle, buf: Uint8Array, position: number): Promise<void> {
  let written = 0;
  while (written < buf.length) {
    const { bytesWritten } = await file.write(buf, written, buf.length - written, position + written);
    written += bytesWritten;
  }
}
