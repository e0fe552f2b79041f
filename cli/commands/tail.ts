/** `hookcap tail SLUG`: prints each capture as it arrives, filtered; --count and --timeout for scripts. */
import type { Capture, HookcapClient } from '../../client/index';
import { captureQuery } from '../../src/model/render';
import { onResume, type Backlog, type BacklogRule, type BacklogWords } from '../backlog';
import { CliError, EXIT_OK } from '../errors';
import { captureFilter, type CaptureFilterOptions } from '../capture-filter';
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

export interface TailOptions extends CaptureFilterOptions {
  since?: string;
  json: boolean;
  /** Stop after this many captures (a script waiting for a webhook). */
  count?: number;
  /** Stop after this many seconds; with `count` not reached, that is a failure (exit 1). */
  timeout?: number;
  /**
   * The backlog rule on a reconnect (a laptop that slept with tail running), as listen's. Unset:
   * ask on a terminal, and everything (all) elsewhere, where a script reads each capture tail prints.
   */
  backlog?: Backlog;
  maxBacklog: number;
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
  // Captures the filters leave out are neither printed nor counted.
  const { wanted, said } = captureFilter(opts);
  const only = said !== null ? ` (only ${said})` : '';
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
    const got = `${seen === 0 ? 'no capture' : `${seen} of ${opts.count} captures`}${said !== null ? ` matching ${said}` : ''}`;
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
