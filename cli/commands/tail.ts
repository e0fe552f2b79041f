/** `hookcap tail SLUG`: prints each capture as it arrives, filtered; --count and --timeout for scripts. */
import { describeMatcher, matches, type Capture, type HookcapClient, type RequestMatcher } from '../../client/index';
import { captureQuery } from '../../src/model/render';
import type { HeaderFilter } from '../../src/stores/captures/types';
import { onResume, type Backlog, type BacklogRule, type BacklogWords } from '../backlog';
import { CliError, EXIT_OK } from '../errors';
import { headerValuePattern } from '../header-match';
import { alignedLine, terminalColumns } from '../columns';
import { bytes, clock, out, pathWithQuery, printable, statusColor, type Style } from '../output';
import { canAsk } from '../prompt';
import { stopOnSignals } from '../stop-signals';
import { sinceSaid, stderrStyle, streamHooks } from '../stream-status';

const tailWords = (slug: string): BacklogWords => ({
  command: 'tail',
  ask: 'Print them',
  doing: 'printing',
  verb: 'print',
  done: 'printed',
  instead: (lastId) => `hookcap tail ${slug} --since ${lastId}`,
});

export interface TailOptions {
  since?: string;
  json: boolean;
  /** Stop after this many captures (a script waiting for a webhook). */
  count?: number;
  /** Stop after this many seconds; with `count` not reached, that is a failure (exit 1). */
  timeout?: number;
  /** Only captures with this method, path, detected event (the others are neither printed nor counted). */
  method?: string;
  path?: string;
  event?: string;
  /** Only captures whose headers pass every one of these, as search's `header` does. */
  headers?: readonly HeaderFilter[];
  /**
   * The backlog rule on a reconnect (a laptop that slept with tail running), as listen's. Unset:
   * ask on a terminal, and everything (all) elsewhere, where a script reads each capture tail prints.
   */
  backlog?: Backlog;
  maxBacklog: number;
}

/**
 * Header filters as a matcher's headers: a name alone asks for the header, a value for a
 * case-insensitive substring (a RegExp; `describeFilters` says it in words). The same name twice
 * must hold both values.
 */
export function headerMatchers(filters: readonly HeaderFilter[]): RequestMatcher['headers'] {
  const values = new Map<string, string[]>();
  for (const f of filters) values.set(f.name, [...(values.get(f.name) ?? []), ...(f.value === '' ? [] : [f.value])]);
  // No prototype: a header may be named __proto__.
  const out: NonNullable<RequestMatcher['headers']> = Object.create(null);
  for (const [name, wanted] of values) {
    const [only] = wanted;
    if (only === undefined) out[name] = true;
    else if (wanted.length === 1) out[name] = new RegExp(headerValuePattern(only), 'iu');
    else out[name] = new RegExp(wanted.map((v) => `(?=[\\s\\S]*${headerValuePattern(v)})`).join(''), 'iu');
  }
  return out;
}

/**
 * The filters in words, for the opening line and the timeout's error: `POST /stripe, header
 * x-github-event containing "push" in any case`. Header filters are said as they match (a
 * case-insensitive substring), not as the RegExp `headerMatchers` builds; a value as typed.
 */
export function describeFilters(matcher: Omit<RequestMatcher, 'headers'>, filters: readonly HeaderFilter[]): string {
  const parts = Object.values(matcher).some((v) => v !== undefined) ? [describeMatcher(matcher)] : [];
  const values = new Map<string, string[]>();
  for (const f of filters) values.set(f.name, [...(values.get(f.name) ?? []), ...(f.value === '' ? [] : [f.value])]);
  for (const [name, wanted] of values) {
    parts.push(wanted.length === 0 ? `header ${name}` : `header ${name} containing ${wanted.map((v) => JSON.stringify(v)).join(' and ')} in any case`);
  }
  return parts.length === 0 ? 'any request' : parts.join(', ');
}

/**
 * A capture as tail prints it: time, method, the status its sender was answered, size and id at
 * fixed widths, then the path and query and the detected sender and event, which vary in width.
 */
