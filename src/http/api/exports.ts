/** Export one capture or many, and replay one: the routes behind the CLI and the dashboard. */
import { Elysia, t } from 'elysia';
import { ReplayInputSchema, ReplayResultSchema } from '../../model/replay';
import type { Ctx } from '../../services/context';
import { exportRequest, exportRequests, MANY_FORMATS, ONE_FORMATS, type ExportFile } from '../../services/exports';
import { replayRequest } from '../../services/replay';
import { MAX_Q_LENGTH } from '../../services/search-params';
import { authMacro } from '../auth';
import { headerParam } from './search';
import { AUTH_ERRORS, documented, documentedErrors, errors } from './models';

/** A download: its bytes, in the format asked for. */
const FILE = t.String({ format: 'binary' });

const TIME = 'a duration back from now (30s, 15m, 2h, 7d, 1w), ms since the epoch, or ISO 8601 (no zone = UTC)';

/**
 * A download. Captured content is chosen by strangers, so it is never rendered or sniffed, even
 * when a browser opens the URL with the session cookie.
 */
function download(file: ExportFile): Response {
  // Bun takes any Uint8Array; the DOM library's BodyInit (the dashboard's typecheck reads this file) wants ArrayBuffer-backed ones.
  return new Response(file.body as RequestInit['body'], {
    headers: {
      'content-type': file.contentType,
      'content-disposition': `attachment; filename="${file.filename}"`,
      'x-content-type-options': 'nosniff',
      'content-security-policy': 'sandbox',
      'cache-control': 'no-store',
    },
  });
}

export const exportRoutes = (ctx: Ctx) => {
  const allow = ctx.config.outboundAllow;
  return new Elysia({ prefix: '/api', detail: { tags: ['requests'] } })
    .use(authMacro(ctx))
    .get(
      '/requests/:id/export',
      async ({ user, params, request }) =>
        download(await exportRequest(ctx, user, params.id, new URL(request.url).searchParams.get('format'))),
      {
        auth: 'account',
        query: t.Object({ format: t.String({ description: ONE_FORMATS.join(' | ') }) }),
        detail: {
          summary: 'One captured request as a cURL command, a HAR 1.2 document or the raw HTTP/1.1 message',
          description:
            '`curl`: a shell command (text/plain) that sends the exact body bytes with `--data-binary @-`. `har`: HAR 1.2 ' +
            '(application/json; a body that is not UTF-8 is base64 in postData.text with `_encoding: "base64"`). `raw`: ' +
            '`message/http`. Sent as an attachment.',
          responses: documented({
            200: { description: 'The rendered capture (curl: text/plain; har: application/json; raw: message/http)', schema: FILE, type: 'application/octet-stream' },
            ...documentedErrors(400, ...AUTH_ERRORS, 404),
          }),
        },
      },
    )
    .get(
      '/endpoints/:slug/requests/export',
      async ({ user, params, request }) =>
        download(await exportRequests(ctx, user, params.slug, new URL(request.url).searchParams)),
      {
        auth: 'account',
        query: t.Object({
          format: t.String({ description: MANY_FORMATS.join(' | ') }),
          method: t.Optional(t.String({ description: 'HTTP method, any case' })),
          q: t.Optional(t.String({ description: `Case-insensitive text in path, body, header values or query string (≤ ${MAX_Q_LENGTH} chars)` })),
          header: headerParam(),
          from: t.Optional(t.String({ description: `Earliest receivedAt, inclusive: ${TIME}` })),
          to: t.Optional(t.String({ description: `Latest receivedAt, inclusive: ${TIME}. Default: the time of the call` })),
          pinned: t.Optional(t.String({ description: '`true`: the kept (pinned) ones only, as search takes it' })),
        }),
        detail: {
          summary: "Every captured request of the endpoint matching the filters, oldest first, as one HAR 1.2 file or NDJSON",
          description:
            'Streamed page by page (memory stays flat however many match); `Content-Disposition: attachment`. `ndjson`: one request ' +
            'record per line. `har`: one entry per line between the document\'s first and last lines.',
          responses: documented({
            200: { description: 'The export (ndjson: application/x-ndjson; har: application/json)', schema: FILE, type: 'application/octet-stream' },
            ...documentedErrors(400, ...AUTH_ERRORS, 404),
          }),
        },
      },
    )
    .post(
      '/requests/:id/replay',
      ({ user, params, body }) => replayRequest(ctx, user, params.id, body, allow),
      {
        auth: 'account',
        body: ReplayInputSchema,
        response: { 200: ReplayResultSchema, ...errors(400, ...AUTH_ERRORS, 404, 502) },
        detail: {
          summary: 'Send a captured request again, from the server, to a URL; returns what the target answered',
          description:
            'Same method, the captured headers (less host, content-length and hop-by-hop ones) with your changes, the exact body ' +
            "bytes (or yours). Goes through the outbound guard: private, loopback and metadata addresses are refused (400 " +
            '`address_not_public`; a URL that is not http(s) is 400 `validation`) unless ' +
            `OUTBOUND_ALLOW lists them; redirects are returned, not followed; ${ctx.config.replayTimeoutMs} ms for the whole exchange. ` +
            'A target that does not answer → 502 `bad_gateway`. To reach localhost, use the CLI (`hookcap replay`), which sends from your machine.',
        },
      },
    );
};
