/**
 * GET /api/stream/{slug}: opens a live stream of an endpoint's captures, resuming after
 * Last-Event-ID from the capture store when the client sends one.
 */
import { AppError } from '../../errors';
import { log } from '../../log';
import type { EndpointScope, PageCursor } from '../../stores/captures/types';
import type { UserRow } from '../../stores/state/schema';
import type { Ctx } from '../context';
import { getReadableEndpoint, scopeOf } from '../visibility';
import { SseConnection, type EndReason } from './connection';
import type { CredentialWatch, StreamCredential } from './credential-guard';
import { isExpired } from '../endpoints';
import type { EndpointWatch } from './endpoint-guard';
import { cursorOf, frameFromCapture, OPENED, type EventFrame } from './frames';
import type { StreamHub } from './hub';
import { errorMessage } from '../../unknown';

/** Rows per catch-up read. */
const CATCH_UP_PAGE = 500;
/**
 * Time the shipper may take beyond SHIP_MAX_AGE_MS to land a batch in the store. Catch-up reads the
 * store only once every capture acknowledged before the subscription should be there (docs/stream.md).
 * A full batch (SHIP_BATCH_ROWS, 30,000) at a node's peak takes ~0.3 s to write and insert here.
 */
const SHIP_INSERT_MARGIN_MS = 500;

export interface OpenStreamInput {
  user: UserRow;
  /** The API key or session that opened the stream: it ends when that is revoked or expires. */
  credential: StreamCredential | null;
  slug: string;
  /** The Last-Event-ID header; null when absent. */
  lastEventId: string | null;
  /** Aborts when the client goes away. */
  signal: AbortSignal;
  /** See ConnectionOptions.onServerEnd. */
  onServerEnd?: (reason: EndReason) => void;
  /** Called once when the stream ends, whoever ends it (releases a stream slot). */
  onEnd?: (reason: EndReason) => void;
}

export async function openStream(ctx: Ctx, hub: StreamHub, input: OpenStreamInput): Promise<ReadableStream<Uint8Array>> {
  // Watched before the permission read, so a deletion committed after that read still ends it.
  const lifecycle = ctx.streams.endpoints.watch(input.slug);
  // Registered before the stream subscribes; it re-checks the credential once attached.
  const credential = input.credential === null ? null : ctx.streams.credentials.watch(input.user.id, input.credential);
  try {
    return await start(ctx, hub, input, lifecycle, credential);
  } catch (err) {
    lifecycle.cancel();
    credential?.cancel();
    throw err;
  }
}

async function start(
  ctx: Ctx,
  hub: StreamHub,
  input: OpenStreamInput,
  lifecycle: EndpointWatch,
  credential: CredentialWatch | null,
): Promise<ReadableStream<Uint8Array>> {
  const endpoint = await getReadableEndpoint(ctx, input.user, input.slug);
  // The receiver refuses an expired endpoint's captures; its stream is as gone.
  if (isExpired(endpoint, ctx.clock.now())) throw new AppError('not_found', 'endpoint not found');
  const after = parseLastEventId(input.lastEventId);
  const scope = scopeOf(endpoint);
  const conn = new SseConnection({
    buffer: ctx.config.stream.clientBuffer,
    bufferBytes: ctx.config.stream.clientBufferBytes,
    since: scope.since,
    holding: after !== null,
    onServerEnd: input.onServerEnd,
  });
  // Subscribe before reading the store, so nothing published meanwhile can fall between the two.
  const leave = await hub.join(endpoint.id, conn);
  const subscribedAt = ctx.clock.now();
  conn.onEnd(leave);
  conn.onEnd(lifecycle.cancel);
  if (input.onEnd) conn.onEnd(input.onEnd);
  // Deleted or expired, on any node: the stream ends with a final `event: end`.
  lifecycle.attach(endpoint, (reason) => conn.end(reason));
  // Its API key or session revoked, on any node, or its session expired: the stream ends with
  // `event: end` too. With the whole account gone, its own endpoints are gone in the same commit:
  // the reason the endpoint guard gives, whichever of the two hears first.
  if (credential !== null) {
    conn.onEnd(credential.cancel);
    const owner = endpoint.userId === input.user.id;
    credential.attach((loss) =>
      conn.end(loss === 'expired' ? 'session_expired' : loss === 'account_deleted' && owner ? 'endpoint_deleted' : 'credential_revoked'),
    );
  }
  // A viewer reading through a team loses the stream the moment that access ends, on any node,
  // told why (`access_revoked`): reconnecting would only get a 404.
  if (endpoint.userId !== input.user.id) {
    conn.onEnd(ctx.streams.teams.watch({ endpointId: endpoint.id, user: input.user, slug: input.slug }, () => conn.end('access_revoked')));
  }
  input.signal.addEventListener('abort', () => conn.end('client'), { once: true });
  if (input.signal.aborted) conn.end('client');
  conn.push(OPENED);
  // Back on the node it left within STREAM_RESUME_MS: resume from what this node delivered.
  const recent = after !== null ? hub.framesAfter(endpoint.id, after.id) : null;
  if (after !== null) {
    const settleMs = ctx.config.shipMaxAgeMs + SHIP_INSERT_MARGIN_MS;
    // The closures below live as long as the stream: they capture the id, not the whole row.
    const endpointId = endpoint.id;
    const sending =
      recent !== null ? resume(ctx, conn, scope, after, recent, settleMs) : catchUp(ctx, conn, scope, after, subscribedAt + settleMs, settleMs);
    sending.catch((err: unknown) => {
      log.warn('stream catch-up failed', { endpointId, error: errorMessage(err) });
      conn.end('error');
    });
  }
  return conn.stream;
}

