/**
 * Reads frames of the capture log from a position up to a known-durable end, across segments.
 * Used by the shipper worker, which tails the log the main thread writes.
 */
import { closeSync, existsSync, fstatSync, openSync, readSync } from 'node:fs';
import { join } from 'node:path';
import { FRAME_HEADER, listSegments, segmentName, type LogPosition } from './capture-log';

export interface ReadFrame {
  payload: Uint8Array;
  /** Position just past this frame. */
  end: LogPosition;
}

export class LogReader {
  private fd: number | null = null;
  private fdSegment = -1;

  constructor(
    private readonly dir: string,
    /** Next frame to read. */
    public pos: LogPosition,
  ) {}

  /** Reads up to `max` frames that lie before `durable`; advances `pos` past them. */
  read(durable: LogPosition, max: number): ReadFrame[] {
    const out: ReadFrame[] = [];
    while (out.length < max && before(this.pos, durable)) {
      if (this.pos.segment < durable.segment && this.segmentSize(this.pos.segment) <= this.pos.offset) {
        // Finished an older segment: continue with the next one that exists.
        const next = listSegments(this.dir).find((s) => s > this.pos.segment);
        if (next === undefined) break;
        this.pos = { segment: next, offset: 0 };
        continue;
      }
      const limit = this.pos.segment === durable.segment ? durable.offset : this.segmentSize(this.pos.segment);
      const fd = this.open(this.pos.segment);
      if (fd === null) break;
      // Read a chunk, then cut it into whole frames; a frame larger than the chunk grows it.
      let want = Math.min(limit - this.pos.offset, 4 * 1024 * 1024);
      for (;;) {
        const chunk = new Uint8Array(want);
        const n = readSync(fd, chunk, 0, want, this.pos.offset);
        const data = chunk.subarray(0, n);
        let at = 0;
        const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
        while (at + FRAME_HEADER <= data.length && out.length < max) {
          const len = view.getUint32(at, true);
          const end = at + FRAME_HEADER + len;
          if (end > data.length) break;
          out.push({ payload: data.subarray(at + FRAME_HEADER, end), end: { segment: this.pos.segment, offset: this.pos.offset + end } });
          at = end;
        }
        if (at === 0 && data.length >= FRAME_HEADER && want < limit - this.pos.offset) {
          want = Math.min(limit - this.pos.offset, want * 2);
          continue;
        }
        this.pos = { segment: this.pos.segment, offset: this.pos.offset + at };
        break;
      }
      if (this.pos.segment === durable.segment && this.pos.offset >= durable.offset) break;
    }
    return out;
  }

  close(): void {
    if (this.fd !== null) closeSync(this.fd);
    this.fd = null;
  }

  private open(segment: number): number | null {
    if (this.fdSegment === segment && this.fd !== null) return this.fd;
    this.close();
    const path = join(this.dir, segmentName(segment));
    if (!existsSync(path)) return null;
    this.fd = openSync(path, 'r');
    this.fdSegment = segment;
    return this.fd;
  }

  private segmentSize(segment: number): number {
    const fd = this.open(segment);
    return fd === null ? 0 : fstatSync(fd).size;
  }
}

export function before(a: LogPosition, b: LogPosition): boolean {
  return a.segment < b.segment || (a.segment === b.segment && a.offset < b.offset);
}
