/**
 * `hookcap listen SLUG --forward URL` (and `forward SLUG URL`): follows the endpoint's live stream
 * and re-sends every capture to URL + its path, byte for byte, in order. Remembers the last capture
 * it handled per slug, so a restart (or a dropped connection) resumes with Last-Event-ID and every
 * capture reaches the local app once, oldest first. `hookcap tail SLUG` prints captures instead.
 */
import { describeMatcher, matches, type Capture, type CaptureStream, type HookcapClient, type RequestMatcher, type StreamOptions } from '../../client/index';
import { captureIdFloor, idTime } from '../../src/ids';
import { captureQuery, rebuildRequest, targetUrl } from '../../src/model/render';
import type { HeaderFilter } from '../../src/stores/captures/types';
import { loadResume, saveResume, type Settings } from '../config';
import { deliver, DeliveryError } from '../deliver';
import { headerValuePattern } from '../header-match';
import { CliError, EXIT_OK } from '../errors';
import { bytes, clock, err, onStdoutClosed, out, paint, pathWithQuery, statusColor, type Style } from '../output';
import { ask, canAsk, count } from '../prompt';

export interface ListenOptions {
  forward: string;
  concurrency: number;
  retries: number;
  /** Seconds per attempt. */
  timeout: number;
  /** A Last-Event-ID to start after (from --since). */
  since?: string;
  /** Accept the local app's self-signed HTTPS certificate. */
  insecure?: boolean;
  resume: boolean;
  /**
   * What to do when resuming finds more than `maxBacklog` captures waiting: ask (on a terminal;
   * elsewhere skip), forward them all, only the newest `maxBacklog`, or skip to live.
   */
  backlog: Backlog;
  maxBacklog: number;
  json: boolean;
}

export const BACKLOG_CHOICES = ['ask', 'all', 'newest', 'skip'] as const;
export type Backlog = (typeof BACKLOG_CHOICES)[number];

/** How often a refused app is tried again at most (a local port: cheap to knock on). */
const REFUSED_POLL_MS = 2_000;

/** Retry delays: 0.5 s, 1 s, 2 s … capped at 10 s. */
export const retryDelayMs = (attempt: number) => Math.min(10_000, 500 * 2 ** (attempt - 1));

function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(resolve, ms);
    signal.addEventListener('abort', () => {
      clearTimeout(timer);
      resolve();
    });
  });
}

/**
 * Ctrl-C (or SIGTERM, or stdout's reader going away) stops taking new captures and lets the ones
 * in flight finish; a second signal exits at once. Returns the signal, `stop` (the same stop, for
 * --count and --timeout) and `release`, which removes the handlers.
 */
function stopOnSignals(what: string): { signal: AbortSignal; stop(): void; release(): void } {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    err(`stopping: finishing ${what} in flight (Ctrl-C again to quit now)`);
    stop.abort();
  };
  process.on('SIGINT', onSignal);
  process.on('SIGTERM', onSignal);
  // Whoever read the output has stopped (`| head -n 1`): stop the same way, quietly.
  const releaseStdout = onStdoutClosed(() => stop.abort());
  return {
    signal: stop.signal,
    stop: () => stop.abort(),
    release() {
      process.off('SIGINT', onSignal);
      process.off('SIGTERM', onSignal);
      releaseStdout();
    },
  };
}

/** A time as the user reads it: the clock today, ISO 8601 further back. */
const when = (ms: number) => (Date.now() - ms < 86_400_000 ? clock(ms) : new Date(ms).toISOString());

/** `--since` in words: a time (`--since 15m` is the floor id of that ms) or a capture id. */
function sinceSaid(since: string): string {
  const ms = idTime(since);
  return since === captureIdFloor(ms) ? `starting at ${when(ms)}` : `starting after ${since}`;
}

/** Where a stream starts, said in words for the first status line. */
interface Start {
  after?: string;
  said: string;
}

/**
 * The most `--backlog newest` can skip to: the newest N are found with a search offset of N, and
 * the server refuses offsets over SEARCH_MAX_OFFSET (10,000 by default). A larger --max-backlog
 * with `--backlog newest` is a usage error; with `ask`, the question then offers y/N only.
 */
