/**
 * Forwarding one capture for listen: rebuilt byte for byte, sent to the local app, retried on
 * failures and 5xx, waited for while the app refuses connections, and reported in one line.
 */
import type { Capture } from '../../client/index';
import { captureQuery, rebuildRequest, shellQuote, targetUrl } from '../../src/model/render';
import { deliver, DeliveryError, TIMEOUT_HINT, UNKNOWN_HOST_HINT } from '../deliver';
import { CliError } from '../errors';
import { alignedLine, terminalColumns, type Part } from '../columns';
import { clock, err, out, paint, pathWithQuery, printable, statusColor, type Style } from '../output';
import type { ListenOptions } from './listen';

/** How often a refused app is tried again at most (a local port: cheap to knock on). */
const REFUSED_POLL_MS = 2_000;

/** Retry delays: 0.5 s, 1 s, 2 s … capped at 10 s. */
export const retryDelayMs = (attempt: number) => Math.min(10_000, 500 * 2 ** (attempt - 1));

/**
 * Waits `ms`, or less when `signal` aborts. The listener goes when the wait ends: `signal` lives as
 * long as listen, which waits once per retry and per poll of an app that is down, and listeners
 * left on it pile up (Node warns past 10: MaxListenersExceededWarning on the user's terminal).
 */
function sleep(ms: number, signal: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal.aborted) return resolve();
    const timer = setTimeout(done, ms);
    function done() {
      clearTimeout(timer);
      signal.removeEventListener('abort', done);
      resolve();
    }
    signal.addEventListener('abort', done, { once: true });
  });
}

export interface Outcome {
  /** false: stopped before the capture was handled (it is forwarded again next time). */
  handled: boolean;
}

/**
 * Forwards captures as `opts` say; `stop` stops the run (on a configuration error every capture
 * would meet, which `fatal` then holds).
 */
