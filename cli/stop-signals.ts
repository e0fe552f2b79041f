import { err, onStdoutClosed } from './output';

/**
 * Ctrl-C (or SIGTERM, or stdout's reader going away) stops taking new captures and lets the ones
 * in flight finish; a second signal exits at once (130). `pending` says, at the first signal, what
 * is being waited for and for how long at most (null: nothing, say nothing). Returns the signal,
 * `stop` (the same stop, for --count and --timeout) and `release`, which removes the handlers.
 */
export function stopOnSignals(pending: () => string | null): { signal: AbortSignal; stop(): void; release(): void } {
  const stop = new AbortController();
  const onSignal = () => {
    if (stop.signal.aborted) process.exit(130);
    const waiting = pending();
    if (waiting !== null) err(`stopping: ${waiting} (Ctrl-C again to quit now)`);
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