export const MAX_NEWEST = 10_000;

/** A backlog found: `lastId` is where forwarding stopped, `waiting` how many captures came after it. */
interface BacklogFound {
  lastId: string;
  waiting: number;
  /** At start: "while listen was stopped"; on a reconnect: "while listen was disconnected". */
  stopped: boolean;
  /** The rest of the question's first line, in brackets. */
  context: string;
}

/** The backlog rule's settings: --backlog and --max-backlog, as listen and tail take them. */
export interface BacklogRule {
  backlog: Backlog;
  maxBacklog: number;
}

/** How a command words its backlog: listen forwards captures, tail prints them. */
interface BacklogWords {
  command: 'listen' | 'tail';
  /** The question's verb and object: "Forward them to URL", "Print them". */
  ask: string;
  /** "forwarding", "printing". */
  doing: string;
  /** "forward", "print". */
  verb: string;
  /** "forwarded", "printed". */
  done: string;
  /** What else the user can run to get what was passed over. */
  instead: (lastId: string) => string;
}

const listenWords = (opts: ListenOptions): BacklogWords => ({
  command: 'listen',
  ask: `Forward them to ${opts.forward}`,
  doing: 'forwarding',
  verb: 'forward',
  done: 'forwarded',
  instead: (lastId) => `--since ${lastId}`,
});

const tailWords = (slug: string): BacklogWords => ({
  command: 'tail',
  ask: 'Print them',
  doing: 'printing',
  verb: 'print',
  done: 'printed',
  instead: (lastId) => `hookcap tail ${slug} --since ${lastId}`,
});

/**
 * What to do with more than --max-backlog captures waiting, at start or on a reconnect: forward
 * (or print) them only when asked for (--backlog all or newest, or a yes on a terminal); otherwise
 * go live and one line on stderr says how to get what was passed over. Returns where to start.
 */
async function chooseBacklog(client: HookcapClient, slug: string, rule: BacklogRule, words: BacklogWords, errStyle: Style, b: BacklogFound): Promise<Start> {
  const { lastId, waiting } = b;
  const meanwhile = b.stopped ? `while ${words.command} was stopped` : `while ${words.command} was disconnected`;
  // Live means after the newest capture now, so what arrives while the question waits is live.
  const newest = await client.newestId(slug);
  let choice: Backlog = rule.backlog;
  const asking = choice === 'ask' && canAsk();
  if (asking) {
    const offerNewest = rule.maxBacklog <= MAX_NEWEST;
    err(`${count(waiting)} captures arrived on ${slug} ${meanwhile} (${b.context}).`);
    const answer = await ask(
      `${words.ask}? y: all ${count(waiting)}, oldest first · N: none, ${b.stopped ? 'start' : 'go on'} live` +
        (offerNewest ? ` · newest: the newest ${count(rule.maxBacklog)} [y/N/newest] ` : ' [y/N] '),
    );
    choice = answer === 'y' || answer === 'yes' ? 'all' : answer === 'newest' && offerNewest ? 'newest' : 'skip';
  } else if (choice === 'ask') {
    // No one to ask (CI, a pipe, stderr to a file): never block; skip, and say so.
    choice = 'skip';
  }
  if (choice === 'skip' && !asking) {
    err(
      paint(
        errStyle,
        'yellow',
        `not ${words.doing} the ${count(waiting)} captures that arrived ${meanwhile} (more than --max-backlog ${rule.maxBacklog}); ${b.stopped ? 'starting' : 'going on'} live.`,
      ) + ` To ${words.verb} them: --backlog all (or newest), or ${words.instead(lastId)}`,
    );
  }
  if (choice === 'all') return { after: lastId, said: `resuming after ${lastId}: all ${count(waiting)} captures received meanwhile, then live` };
  if (choice === 'newest') {
    if (rule.maxBacklog === 0) return { after: newest, said: 'from now on' };
    // The capture just older than the newest --max-backlog: the stream starts after it.
    const [before] = await client.search({ slug, order: 'desc', limit: 1, offset: rule.maxBacklog });
    const after = before && before.id > lastId ? before.id : lastId;
    return { after, said: `the newest ${count(rule.maxBacklog)} of the ${count(waiting)} captures received meanwhile, then live` };
  }
  return { after: newest, said: `from now on (${count(waiting)} captures after ${lastId} not ${words.done})` };
}

