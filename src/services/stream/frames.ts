/**
 * SSE wire frames. A live capture's frame is built once per bus message and the same bytes are
 * queued to every client watching the slug, so fan-out costs no parsing or encoding per client.
 */
import { idTime, isCaptureId } from '../../ids';
import type { Capture } from '../../model/capture';
import type { PageCursor } from '../../stores/captures/types';
import { isRecord } from '../../unknown';

const encoder = new TextEncoder();
const decoder = new TextDecoder();

export interface EventFrame {
  /** The capture id, sent as the SSE `id:` so a reconnect can resume after it. */
  id: string;
  /** idTime(id), which equals the record's receivedAt. */
  receivedAt: number;
  bytes: Uint8Array;
}

/** Keepalive (SPEC 6.1). */
export const PING = encoder.encode(':ping\n\n');
/** First bytes of every stream, sent once live captures will reach it: clients may start sending. */
export const OPENED = encoder.encode(':ok\n\n');

/**
 * The last bytes of a stream ended because this node lost the bus: live captures cannot reach it
 * until the bus is back. A comment, so clients that do not know it just see the stream end and
 * reconnect with Last-Event-ID (answered 503 + Retry-After until the bus is back).
 */
export const BUS_LOST = encoder.encode(':bus unavailable: live captures paused; reconnect with Last-Event-ID to catch up\n\n');

/**
 * Why a stream ended for good: its endpoint is gone, or the viewer read it through a team and no
 * longer may (left or removed, share ended, team deleted, subscription not active), so
 * reconnecting would only get a 404; or the API key or session that opened it was revoked, or the
 * session reached its expiry, so reconnecting with it would only get a 401 (a browser signs in again).
 */
export type FinalReason = 'endpoint_deleted' | 'endpoint_expired' | 'access_revoked' | 'credential_revoked' | 'session_expired';

export const isFinalReason = (reason: string): reason is FinalReason => Object.hasOwn(END_FRAMES, reason);

/**
 * The last frame of a stream ended for good: `event: end`, `data: {"reason": …}`. It has no `id:`
 * line, so the client's Last-Event-ID stays its last capture's.
 */
export const END_FRAMES: Readonly<Record<FinalReason, Uint8Array>> = {
  endpoint_deleted: encoder.encode('event: end\ndata: {"reason":"endpoint_deleted"}\n\n'),
  endpoint_expired: encoder.encode('event: end\ndata: {"reason":"endpoint_expired"}\n\n'),
  access_revoked: encoder.encode('event: end\ndata: {"reason":"access_revoked"}\n\n'),
  credential_revoked: encoder.encode('event: end\ndata: {"reason":"credential_revoked"}\n\n'),
  session_expired: encoder.encode('event: end\ndata: {"reason":"session_expired"}\n\n'),
};

const ID_LENGTH = 30;
const LEAD = encoder.encode('{"id":"');
const QUOTE = 0x22;
const TAIL = encoder.encode('\n\n');

/** A Last-Event-ID (or any capture id) as a store position; null when it is not a capture id. */
export function cursorOf(id: string): PageCursor | null {
  if (!isCaptureId(id)) return null;
  return { receivedAt: idTime(id), id };
}

/** Strictly after `cursor` in (receivedAt, id) order, the order of the capture store. */
export const isAfter = (f: EventFrame, cursor: PageCursor): boolean =>
  f.receivedAt > cursor.receivedAt || (f.receivedAt === cursor.receivedAt && f.id > cursor.id);

/**
 * The capture id of a record's JSON bytes. src/engine/capture.ts writes `id` first, so it is read
 * straight from the bytes; anything else falls back to one parse per message.
 */
function recordId(json: Uint8Array): string | null {
  const end = LEAD.length + ID_LENGTH;
  if (json.length > end && json[end] === QUOTE && LEAD.every((b, i) => json[i] === b)) {
    const id = decoder.decode(json.subarray(LEAD.length, end));
    if (isCaptureId(id)) return id;
  }
  try {
    const value: unknown = JSON.parse(decoder.decode(json));
    if (isRecord(value) && typeof value.id === 'string' && isCaptureId(value.id)) {

      return value.id;
    }
  } catch {
    // not a record: ignored below
  }
  return null;
}

function frame(id: string, json: Uint8Array): EventFrame {
  // JSON.stringify never emits a raw line break, so the record is always one `data:` line.
  const head = encoder.encode(`id: ${id}\nevent: request\ndata: `);
  const bytes = new Uint8Array(head.length + json.length + TAIL.length);
  bytes.set(head, 0);
  bytes.set(json, head.length);
  bytes.set(TAIL, head.length + json.length);
  return { id, receivedAt: idTime(id), bytes };
}

/** The frame of a bus message (a record's JSON bytes); null for a message that is not a record. */
export function frameFromJson(json: Uint8Array): EventFrame | null {
  const id = recordId(json);
  return id === null ? null : frame(id, json);
}

/** The frame of a record read back from the capture store (catch-up). */
export const frameFromCapture = (c: Capture): EventFrame => frame(c.id, encoder.encode(JSON.stringify(c)));