export function tailLine(c: Capture, style: Style): string {
  const status = c.responseStatus === undefined ? '' : String(c.responseStatus);
  return alignedLine(
    style,
    terminalColumns(),
    [
      { text: clock(c.receivedAt), width: 8, color: 'gray', drop: 2 },
      { text: c.method, width: 7, color: 'bold' },
      { text: status, width: 3, color: statusColor(c.responseStatus ?? 0) },
      { text: bytes(c.size), width: 9, right: true, color: 'gray', drop: 1 },
      { text: c.id, width: 30, color: 'dim' },
    ],
    [
      { text: pathWithQuery(c.path, captureQuery(c)) },
      { text: printable([c.detectedProvider, c.detectedEvent].filter((x) => x !== '').join(' ')), color: 'magenta' },
    ],
  );
}

/** Prints each capture as it arrives: time, method, path, size, detected sender and event, answered status. */
export async function tail(client: HookcapClient, slug: string, opts: TailOptions, style: Style): Promise<number> {
  // Nothing to finish: a line is printed whole as it comes, so Ctrl-C stops at once, quietly.
  const stop = stopOnSignals(() => null);
  const matcher: RequestMatcher = {
    method: opts.method,
    path: opts.path,
    event: opts.event,
    headers: opts.headers && opts.headers.length > 0 ? headerMatchers(opts.headers) : undefined,
  };
  const filtered = Object.values(matcher).some((v) => v !== undefined);
  const wanted = filtered ? matches(matcher) : () => true;
  const said = describeFilters({ method: opts.method, path: opts.path, event: opts.event }, opts.headers ?? []);
  const only = filtered ? ` (only ${said})` : '';
  const banner = opts.json ? null : `Watching ${slug}${only}${opts.since ? `, ${sinceSaid(opts.since)}` : ''}. Ctrl-C to stop.`;
  let seen = 0;
  let skipped = 0;
  let timedOut = false;
  // Why the stream is not open, while it never was: a --timeout then says so rather than "no capture".
  let opened = false;
  let failure = '';
  const hooks = streamHooks(style, banner);
  const rule: BacklogRule = { backlog: opts.backlog ?? (canAsk() ? 'ask' : 'all'), maxBacklog: opts.maxBacklog };
  const timer =
    opts.timeout === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop.stop();
        }, opts.timeout * 1000);
  try {
    const stream = client.stream(slug, {
      after: opts.since,
      signal: stop.signal,
      onResume: onResume(client, slug, rule, tailWords(slug), stderrStyle(style)),
      onOpen: (info) => {
        opened = true;
        hooks.onOpen?.(info);
      },
      onReconnect: (info) => {
        failure = info.reason;
        hooks.onReconnect?.(info);
      },
    });
    for await (const c of stream) {
      // Stopped (Ctrl-C, --timeout): what the last read brought along is not printed.
      if (stop.signal.aborted) break;
      if (!wanted(c)) {
        skipped++;
        continue;
      }
      seen++;
      if (opts.json) {
        out(JSON.stringify(c));
      } else {
        out(tailLine(c, style));
      }
      if (opts.count !== undefined && seen >= opts.count) break;
    }
  } finally {
    clearTimeout(timer);
    stop.release();
  }
  if (timedOut && opts.count !== undefined && seen < opts.count) {
    const got = `${seen === 0 ? 'no capture' : `${seen} of ${opts.count} captures`}${filtered ? ` matching ${said}` : ''}`;
    if (!opened && failure !== '') {
      throw new CliError(
        `${got} on ${slug} within ${opts.timeout} s: the stream never connected (${failure})`,
        `is hookcap running at ${client.apiUrl}? Set the address with --api-url or HOOKCAP_API_URL`,
      );
    }
    throw new CliError(`${got} on ${slug} within ${opts.timeout} s${skipped > 0 ? ` (${skipped} other${skipped === 1 ? '' : 's'} arrived)` : ''}`);
  }
  return EXIT_OK;
}