/**
 * Where a stream starts: after --since, else after the saved position, else live. Resuming with
 * more than --max-backlog captures waiting (a laptop back after a weekend) is a backlog
 * (`chooseBacklog`).
 */
async function startPoint(client: HookcapClient, slug: string, settings: Settings, opts: ListenOptions, errStyle: Style): Promise<Start> {
  if (opts.since) return { after: opts.since, said: sinceSaid(opts.since) };
  const saved = opts.resume ? loadResume(slug) : null;
  if (!saved || (saved.apiUrl !== '' && saved.apiUrl !== settings.apiUrl)) return { said: 'from now on' };
  const handledAt = `handled at ${when(saved.savedAt)}`;
  const resumed: Start = { after: saved.lastId, said: `resuming after ${saved.lastId} (${handledAt})` };
  if (opts.backlog === 'all') return resumed;
  // Captures received after the saved one's millisecond (a later one in that same millisecond is
  // not counted: the count only decides whether to ask).
  const waiting = await client.count({ slug, from: idTime(saved.lastId) + 1 });
  if (waiting <= opts.maxBacklog) return resumed;
  return chooseBacklog(client, slug, opts, listenWords(opts), errStyle, { lastId: saved.lastId, waiting, stopped: true, context: `the last one forwarded was ${handledAt}` });
}

/**
 * The same rule on a reconnect: a laptop that slept with listen (or tail) running finds its stream
 * ended and, on waking, more than --max-backlog captures after the last one it received. Returns
 * the capture id to resume after instead, or nothing to resume where the stream left off.
 */
function onResume(client: HookcapClient, slug: string, rule: BacklogRule, words: BacklogWords, errStyle: Style): StreamOptions['onResume'] {
  if (rule.backlog === 'all') return undefined;
  return async ({ after, waiting }) => {
    const n = await waiting();
    if (n <= rule.maxBacklog) return;
    // The client notices a lost connection only once the laptop wakes: the last capture's own time
    // says how long ago it was.
    const at = idTime(after);
    const context = at > 0 ? `the last one received came at ${when(at)}` : 'none had come before';
    const start = await chooseBacklog(client, slug, rule, words, errStyle, { lastId: after, waiting: n, stopped: false, context });
    err(paint(errStyle, 'dim', `reconnecting: ${start.said}`));
    return start.after;
  };
}

/** The style of status lines: coloured only when stderr is a terminal too (not `2> listen.log`). */
const stderrStyle = (style: Style): Style => ({ color: style.color && process.stderr.isTTY === true });

/** Status lines on stderr: `banner` once the stream is first open (from then on nothing is missed). */
function streamHooks(stdoutStyle: Style, banner: string | null): Pick<StreamOptions, 'onOpen' | 'onReconnect'> {
  const style = stderrStyle(stdoutStyle);
  return {
    onOpen: ({ reconnects }) => {
      if (reconnects === 0) {
        if (banner !== null) err(banner);
      } else err(paint(style, 'dim', 'reconnected'));
    },
    onReconnect: ({ reason, delayMs }) => {
      // The server ends every stream after 30 minutes: routine, reconnected at once and quietly.
      if (delayMs > 0) err(paint(style, 'yellow', `connection lost (${reason}); reconnecting in ${(delayMs / 1000).toFixed(1)} s`));
    },
  };
}

interface Outcome {
  /** false: stopped before the capture was handled (it is forwarded again next time). */
  handled: boolean;
}

