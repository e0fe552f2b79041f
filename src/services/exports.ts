/**
 * Captures as files: one capture as a cURL command, a HAR document or the raw HTTP message, and
 * every capture of an endpoint matching the search filters as HAR or NDJSON, streamed page by
 * page so memory stays flat however many match. Visibility is the list and search calls': own and
 * team-shared endpoints, cleared captures never.
 */
import { AppError } from '../errors';
import { isCaptureId } from '../ids';
import type { Capture } from '../model/capture';
import { HAR_HEAD, HAR_TAIL, harEntryText, targetUrl, toCurl, toHar, toNdjsonLine, toRawHttp } from '../model/render';
import type { PageCursor, SearchFilter } from '../stores/captures/types';
import type { EndpointRow, UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { getReadableEndpoint, readableEndpoints, scopeOf } from './visibility';
import { pinnedIdsOf } from './pins';
import { givenOnce, parseSearchCriteria, pinnedOnly, readSearchQuery } from './search-params';

export const ONE_FORMATS = ['curl', 'har', 'raw'] as const;
export const MANY_FORMATS = ['har', 'ndjson'] as const;
export type OneFormat = (typeof ONE_FORMATS)[number];
export type ManyFormat = (typeof MANY_FORMATS)[number];

/** A file to send: its bytes (or a stream of them), type and download name. */
export interface ExportFile {
  body: string | Uint8Array | ReadableStream<Uint8Array>;
  contentType: string;
  filename: string;
}

function formatOf<T extends string>(raw: string | null, allowed: readonly T[]): T {
  const found = allowed.find((f) => f === raw);
  if (found === undefined) throw new AppError('validation', `format must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw ?? '')}`);
  return found;
}

/** Where the capture was sent: the endpoint's receiver URL, its path and query. */
const captureUrl = (ctx: Ctx, endpoint: EndpointRow, c: Capture) => targetUrl(`${ctx.config.receiverUrl}/w/${endpoint.slug}`, c);

/** One capture, rendered. 404 unless the caller may read it. */
export async function exportRequest(ctx: Ctx, user: UserRow, id: string, rawFormat: string | null): Promise<ExportFile> {
  const format = formatOf(rawFormat, ONE_FORMATS);
  if (!isCaptureId(id)) throw new AppError('not_found', 'request not found');
  const endpoints = await readableEndpoints(ctx, user);
  const capture = await ctx.captures.get(id, endpoints.map(scopeOf));
  const endpoint = capture && endpoints.find((e) => e.id === capture.endpointId);
  if (!capture || !endpoint) throw new AppError('not_found', 'request not found');
  const url = captureUrl(ctx, endpoint, capture);
  switch (format) {
    case 'curl':
      return { body: `${toCurl(capture, url)}\n`, contentType: 'text/plain; charset=utf-8', filename: `${id}.sh` };
    case 'har':
      return { body: `${JSON.stringify(toHar([{ capture, url }]))}\n`, contentType: 'application/json', filename: `${id}.har` };
    case 'raw':
      return { body: toRawHttp(capture, url), contentType: 'message/http', filename: `${id}.http` };
  }
}

/** Rows per page grow and shrink so a page holds about this many bytes of output. */
const PAGE_BYTES = 1024 * 1024;
const MIN_PAGE = 16;
/**
 * Output characters between two requests for an asynchronous garbage collection. An export makes
 * a few times its size in short-lived objects (rows, records, JSON) at disk speed, and JSC grows
 * its heap under such a burst rather than collecting. test/cli/export-100k.test.ts (119 MB of
 * HAR): the server's peak RSS rose 622 MB without these requests, 31–106 MB with them.
 */
const COLLECT_EVERY = 4 * 1024 * 1024;
const MAX_PAGE = 1000;

const encoder = new TextEncoder();

function stamp(ms: number): string {
  return new Date(ms).toISOString().replace(/[-:]/g, '').replace(/\.\d+Z$/, 'Z');
}

/**
 * Every capture of `slug` matching the filters (`q`, `header`, `method`, `from`, `to`, `pinned` as in search), oldest
 * first. The upper bound is pinned to the time of the call when `to` is not given, so an export of
 * a busy endpoint ends. Each pull reads one page (keyset, by (receivedAt, id)) only when the client
 * has taken the previous one.
 */
export async function exportRequests(ctx: Ctx, user: UserRow, slug: string, params: URLSearchParams, now = ctx.clock.now()): Promise<ExportFile> {
  const format = formatOf(params.get('format'), MANY_FORMATS);
  const criteria = parseSearchCriteria(readSearchQuery(params, ['method', 'q', 'from', 'to']), now);
  const onlyPinned = pinnedOnly(givenOnce(params, 'pinned'));
  const endpoint = await getReadableEndpoint(ctx, user, slug);
  const filter: SearchFilter = { scopes: [scopeOf(endpoint)], to: criteria.to ?? now };
  // Kept (pinned) ones only, as search's `pinned=true`: none kept is an empty export, not all of them.
  if (onlyPinned) filter.ids = await pinnedIdsOf(ctx, [endpoint.id]);
  if (criteria.method !== undefined) filter.method = criteria.method;
  if (criteria.q !== undefined) filter.q = criteria.q;
  if (criteria.headers !== undefined) filter.headers = criteria.headers;
  if (criteria.from !== undefined) filter.from = criteria.from;
  const receiverBase = `${ctx.config.receiverUrl}/w/${endpoint.slug}`;

  let cursor: PageCursor | undefined;
  let limit = MIN_PAGE;
  let written = 0;
  let done = false;
  let sinceCollect = 0;
  const render = format === 'har' ? (c: Capture) => harEntryText(c, targetUrl(receiverBase, c), written++) : toNdjsonLine;

  const body = new ReadableStream<Uint8Array>(
    {
      start(controller) {
        if (format === 'har') controller.enqueue(encoder.encode(HAR_HEAD));
      },
      async pull(controller) {
        if (done) return;
        const page = await ctx.captures.search({ ...filter, limit, offset: 0, order: 'asc', cursor });
        let text = '';
        for (const c of page) text += render(c);
        const last = page.at(-1);
        if (last) cursor = { receivedAt: last.receivedAt, id: last.id };
        if (page.length < limit) {
          done = true;
          if (format === 'har') text += HAR_TAIL;
        }
        // Size the next page from this one's bytes per row.
        if (page.length > 0) limit = Math.max(MIN_PAGE, Math.min(MAX_PAGE, Math.floor((PAGE_BYTES * page.length) / Math.max(1, text.length))));
        if (text !== '') controller.enqueue(encoder.encode(text));
        sinceCollect += text.length;
        if (sinceCollect >= COLLECT_EVERY) {
          sinceCollect = 0;
          Bun.gc(false);
        }
        if (done) controller.close();
      },
    },
    // One page waits at most; the next is read only when the client has taken it.
    { highWaterMark: 0 },
  );
  return { body, contentType: format === 'har' ? 'application/json' : 'application/x-ndjson', filename: `hookcap-${endpoint.slug}-${stamp(now)}.${format}` };
}
