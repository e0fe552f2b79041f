/**
 * Capture records as JSON text in one buffer (types.ts JsonRecords): the batch the shipper worker
 * fills from the capture log, and their parse for a store that inserts objects.
 */
import type { Capture } from '../../model/capture';
import type { JsonRecords } from './types';

// The largest buffer kept for the next batch (a batch stops at SHIP_BATCH_BYTES, 32 MiB by default).
const KEEP_BYTES = 64 * 1024 * 1024;

/** Records appended one by one into a buffer kept between batches (cleared, not reallocated). */
export class JsonRecordBatch implements JsonRecords {
  bytes = new Uint8Array(1024 * 1024);
  ends: number[] = [];

  get length(): number {
    return this.ends.length;
  }

  /** Bytes of records held. */
  get byteLength(): number {
    return this.ends.length === 0 ? 0 : (this.ends[this.ends.length - 1] as number);
  }

  /** Copies the record: `json` may be overwritten once this returns (the log reader's kept buffer). */
  push(json: Uint8Array): void {
    const at = this.byteLength;
    const need = at + json.length;
    if (need > this.bytes.length) {
      const grown = new Uint8Array(Math.max(need, this.bytes.length * 2));
      grown.set(this.bytes.subarray(0, at));
      this.bytes = grown;
    }
    this.bytes.set(json, at);
    this.ends.push(need);
  }

  clear(): void {
    this.ends = [];
    if (this.bytes.length > KEEP_BYTES) this.bytes = new Uint8Array(1024 * 1024);
  }
}

const decoder = new TextDecoder();

/** Record i of `records` as text. */
export function recordText(records: JsonRecords, i: number): string {
  return decoder.decode(records.bytes.subarray(i === 0 ? 0 : records.ends[i - 1], records.ends[i]));
}

/** Every record parsed, for a store that inserts Capture objects. */
export function parseRecords(records: JsonRecords): Capture[] {
  const out: Capture[] = [];
  for (let i = 0; i < records.ends.length; i++) out.push(JSON.parse(recordText(records, i)) as Capture);
  return out;
}