export async function listen(client: HookcapClient, settings: Settings, slug: string, opts: ListenOptions, style: Style): Promise<number> {
  const errStyle = stderrStyle(style);
  const start = await startPoint(client, slug, settings, opts, errStyle);
  const stop = stopOnSignals('forwards');
  /** A configuration error that every capture would meet (a refused certificate): listen stops with it. */
  let fatal: CliError | null = null;

  const report = (c: Capture, url: string, line: { status: number | null; latencyMs: number | null; attempts: number; error?: string }) => {
    const path = pathWithQuery(c.path, captureQuery(c));
    if (opts.json) {
      const latencyMs = line.latencyMs === null ? null : Math.round(line.latencyMs * 10) / 10;
      out(JSON.stringify({ id: c.id, receivedAt: c.receivedAt, method: c.method, path, url, ...line, latencyMs, ok: line.status !== null && line.status < 500 && !line.error }));
      return;
    }
    const head = `${paint(style, 'gray', clock(c.receivedAt))}  ${paint(style, 'bold', c.method.padEnd(6))} ${path}`;
    const tries = line.attempts > 1 ? paint(style, 'gray', ` (${line.attempts} attempts)`) : '';
    if (line.status !== null && line.status < 500 && !line.error) {
      out(`${head}  → ${paint(style, statusColor(line.status), String(line.status))}  ${Math.round(line.latencyMs ?? 0)} ms${tries}`);
    } else {
      const what = line.status !== null ? `answered ${line.status}` : (line.error ?? 'failed');
      out(`${head}  ${paint(style, 'red', `✗ ${what}`)}${tries} · resend with: hookcap replay ${c.id} --to '${url}'${opts.insecure ? ' --insecure' : ''}`);
    }
  };

  const forwardOne = async (c: Capture): Promise<Outcome> => {
    const url = targetUrl(opts.forward, c);
    const request = rebuildRequest(c, url);
    let retries = 0;
    let waitingSaid = false;
    for (let attempt = 1; ; attempt++) {
      let failure: string;
      let status: number | null = null;
      let latencyMs: number | null = null;
      try {
        const answer = await deliver(request, { timeoutMs: opts.timeout * 1000, insecure: opts.insecure === true });
        if (answer.status < 500) {
          report(c, url, { status: answer.status, latencyMs: answer.latencyMs, attempts: attempt });
          return { handled: true };
        }
        status = answer.status;
        latencyMs = answer.latencyMs;
        failure = `answered ${answer.status}`;
      } catch (e) {
        if (!(e instanceof DeliveryError)) throw e;
        failure = e.message;
        // Every attempt, and every capture, would be refused the same way: a configuration error.
        // Stop with the way out and leave the capture unhandled, so the rerun with -k sends it.
        if (e.certificate) {
          fatal ??= new CliError(
            `${c.method} ${url}: ${failure}; stopped with ${c.id} not forwarded`,
            `add -k (--insecure) to accept a local self-signed certificate; rerun with it${opts.resume ? '' : ' (without --no-resume)'} and ${c.id} and the captures after it are forwarded`,
          );
          stop.stop();
          return { handled: false };
        }
        // Nothing listens there: the app is stopped or restarting, and nothing reached it, so
        // waiting for it costs no duplicate. Wait (polling every 2 s at most) however long, in
        // order, without spending a retry: giving up would drop the capture past the resume point.
        if (e.refused) {
          if (stop.signal.aborted) return { handled: false };
          if (!waitingSaid) err(paint(errStyle, 'yellow', `  ${c.method} ${c.path}: ${failure}; waiting for the app (Ctrl-C to stop)`));
          waitingSaid = true;
          await sleep(Math.min(REFUSED_POLL_MS, retryDelayMs(attempt)), stop.signal);
          if (stop.signal.aborted) return { handled: false };
          continue;
        }
      }
      retries++;
      if (retries > opts.retries) {
        report(c, url, { status, latencyMs, attempts: attempt, error: status === null ? failure : undefined });
        return { handled: true };
      }
      if (stop.signal.aborted) return { handled: false };
      const wait = retryDelayMs(retries);
      err(paint(errStyle, 'yellow', `  ${c.method} ${c.path}: ${failure}; retry ${retries}/${opts.retries} in ${(wait / 1000).toFixed(1)} s`));
      await sleep(wait, stop.signal);
      if (stop.signal.aborted) return { handled: false };
    }
  };

  // Captures start in stream order, at most `concurrency` at a time; the resume point moves only
  // past a run of handled ones, so a restart never skips a capture still in flight.
  const order: { id: string; handled: boolean | null }[] = [];
  const inFlight = new Set<Promise<void>>();
  let saved = false;
  const advance = () => {
    let last: string | null = null;
    while (order[0] && order[0].handled === true) last = order.shift()?.id ?? last;
    if (last) saveResume(slug, { lastId: last, apiUrl: settings.apiUrl, savedAt: Date.now() });
    if (last) saved = true;
  };
  // Live is after the newest capture now (as the stream would take it), known here so that a stop
  // on a configuration error can record it as the position to resume from.
  const after = start.after ?? (await client.newestId(slug));
  let stream: CaptureStream | null = null;
  try {
    const banner = `Forwarding ${slug} → ${opts.forward}, ${start.said}. Ctrl-C to stop.`;
    stream = client.stream(slug, { after, signal: stop.signal, onResume: onResume(client, slug, opts, listenWords(opts), errStyle), ...streamHooks(style, banner) });
    for await (const capture of stream) {
      // Stopped: not started, so not recorded as handled; the next run forwards it.
      if (stop.signal.aborted) break;
      const slot: { id: string; handled: boolean | null } = { id: capture.id, handled: null };
      order.push(slot);
      const task = forwardOne(capture).then((o) => {
        slot.handled = o.handled;
        advance();
      });
      inFlight.add(task);
      void task.finally(() => inFlight.delete(task));
      if (inFlight.size >= opts.concurrency) await Promise.race(inFlight);
    }
  } finally {
    await Promise.allSettled(inFlight);
    stop.release();
  }
  if (fatal) {
    // Nothing handled in this run: the rerun starts where this one did, so it sends the capture
    // that stopped it (a first run started live has no position saved otherwise).
    if (!saved) saveResume(slug, { lastId: after, apiUrl: settings.apiUrl, savedAt: Date.now() });
    throw fatal;
  }
  return EXIT_OK;
}

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
 * case-insensitive substring (a RegExp, so the timeout message shows it). The same name twice
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

