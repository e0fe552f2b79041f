/**
 * `hookcap listen SLUG --forward URL` (and `forward SLUG URL`): follows the endpoint's live stream
 * and re-sends every capture to URL + its path, byte for byte, in order. Remembers the last capture
 * it handled per endpoint and --forward URL (one run at a time for each), so a restart (or a
 * dropped connection) resumes with Last-Event-ID and every capture reaches the local app once,
 * oldest first. `hookcap tail SLUG` prints captures instead.
 */
import { lookup } from 'node:dns/promises';
import type { CaptureStream, HookcapClient } from '../../client/index';
import { idTime } from '../../src/ids';
import { chooseBacklog, onResume, type Backlog, type BacklogWords, type Start } from '../backlog';
import { loadResume, lockForward, saveResume, type ResumeState, type Settings } from '../config';
import { captureFilter, type CaptureFilterOptions } from '../capture-filter';
import { CliError, EXIT_OK } from '../errors';
import type { Style } from '../output';
import { stopOnSignals } from '../stop-signals';
import { sinceSaid, stderrStyle, streamHooks, when } from '../stream-status';
import { UNKNOWN_HOST_HINT } from '../deliver';
import { captureForwarder } from './forward-capture';

/** The filters (`--method`, `--path`, `--event`, `--header`): a capture they leave out is not forwarded, and counts as handled. */
export interface ListenOptions extends CaptureFilterOptions {
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

const listenWords = (opts: ListenOptions): BacklogWords => ({
  command: 'listen',
  ask: `Forward them to ${opts.forward}`,
  doing: 'forwarding',
  verb: 'forward',
  done: 'forwarded',
  instead: (lastId) => `--since ${lastId}`,
});

/**
 * Where a stream starts: after --since, else after the saved position, else live. Resuming with
 * more than --max-backlog captures waiting (a laptop back after a weekend) is a backlog
 * (`chooseBacklog`).
 */
async function startPoint(client: HookcapClient, slug: string, settings: Settings, opts: ListenOptions, errStyle: Style): Promise<Start & { saved?: ResumeState }> {
  if (opts.since) return { after: opts.since, said: sinceSaid(opts.since) };
  const saved = opts.resume ? loadResume(slug, opts.forward) : null;
  if (!saved || (saved.apiUrl !== '' && saved.apiUrl !== settings.apiUrl)) return { said: 'from now on' };
  return { ...(await savedStart(client, slug, saved, opts, errStyle)), saved };
}

async function savedStart(client: HookcapClient, slug: string, saved: ResumeState, opts: ListenOptions, errStyle: Style): Promise<Start> {
  const at = when(saved.savedAt);
  // An older version's one position per endpoint: said, since it may be another URL's.
  const legacy = saved.legacy ? `, the endpoint's position saved by an older hookcap for every --forward URL` : '';
  const resumed: Start = { after: saved.lastId, said: `resuming after ${saved.lastId} (${saved.handled ? `handled at ${at}` : `where a run started at ${at}`}${legacy})` };
  if (opts.backlog === 'all') return resumed;
  // Captures received after the saved one's millisecond (a later one in that same millisecond is
  // not counted: the count only decides whether to ask).
  const waiting = await client.count({ slug, from: idTime(saved.lastId) + 1 });
  if (waiting <= opts.maxBacklog) return resumed;
  return chooseBacklog(client, slug, opts, listenWords(opts), errStyle, { lastId: saved.lastId, waiting, stopped: true, context: saved.handled ? `the last one forwarded was handled at ${at}` : `the last run started at ${at} and forwarded nothing` });
}

/**
 * A --forward host that does not resolve (`locahost`) is said at once, not when the first
 * webhook arrives. Only the resolver's "no such name" stops here: a resolver that cannot be
 * asked now (offline) may answer later, and forwarding handles that per capture.
 */
async function checkForwardHost(forward: string): Promise<void> {
  const host = new URL(forward).hostname;
  try {
    await lookup(host.replace(/^\[|\]$/g, ''));
  } catch (e) {
    if (e instanceof Error && 'code' in e && e.code === 'ENOTFOUND') {
      throw new CliError(`--forward ${forward}: no such host ${host}; nothing was forwarded`, UNKNOWN_HOST_HINT);
    }
  }
}

export async function listen(client: HookcapClient, settings: Settings, slug: string, opts: ListenOptions, style: Style): Promise<number> {
  await checkForwardHost(opts.forward);
  // Before the position is read: a second run forwarding the same endpoint to the same URL would
  // share it, each resuming after captures the other handled.
  const release = lockForward(slug, opts.forward);
  try {
    return await forwardAll(client, settings, slug, opts, style);
  } finally {
    release();
  }
}

async function forwardAll(client: HookcapClient, settings: Settings, slug: string, opts: ListenOptions, style: Style): Promise<number> {
  const errStyle = stderrStyle(style);
  const start = await startPoint(client, slug, settings, opts, errStyle);
  // Each attempt ends within --timeout (cli/deliver.ts), and none starts once stopped: that is
  // the longest a stop waits, and what it says.
  const stop = stopOnSignals(() => {
    const n = forwarder.sending;
    return n === 0 ? null : `waiting up to ${opts.timeout} s (--timeout) for the app to answer the ${n === 1 ? 'forward' : `${n} forwards`} in flight`;
  });
  const forwarder = captureForwarder(opts, style, errStyle, stop);
  const { wanted, said } = captureFilter(opts);

  // Captures start in stream order, at most `concurrency` at a time; the resume point moves only
  // past a run of handled ones, so a restart never skips a capture still in flight.
  const order: { id: string; handled: boolean | null }[] = [];
  const inFlight = new Set<Promise<void>>();
  let saved = false;
  const save = (lastId: string, handled: boolean) => {
    saveResume(slug, opts.forward, { lastId, apiUrl: settings.apiUrl, savedAt: Date.now(), handled, forward: opts.forward });
    saved = true;
  };
  const advance = () => {
    let last: string | null = null;
    while (order[0] && order[0].handled === true) last = order.shift()?.id ?? last;
    if (last) save(last, true);
  };
  // Live is after the newest capture now (as the stream would take it), known here so that it can
  // be saved as the position to resume from before the first capture is forwarded.
  const after = start.after ?? (await client.newestId(slug));
  let stream: CaptureStream | null = null;
  try {
    const banner = `Forwarding ${slug}${said !== null ? ` (only ${said})` : ''} → ${opts.forward}, ${start.said}. Ctrl-C to stop.`;
    stream = client.stream(slug, { after, signal: stop.signal, onResume: onResume(client, slug, opts, listenWords(opts), errStyle), ...streamHooks(style, banner) });
    for await (const capture of stream) {
      // Stopped: not started, so not recorded as handled; the next run forwards it.
      if (stop.signal.aborted) break;
      // The first capture of a run is preceded by the run's start on disk: stopped before it is
      // handled (Ctrl-C twice, a refused certificate), the next run sends it again, even after a
      // start at live with nothing saved, or with --no-resume over an older position.
      // Resuming from a saved position, it is kept as it was (with its own time and kind).
      if (!saved) {
        const kept = start.saved !== undefined && start.after === start.saved.lastId ? start.saved : null;
        if (kept) saveResume(slug, opts.forward, { ...kept, apiUrl: settings.apiUrl });
        else save(after, false);
        saved = true;
      }
      // Left out by the filters: handled as it stands (the resume point goes past it), not sent.
      if (!wanted(capture)) {
        order.push({ id: capture.id, handled: true });
        advance();
        continue;
      }
      const slot: { id: string; handled: boolean | null } = { id: capture.id, handled: null };
      order.push(slot);
      const task = forwarder.forwardOne(capture).then((o) => {
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
  if (forwarder.fatal) throw forwarder.fatal;
  return EXIT_OK;
}
