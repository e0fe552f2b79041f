/**
 * Reads frames of the capture log from a position up to a known-durable end, across segments.
 * Used by the shipper worker, which tails the log the main thread writes.
 *
 * In the segment being written, everything before the durable end is intact. An older segment
 * ends at its first frame that fails validation: a recycled file still holds frames of the
 * segment it used to be after the new ones (capture-log.ts).
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { layoutOfFd, listSegments, segmentName, walkFrames, type LogPosition, type SegmentLayout } from './capture-log';

export interface ReadFrame {
  payload: Uint8Array;
  /** Position just past this frame. */
  end: LogPosition;
}

const CHUNK = 4 * 1024 * 1024;

export interface LogReaderOptions {
  /**
   * Read into one buffer kept for the reader's life instead of a new one per read: the frames a
   * read returns are then valid only until the next read. For a reader that decodes each frame
   * at once (the shipper worker): a fresh buffer per read was about a quarter of what the whole
   * service allocated per capture, each one an oversized allocation that brings the worker's next
   * collection closer.
   */
  reuseBuffer?: boolean;
}

export class LogReader {
  private fd: number | null = null;
  private fdSegment = -1;
  private layout: SegmentLayout = { start: 0, seed: 0, valid: true };
  private scratch: Uint8Array | null = null;
  /** The kept buffer holds frames returned by the read() under way. */
  private scratchInUse = false;

  constructor(
    private readonly dir: string,
    /** Next frame to read. */
    public pos: LogPosition,
    private readonly opts: LogReaderOptions = {},
  ) {}

  /**
   * Reads up to `max` frames that lie before `durable`; advances `pos` past them. With
   * `reuseBuffer`, the payloads are overwritten by the next call.
   */
  read(durable: LogPosition, max: number): ReadFrame[] {
    const out: ReadFrame[] = [];
    this.scratchInUse = false;
    while (out.length < max && before(this.pos, durable)) {
      const segment = this.pos.segment;
      const current = segment === durable.segment;
      const fd = this.open(segment);
      if (fd === null || (!this.layout.valid && !current)) {
        if (!this.advance()) break;
        continue;
      }
      if (this.pos.offset < this.layout.start) this.pos = { segment, offset: this.layout.start };
      const limit = current ? durable.offset : fstatSync(fd).size;
      const ended = this.readChunk(fd, limit, !current, max, out);
      if (ended && !current) {
        if (!this.advance()) break;
        continue;
      }
      if (current && this.pos.offset >= durable.offset) break;
    }
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
    this.fdSegment = -1;
  }

  /**
   * Reads whole frames from `pos` towards `limit` into `out`. Returns true when the segment's
   * frames are exhausted (only for an older segment, whose end is its first invalid frame).
   */
  private readChunk(fd: number, limit: number, validate: boolean, max: number, out: ReadFrame[]): boolean {
    const { segment, offset } = this.pos;
    let want = Math.min(limit - offset, CHUNK);
    for (;;) {
      const chunk = this.chunk(want);
      const data = chunk.subarray(0, readSync(fd, chunk, 0, want, offset));
      const { at, stop } = walkFrames(data, 0, { seed: validate ? this.layout.seed : null, limit: limit - offset, max: max - out.length }, (payload, end) =>
        out.push({ payload, end: { segment, offset: offset + end } }),
      );
      if (stop === 'more' && at === 0 && data.length === want && want < limit - offset) {
        want = Math.min(limit - offset, want * 2); // one frame larger than the chunk
        continue;
      }
      this.pos = { segment, offset: offset + at };
      return stop === 'end';
    }
  }

  /**
   * A buffer of `want` bytes: the kept one when reusing, unless this read() already filled it (its
   * frames are still in the caller's hands until the call returns), else a new one.
   */
  private chunk(want: number): Uint8Array {
    if (!this.opts.reuseBuffer || this.scratchInUse) return new Uint8Array(want);
    this.scratchInUse = true;
    if (!this.scratch || this.scratch.length < want) this.scratch = new Uint8Array(Math.max(want, CHUNK));
    return this.scratch.subarray(0, want);
  }

  /** Moves to the next segment that exists; false when there is none yet. */
  private advance(): boolean {
    const next = listSegments(this.dir).find((s) => s > this.pos.segment);
    if (next === undefined) return false;
    this.pos = { segment: next, offset: 0 };
    return true;
  }

  private open(segment: number): number | null {
    if (this.fdSegment === segment && this.fd !== null) return this.fd;
    this.close();
    const path = join(this.dir, segmentName(segment));
    if (!existsSync(path)) return null;
    this.fd = openSync(path, 'r');
    this.fdSegment = segment;
    this.layout = layoutOfFd(segment, this.fd);
    return this.fd;
  }
}

export function before(a: LogPosition, b: LogPosition): boolean {
  return a.segment < b.segment || (a.segment === b.segment && a.offset < b.offset);
}
