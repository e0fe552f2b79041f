/**
 * GET /api/stream/:slug — Server-Sent Events (SPEC 4.3, 6.1). Served by nodes with the `stream`
 * role. Errors before the stream starts (401, 403, 404, 400, 503) are the usual `{error}` JSON.
 */
import { Elysia, t } from 'elysia';
import type { Ctx } from '../services/context';
import type { EndReason } from '../services/stream/connection';
import { streamCredentialOf } from '../services/stream/credential-guard';
import type { StreamHub } from '../services/stream/hub';
import { isFinalReason } from '../services/stream/frames';
import { openStream } from '../services/stream/open';
import { AUTH_ERRORS, documented, documentedErrors } from './api/models';
import { authMacro } from './auth';
import { credentialOf, StreamQuota } from './stream-quota';

const SSE_HEADERS = {
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  // nginx would otherwise buffer the stream.
  'x-accel-buffering': 'no',
};

/**
 * Seconds a socket gets to drain its last bytes once the server has ended its stream: a client at
 * its time limit, or told its endpoint or credential is gone, gets a while; a dropped one, or any
 * at shutdown, next to none.
 */
const drainSeconds = (reason: EndReason) => (reason === 'expired' || isFinalReason(reason) ? 10 : 1);

/** The part of Bun's Server this route uses. */
interface TimeoutServer {
  timeout(request: Request, seconds: number): void;
}

export const streamRoutes = (ctx: Ctx, hub: StreamHub) => {
  const quota = new StreamQuota(ctx.config.stream.caps);
  return new Elysia({ prefix: '/api', detail: { tags: ['stream'] } }).use(authMacro(ctx)).get(
    '/stream/:slug',
    async ({ user, principal, params, request, server }) => {
      const srv: TimeoutServer | null = server;
      const release = quota.acquire(credentialOf(principal), user.id);
      try {
        const stream = await openStream(ctx, hub, {
          user,
          credential: streamCredentialOf(principal),
          slug: params.slug,
          lastEventId: request.headers.get('last-event-id'),
          signal: request.signal,
          // Bun's idle timeout does not count writes, so it is off while streaming (pings keep
          // proxies awake) and back on once the server ends the stream, to close stuck sockets.
          onServerEnd: (reason) => srv?.timeout(request, drainSeconds(reason)),
          onEnd: release,
        });
        srv?.timeout(request, 0);
        return new Response(stream, { headers: SSE_HEADERS });
      } catch (err) {
        release();
        throw err;
      }
    },
    {
      auth: 'account',
      detail: {
        summary: 'Live captures as Server-Sent Events',
        responses: documented({
          200: { description: 'The event stream', schema: t.String({ description: 'text/event-stream' }), type: 'text/event-stream' },
          ...documentedErrors(400, ...AUTH_ERRORS, 404, 503),
        }),
        description:
          'Each capture is `event: request` with `id: <capture id>` and `data: <request record JSON>`. A `:ping` comment is sent every ' +
          `${ctx.config.stream.pingMs / 1000} s; the stream ends after ${ctx.config.stream.maxMs / 60_000} min. Reconnect with ` +
          '`Last-Event-ID` to receive what was missed first. When the endpoint is deleted or expires, a last `event: end` with ' +
          '`data: {"reason":"endpoint_deleted"}` (or `"endpoint_expired"`) ends the stream; do not reconnect. When the API key or ' +
          'session that opened the stream is revoked (key deleted, log-out, account deleted), the stream ends within a moment ' +
          'with `data: {"reason":"credential_revoked"}`; reconnecting with it gets 401. When the session that opened it reaches ' +
          'its expiry, the stream ends with `data: {"reason":"session_expired"}`: sign in again. When the caller reads the endpoint ' +
          'through a team and that access ends (left or removed, unshared, team deleted, subscription not active), it ends with ' +
          '`data: {"reason":"access_revoked"}`; reconnecting gets 404. ' +
          'Auth: Bearer key or the session cookie (EventSource). ' +
          `At most ${ctx.config.stream.caps.perCredential} open streams per key or session and ${ctx.config.stream.caps.perAccount} per account on one node; beyond that 429 \`too_many_streams\`.`,
      },
    },
  );
};
