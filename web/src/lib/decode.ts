/**
 * Reading what a sender encoded, for display only: a body sent with `Content-Encoding: gzip`,
 * `deflate` (or `br`, where the browser can) decompressed in the browser, and header values read
 * as UTF-8. The record keeps the exact bytes; cURL, HAR, Copy body and Download body use those.
 * No DOM here beyond the web platform's DecompressionStream and TextDecoder, so Bun's tests import
 * it too.
 */
import type { Capture } from '../../../src/model/capture';
import { isByteString, strictUtf8Reading, utf8Reading } from '../../../src/model/header-bytes';
import { HIDDEN, hiddenInValue, readableValue } from './url';
import { encodeBody } from '../../../src/model/render';

/** Shared with the cURL exports (src/model/header-bytes.ts). */
export { utf8Reading };

type Format = ConstructorParameters<typeof DecompressionStream>[0];

/** Decompression stops past this many bytes, so a zip bomb (1 MiB of gzip is ~1 GB) cannot hang the tab. */
export const DECODED_LIMIT = 10 * 1024 * 1024;

/** The DecompressionStream format for a content coding, by its HTTP name. */
const FORMATS: Record<string, string> = { gzip: 'gzip', 'x-gzip': 'gzip', deflate: 'deflate', br: 'brotli' };

/** Whether this browser's DecompressionStream takes `format` (Chromium 156 has no `brotli`). */
export function canDecompress(format: string): boolean {
  try {
    new DecompressionStream(format as Format);
    return true;
  } catch {
    return false;
  }
}

/** The codings of a `content-encoding` value, in the order applied (`identity` dropped), lower-cased. */
export function contentCodings(headers: Readonly<Record<string, string>>): string[] {
  const value = headers['content-encoding'];
  if (value === undefined) return [];
  return value
    .split(',')
    .map((c) => c.trim().toLowerCase())
    .filter((c) => c !== '' && c !== 'identity');
}

export type Decoded =
  /** `bytes` are the body before the sender compressed it. */
  | { ok: true; bytes: Uint8Array; codings: string[] }
  | { ok: false; reason: 'unsupported' | 'too-large' | 'corrupt'; message: string; codings: string[] };

/** A zlib stream (RFC 1950) starts with CMF/FLG: method 8, and the pair a multiple of 31. */
function looksLikeZlib(bytes: Uint8Array): boolean {
  const [cmf, flg] = bytes;
  return cmf !== undefined && flg !== undefined && (cmf & 0x0f) === 8 && ((cmf << 8) | flg) % 31 === 0;
}

class TooLarge extends Error {}

/** `bytes` through one DecompressionStream, reading at most `limit` bytes out. */
async function inflate(bytes: Uint8Array, format: string, limit: number): Promise<Uint8Array> {
  const stream = new Blob([bytes.slice()]).stream().pipeThrough(new DecompressionStream(format as Format));
  const reader = stream.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.length;
    if (total > limit) {
      await reader.cancel().catch(() => undefined);
      throw new TooLarge();
    }
    chunks.push(value);
  }
  const out = new Uint8Array(total);
  let at = 0;
  for (const c of chunks) {
    out.set(c, at);
    at += c.length;
  }
  return out;
}

/**
 * The body before its content codings: undone last to first (`gzip, br` was gzipped, then
 * brotli'd). `deflate` is zlib as HTTP says, or raw deflate as some senders send it. Never throws.
 */
export async function decodeBody(stored: Uint8Array, codings: string[], limit = DECODED_LIMIT): Promise<Decoded> {
  for (const coding of codings) {
    const format = FORMATS[coding];
    if (!format) return { ok: false, reason: 'unsupported', codings, message: `The body is ${coding}-encoded, which the dashboard cannot decode.` };
    if (!canDecompress(format)) return { ok: false, reason: 'unsupported', codings, message: `This browser cannot decompress ${coding} (its DecompressionStream has no ${format}).` };
  }
  let bytes = stored;
  for (const coding of [...codings].reverse()) {
    let format = FORMATS[coding] ?? coding;
    if (format === 'deflate' && !looksLikeZlib(bytes)) format = 'deflate-raw';
    try {
      bytes = await inflate(bytes, format, limit);
    } catch (e) {
      if (e instanceof TooLarge) {
        const mb = Math.round(limit / (1024 * 1024));
        return { ok: false, reason: 'too-large', codings, message: `Decompressed, the body is larger than ${mb} MB; decoding stopped there.` };
      }
      return { ok: false, reason: 'corrupt', codings, message: `The body is not valid ${coding} data: ${e instanceof Error ? e.message : String(e)}` };
    }
  }
  return { ok: true, bytes, codings };
}

/** The capture as it would read had it been sent uncompressed: its body, bodyEncoding and size from `bytes`. */
export function decodedCapture(c: Capture, bytes: Uint8Array): Capture {
  return { ...c, ...encodeBody(bytes), size: bytes.length };
}

/** The value to show: its UTF-8 reading when it has one, else as stored. */
export function headerText(value: string): string {
  return utf8Reading(value) ?? value;
}

/**
 * A header value for the Headers table: read as UTF-8 when its bytes are UTF-8, else as stored
 * (one character per byte), with what would hide or reorder it percent-escaped as the bytes that
 * arrived, as the Query table escapes its values: a UTF-8 U+202E as `%E2%80%AE` (headerText shows
 * such a value as stored, `â` then a C1 control then `®`), a lone 0x85 (a C1 control, NEL, in
 * the Latin-1 reading) as `%85`. Only the drawing: Copy as cURL and HAR send the stored bytes.
 */
export function readableHeaderValue(value: string): string {
  const text = strictUtf8Reading(value);
  if (text !== null || !isByteString(value)) return readableValue(text ?? value);
  if (!HIDDEN.test(value)) return value;
  let out = '';
  for (const ch of value) out += hiddenInValue(ch) ? `%${ch.charCodeAt(0).toString(16).toUpperCase().padStart(2, '0')}` : ch;
  return out;
}