export function captureForwarder(
  opts: ListenOptions,
  style: Style,
  errStyle: Style,
  stop: { signal: AbortSignal; stop(): void },
): { forwardOne(c: Capture): Promise<Outcome>; readonly fatal: CliError | null; readonly sending: number } {
  /** A configuration error that every capture would meet (a refused certificate): listen stops with it. */
  let fatal: CliError | null = null;
  /** Attempts sent and not yet answered: what a stop waits for (a wait for the app or a retry ends at once). */
  let sending = 0;

  /**
   * `hint`: what to do about `error`, in words only (`--json` keeps the error as it is).
   * `attempts`: sends that got an answer or failed; a refused connection reached nothing and is not
   * one. `waitedMs`: how long the app was waited for while it refused connections (0: not at all).
   */
  const report = (c: Capture, url: string, line: { status: number | null; latencyMs: number | null; attempts: number; error?: string }, waitedMs: number, hint?: string) => {
    const path = pathWithQuery(c.path, captureQuery(c));
    if (opts.json) {
      const latencyMs = line.latencyMs === null ? null : Math.round(line.latencyMs * 10) / 10;
      out(JSON.stringify({ id: c.id, receivedAt: c.receivedAt, method: c.method, path, url, ...line, latencyMs, waitedMs: Math.round(waitedMs), ok: line.status !== null && line.status < 500 && !line.error }));
      return;
    }
    const ok = line.status !== null && line.status < 500 && !line.error;
    const waited = waitedMs > 0 ? `after waiting ${Math.max(1, Math.round(waitedMs / 1000))} s for the app` : '';
    const said = [line.attempts > 1 ? `${line.attempts} attempts` : '', waited].filter((p) => p !== '').join(', ');
    const tries = said === '' ? '' : `(${said})`;
    const parts: Part[] = [{ text: path }];
    if (ok) parts.push({ text: tries, color: 'gray', whole: true });
    else {
      const what = line.status !== null ? `answered ${line.status}` : (line.error ?? 'failed');
      parts.push({ text: `${what}${tries ? ` ${tries}` : ''}${hint ? `; ${hint}` : ''}`, color: 'red', whole: true });
      // Never cut: it is there to be copied. Quoted for the shell it is pasted into: a sender picks
      // the path, and `'` `;` `$(…)` are all legal in one.
      parts.push({ text: `resend with: hookcap replay ${c.id} --to ${printable(shellQuote(url))}${opts.insecure ? ' --insecure' : ''}`, whole: true });
    }
    const result = line.status === null ? '✗' : `${ok ? '→' : '✗'} ${line.status}`;
    out(
      alignedLine(
        style,
        terminalColumns(),
        [
          { text: clock(c.receivedAt), width: 8, color: 'gray' },
          { text: c.method, width: 7, color: 'bold' },
          { text: result, width: 5, color: ok && line.status !== null ? statusColor(line.status) : 'red' },
          { text: line.latencyMs === null ? '' : `${Math.round(line.latencyMs)} ms`, width: 8, right: true },
        ],
        parts,
      ),
    );
  };

  const forwardOne = async (c: Capture): Promise<Outcome> => {
    const url = targetUrl(opts.forward, c);
    const request = rebuildRequest(c, url);
    let retries = 0;
    /** Sends that got an answer or failed (not refused: those reached nothing). */
    let attempts = 0;
    /** When the app first refused this capture, and how many times it has been tried since. */
    let refusedSince: number | null = null;
    let polls = 0;
    /** From the first refusal to the end of the last wait for the app. */
    let waited = 0;
    for (;;) {
      let failure: string;
      // The app took the connection and was slow: more time, not a running app, is what it needs.
      let timedOut = false;
      let status: number | null = null;
      let latencyMs: number | null = null;
      try {
        sending++;
        const answer = await deliver(request, { timeoutMs: opts.timeout * 1000, insecure: opts.insecure === true }).finally(() => sending--);
        attempts++;
        if (answer.status < 500) {
          report(c, url, { status: answer.status, latencyMs: answer.latencyMs, attempts }, waited);
          return { handled: true };
        }
        status = answer.status;
        latencyMs = answer.latencyMs;
        failure = `answered ${answer.status}`;
      } catch (e) {
        if (!(e instanceof DeliveryError)) throw e;
        failure = e.message;
        timedOut = e.timedOut;
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
        // A host name that does not resolve is a typo in --forward (`locahost`): retried, every
        // capture would be reported failed and passed over, the resume point moving past them.
        if (e.unknownHost) {
          fatal ??= new CliError(
            `${c.method} ${url}: ${failure}; stopped with ${c.id} not forwarded`,
            `${UNKNOWN_HOST_HINT}; rerun with the right URL${opts.resume ? '' : ' (without --no-resume)'} and ${c.id} and the captures after it are forwarded`,
          );
          stop.stop();
          return { handled: false };
        }
        // Nothing listens there: the app is stopped or restarting, and nothing reached it, so
        // waiting for it costs no duplicate. Wait (polling every 2 s at most) however long, in
        // order, without spending a retry: giving up would drop the capture past the resume point.
        if (e.refused) {
          if (stop.signal.aborted) return { handled: false };
          if (refusedSince === null) err(paint(errStyle, 'yellow', `  ${c.method} ${printable(c.path)}: ${failure}; waiting for the app (Ctrl-C to stop)`));
          refusedSince ??= performance.now();
          polls++;
          await sleep(Math.min(REFUSED_POLL_MS, retryDelayMs(polls)), stop.signal);
          waited = performance.now() - refusedSince;
          if (stop.signal.aborted) return { handled: false };
          continue;
        }
        attempts++;
      }
      retries++;
      if (retries > opts.retries) {
        report(c, url, { status, latencyMs, attempts, error: status === null ? failure : undefined }, waited, timedOut ? TIMEOUT_HINT : undefined);
        return { handled: true };
      }
      if (stop.signal.aborted) return { handled: false };
      const wait = retryDelayMs(retries);
      err(paint(errStyle, 'yellow', `  ${c.method} ${printable(c.path)}: ${failure}; retry ${retries}/${opts.retries} in ${(wait / 1000).toFixed(1)} s`));
      await sleep(wait, stop.signal);
      if (stop.signal.aborted) return { handled: false };
    }
  };
  return {
    forwardOne,
    get fatal() {
      return fatal;
    },
    get sending() {
      return sending;
    },
  };
}
