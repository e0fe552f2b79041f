import { err, onStdoutClosed } from './output';

/**
 * Ctrl-C (or SIGTERM, or stdout's reader going away) stops taking new captures and lets the ones
 * in flight finish; a second signal exits at once. Returns the signal, `stop` (the same stop, for
 * --count and --timeout) and `release`, which removes the handlers.
 */
export function stopOnSignals(what: string): { signal: AbortSignal; stop(): void; release(): void } {
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
