/**
 * POST /api/requests/{id}/replay: sends a stored capture again, from the server, to a URL the
 * caller names, through the outbound guard (src/net/) like notifications: no private, loopback or
 * metadata address unless OUTBOUND_ALLOW lists it, every redirect returned rather than followed.
 * The CLI's replay sends from the user's machine instead, so it can reach localhost.
 */
import { isFieldValue } from '../engine/receiver-headers';
import { AppError } from '../errors';
import { encodeBody, NOT_FORWARDED, rebuildRequest } from '../model/render';
import type { ReplayInput, ReplayResult } from '../model/replay';
import type { AllowList } from '../net/allow';
import { OutboundError, sendOutbound } from '../net/outbound';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { getRequest } from './requests';
import { errorMessage } from '../unknown';

/** The most of a target's answer kept and returned. */
export const REPLAY_BODY_BYTES = 64 * 1024;

const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
const MAX_HEADERS = 100;

function applyHeaders(base: Record<string, string>, changes: Record<string, string | null>): Record<string, string> {
  const entries = Object.entries(changes);
  if (entries.length > MAX_HEADERS) throw new AppError('validation', `headers: at most ${MAX_HEADERS}`);
  const out = { ...base };
  for (const [given, value] of entries) {
    const name = given.toLowerCase();
    if (!TOKEN.test(name)) throw new AppError('validation', `headers: "${given}" is not a valid header name`);
    if (NOT_FORWARDED.has(name)) throw new AppError('validation', `headers: "${name}" is set by the HTTP client and cannot be given`);
    if (value === null) {
      delete out[name];
      continue;
    }
    // fetch throws on anything else (a non-Latin-1 value was a 500).
    if (!isFieldValue(value)) throw new AppError('validation', `headers["${given}"] must be one line of Latin-1 text (no line breaks or control characters)`);
    out[name] = value;
  }
  return out;
}

function replayBody(input: ReplayInput, captured: Uint8Array): Uint8Array {
  if (input.body === undefined) return captured;
  if (input.bodyEncoding !== 'base64') return new TextEncoder().encode(input.body);
  const bytes = Buffer.from(input.body, 'base64');
  if (bytes.toString('base64') !== input.body.replace(/\s+/g, '')) throw new AppError('validation', 'body is not valid base64');
  return new Uint8Array(bytes);
}

/** Reads at most `max` bytes of a body, then lets the rest go. */
async function readBounded(body: ReadableStream<Uint8Array> | null, max: number): Promise<{ bytes: Uint8Array; truncated: boolean }> {
  if (!body) return { bytes: new Uint8Array(0), truncated: false };
  const chunks: Uint8Array[] = [];
  let size = 0;
  const reader = body.getReader();
  for (;;) {
    const { done, value } = await reader.read();
    if (done) return { bytes: Buffer.concat(chunks), truncated: false };
    if (size + value.length > max) {
      chunks.push(value.subarray(0, max - size));
      await reader.cancel().catch(() => {});
      return { bytes: Buffer.concat(chunks), truncated: true };
    }
    chunks.push(value);
    size += value.length;
  }
}

export async function replayRequest(ctx: Ctx, user: UserRow, id: string, input: ReplayInput, allow: AllowList): Promise<ReplayResult> {
  const capture = await getRequest(ctx, user, id);
  const rebuilt = rebuildRequest(capture, input.url);
  const headers = applyHeaders(rebuilt.headers, input.headers ?? {});
  const body = replayBody(input, rebuilt.body);
  if ((rebuilt.method === 'GET' || rebuilt.method === 'HEAD') && body.length > 0) {
    throw new AppError('validation', `the capture is a ${rebuilt.method} with a body, which the server's HTTP client cannot send; replay it with the CLI`);
  }
  const started = performance.now();
  let response: Response;
  try {
    ({ response } = await sendOutbound(
      { url: input.url, method: rebuilt.method, headers, body: body.length > 0 ? body : undefined },
      { allow, timeoutMs: ctx.config.replayTimeoutMs, maxRedirects: 0 },
    ));
  } catch (err) {
    if (!(err instanceof OutboundError)) throw err;
    if (err.kind === 'invalid_url') throw new AppError('validation', `url: ${err.message}`);
    if (err.kind === 'blocked') {
      throw new AppError('address_not_public', `url: ${err.message} (to reach your own machine, replay with the CLI: hookcap replay ${id} --to URL)`);
    }
    throw new AppError('bad_gateway', `the target did not answer: ${err.message}`);
  }
  const headersMs = performance.now() - started;
  let read: { bytes: Uint8Array; truncated: boolean };
  try {
    // The outbound timeout covers the body too.
    read = await readBounded(response.body, REPLAY_BODY_BYTES);
  } catch (err) {
    throw new AppError('bad_gateway', `the target's answer broke off: ${errorMessage(err)}`);
  }
  const totalMs = performance.now() - started;
  return {
    url: input.url,
    status: response.status,
    headers: Object.fromEntries(response.headers),
    ...encodeBody(read.bytes),
    truncated: read.truncated,
    timing: { headersMs: Math.round(headersMs * 10) / 10, totalMs: Math.round(totalMs * 10) / 10 },
  };
}
