/**
 * The bus message for live captures: the records of one endpoint made durable since the last flush
 * (src/engine/live-publisher.ts), as JSON lines. One message per endpoint per flush instead of one
 * per capture keeps the bus off the capture path's CPU (NATS client framing and the server's
 * routing are per message).
 *
 * A record too large for one bus message (NATS' max_payload, 1 MiB by default; a 1 MiB binary body
 * is ~1.4 MiB as base64) travels as a reference line `{"ref":"<id>"}`; stream nodes read such a
 * record from the capture store once it is shipped.
 */
import { CAPTURE_ID_PATTERN } from '../ids';

const NEWLINE = 0x0a;
const encoder = new TextEncoder();
const decoder = new TextDecoder();

/** Splits records into messages of at most `maxBytes`; records over the limit become references. */
export function encodeBatches(records: readonly { id: string; json: Uint8Array }[], maxBytes: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  let lines: Uint8Array[] = [];
  let size = 0;
  const flush = () => {
    if (lines.length === 0) return;
    out.push(lines.length === 1 ? (lines[0] as Uint8Array) : join(lines, size));
    lines = [];
    size = 0;
  };
  for (const r of records) {
    const line = r.json.length <= maxBytes ? r.json : encoder.encode(`{"ref":"${r.id}"}`);
    // +1 for the separator before it
    if (lines.length > 0 && size + 1 + line.length > maxBytes) flush();
    size += (lines.length > 0 ? 1 : 0) + line.length;
    lines.push(line);
  }
  flush();
  return out;
}

function join(lines: Uint8Array[], size: number): Uint8Array {
  const buf = new Uint8Array(size);
  let at = 0;
  for (const line of lines) {
    if (at > 0) buf[at++] = NEWLINE;
    buf.set(line, at);
    at += line.length;
  }
  return buf;
}

/** The lines of a message, as views of its bytes (JSON.stringify never emits a raw line break). */
export function splitBatch(data: Uint8Array): Uint8Array[] {
  const out: Uint8Array[] = [];
  let start = 0;
  for (let i = data.indexOf(NEWLINE); i !== -1; i = data.indexOf(NEWLINE, start)) {
    out.push(data.subarray(start, i));
    start = i + 1;
  }
  out.push(data.subarray(start));
  return out;
}

const REF = new RegExp(`^\\{"ref":"(${CAPTURE_ID_PATTERN})"\\}$`);

/** The capture id of a reference line, or null for a record line. */
export function refOf(line: Uint8Array): string | null {
  if (line.length > 64 || line[2] !== 0x72 /* r */) return null;
  return REF.exec(decoder.decode(line))?.[1] ?? null;
}