/** Prints each capture as it arrives: time, method, path, size, detected sender and event, answered status. */
export async function tail(client: HookcapClient, slug: string, opts: TailOptions, style: Style): Promise<number> {
  const stop = stopOnSignals('output');
  const matcher: RequestMatcher = {
    method: opts.method,
    path: opts.path,
    event: opts.event,
    headers: opts.headers && opts.headers.length > 0 ? headerMatchers(opts.headers) : undefined,
  };
  const filtered = Object.values(matcher).some((v) => v !== undefined);
  const wanted = filtered ? matches(matcher) : () => true;
  const only = filtered ? ` (only ${describeMatcher(matcher)})` : '';
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
        const detected = [c.detectedProvider, c.detectedEvent].filter((x) => x !== '').join(' ');
        const status = c.responseStatus === undefined ? '' : `  ${paint(style, statusColor(c.responseStatus), String(c.responseStatus))}`;
        out(
          `${paint(style, 'gray', clock(c.receivedAt))}  ${paint(style, 'bold', c.method.padEnd(6))} ${pathWithQuery(c.path, captureQuery(c))}` +
            `  ${paint(style, 'gray', bytes(c.size))}${detected ? `  ${paint(style, 'magenta', detected)}` : ''}${status}  ${paint(style, 'dim', c.id)}`,
        );
      }
      if (opts.count !== undefined && seen >= opts.count) break;
    }
  } finally {
    clearTimeout(timer);
    stop.release();
  }
  if (timedOut && opts.count !== undefined && seen < opts.count) {
    const got = `${seen === 0 ? 'no capture' : `${seen} of ${opts.count} captures`}${filtered ? ` matching ${describeMatcher(matcher)}` : ''}`;
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