function parseLastEventId(raw: string | null): PageCursor | null {
  const id = raw?.trim();
  if (!id) return null;
  const cursor = cursorOf(id);
  if (cursor === null) throw new AppError('validation', 'Last-Event-ID must be a capture id (req_…) this stream sent');
  return cursor;
}

/**
 * Sends the frames this node delivered after the client's last event, in the order it delivered
 * them, then the live events held meanwhile that are not among them. Nothing is read from the
 * store: arrival order, not store order, is what the client's Last-Event-ID points into.
 */
async function resume(ctx: Ctx, conn: SseConnection, scope: EndpointScope, after: PageCursor, frames: EventFrame[], settleMs: number): Promise<void> {
  let last = after;
  const send = async (batch: EventFrame[]) => {
    for (const f of batch) {
      if (conn.isEnded) return;
      // Cleared since it was delivered: the watermark hides it, as the store read would.
      if (f.receivedAt > scope.since) await conn.replay(f);
      last = f;
    }
  };
  await send(frames);
  // Then what arrived meanwhile, at the client's pace, until nothing is left to hold.
  for (let held = conn.takeHeld(); held.length > 0 && !conn.isEnded; held = conn.takeHeld()) await send(held);
  // Live events came faster than the client took these and some were forgotten: read them back
  // from the store, as a catch-up does.
  if (conn.restartHolding()) return catchUp(ctx, conn, scope, last, ctx.clock.now() + settleMs, settleMs);
  conn.goLive(null);
}

/**
 * Sends what the client missed after `after`, then the live events held meanwhile, each once.
 * The store is read only from `readAt` on: a capture acknowledged just before the subscription
 * reached neither the subscription nor, yet, the store; by then the shipper has landed it.
 */
async function catchUp(ctx: Ctx, conn: SseConnection, scope: EndpointScope, after: PageCursor, readAt: number, settleMs: number): Promise<void> {
  let cursor = after;
  let wakeAt = readAt;
  for (;;) {
    const wait = wakeAt - ctx.clock.now();
    if (wait > 0) await Bun.sleep(wait);
    for (;;) {
      if (conn.isEnded) return;
      const page = await ctx.captures.listAfter(scope, cursor, CATCH_UP_PAGE);
      for (const c of page) {
        if (conn.isEnded) return;
        await conn.replay(frameFromCapture(c));
        cursor = { receivedAt: c.receivedAt, id: c.id };
      }
      if (page.length < CATCH_UP_PAGE) break;
    }
    // Live events were forgotten while catching up (too many to hold): read them back from the
    // store once they have reached it.
    if (!conn.restartHolding()) break;
    wakeAt = ctx.clock.now() + settleMs;
  }
  conn.goLive(after);
}
