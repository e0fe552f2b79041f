/**
 * `hookcap listen SLUG --forward URL` (and `forward SLUG URL`): follows the endpoint's live stream
 * and re-sends every capture to URL + its path, byte for byte, in order. Remembers the last capture
 * it handled per slug, so a restart (or a dropped connection) resumes with Last-Event-ID and every
 * capture reaches the local app once, oldest first. `hookcap tail SLUG` prints captures instead.
 */
import type { Capture, CaptureStream, HookcapClient, StreamOptions } from '../../client/index';
import { captureIdFloor, idTime } from '../../src/ids';
import { captureQuery, rebuildRequest, targetUrl } from '../../src/model/render';
import { loadResume, saveResume, type Settings } from '../config';
import { deliver, DeliveryError, INSECURE_HINT } from '../deliver';
import { CliError, EXIT_OK } from '../errors';
import { bytes, clock, err, onStdoutClosed, out, paint, pathWithQuery, statusColor, type Style } from '../output';

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
  json: boolean;
}

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
function startPoint(slug: string, settings: Settings, opts: { since?: string; resume: boolean }): { after?: string; said: string } {
  if (opts.since) return { after: opts.since, said: sinceSaid(opts.since) };
  if (opts.resume) {
    const saved = loadResume(slug);
    if (saved && (saved.apiUrl === '' || saved.apiUrl === settings.apiUrl)) {
      return { after: saved.lastId, said: `resuming after ${saved.lastId} (handled at ${when(saved.savedAt)})` };
    }
  }
  return { said: 'from now on' };
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
  const start = startPoint(slug, settings, opts);
  const stop = stopOnSignals('forwards');
  const errStyle = stderrStyle(style);

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
        // Every attempt would be refused the same way: report it now, with the way out.
        if (e.certificate) {
          report(c, url, { status: null, latencyMs: null, attempts: attempt, error: `${failure} (${INSECURE_HINT})` });
          return { handled: true };
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
  const advance = () => {
    let last: string | null = null;
    while (order[0] && order[0].handled === true) last = order.shift()?.id ?? last;
    if (last) saveResume(slug, { lastId: last, apiUrl: settings.apiUrl, savedAt: Date.now() });
  };
  let stream: CaptureStream | null = null;
  try {
    const banner = `Forwarding ${slug} → ${opts.forward}, ${start.said}. Ctrl-C to stop.`;
    stream = client.stream(slug, { after: start.after, signal: stop.signal, ...streamHooks(style, banner) });
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
  return EXIT_OK;
}

export interface TailOptions {
  since?: string;
  json: boolean;
  /** Stop after this many captures (a script waiting for a webhook). */
  count?: number;
  /** Stop after this many seconds; with `count` not reached, that is a failure (exit 1). */
  timeout?: number;
}

/** Prints each capture as it arrives: time, method, path, size, detected sender and event, answered status. */
export async function tail(client: HookcapClient, slug: string, opts: TailOptions, style: Style): Promise<number> {
  const stop = stopOnSignals('output');
  const banner = opts.json ? null : `Watching ${slug}${opts.since ? `, ${sinceSaid(opts.since)}` : ''}. Ctrl-C to stop.`;
  let seen = 0;
  let timedOut = false;
  const timer =
    opts.timeout === undefined
      ? undefined
      : setTimeout(() => {
          timedOut = true;
          stop.stop();
        }, opts.timeout * 1000);
  try {
    for await (const c of client.stream(slug, { after: opts.since, signal: stop.signal, ...streamHooks(style, banner) })) {
      // Stopped (Ctrl-C, --timeout): what the last read brought along is not printed.
      if (stop.signal.aborted) break;
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
    const got = seen === 0 ? 'no capture' : `${seen} of ${opts.count} captures`;
    throw new CliError(`${got} on ${slug} within ${opts.timeout} s`);
  }
  return EXIT_OK;
}
