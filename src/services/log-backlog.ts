/**
 * How much of a data dir's capture log is not shipped yet, read from the files alone: what the
 * admin command shows for a stopped node (a running one also reports its shipper's counters).
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { layoutOf, listSegments, readCheckpoint, scanFrames, segmentName, type LogPosition } from '../engine/capture-log';

export interface LogBacklog {
  /** The shipper's checkpoint: everything before it is in the capture store. */
  checkpoint: LogPosition;
  /** Segment files at or after the checkpoint. */
  segments: number;
  /** Captures after the checkpoint (acknowledged, not yet shipped). */
  unshipped: number;
  /** Their bytes on disk. */
  unshippedBytes: number;
}

export function readLogBacklog(dataDir: string): LogBacklog {
  const dir = join(dataDir, 'log');
  if (!existsSync(dir)) return { checkpoint: { segment: 0, offset: 0 }, segments: 0, unshipped: 0, unshippedBytes: 0 };
  const checkpoint = readCheckpoint(dir);
  let segments = 0;
  let unshipped = 0;
  let unshippedBytes = 0;
  for (const seg of listSegments(dir)) {
    if (seg < checkpoint.segment) continue;
    let data: Uint8Array;
    try {
      data = new Uint8Array(readFileSync(join(dir, segmentName(seg))));
    } catch {
      continue; // shipped and recycled while we listed
    }
    segments++;
    const layout = layoutOf(seg, data);
    if (!layout.valid) continue;
    const from = Math.max(layout.start, seg === checkpoint.segment ? checkpoint.offset : 0);
    const end = scanFrames(data, from, layout.seed, () => unshipped++);
    unshippedBytes += Math.max(0, end - from);
  }
  return { checkpoint, segments, unshipped, unshippedBytes };
}
