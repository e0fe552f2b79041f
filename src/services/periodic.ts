/**
 * A background job run every `everyMs`, never two runs at once, whose `stop` waits for the run in
 * flight: shutdown closes the stores only after the purger or sweeper has finished with them.
 *
 * @example
 * const purger = runEvery(5_000, () => purgeOnce(ctx), (err) => log.warn('purge failed', { error: errorMessage(err) }));
 * await purger.stop();
 */
export interface Periodic {
  /** Stops the timer and resolves once the run in flight (if any) has ended. */
  stop(): Promise<void>;
}

export function runEvery(everyMs: number, run: () => Promise<void>, onError: (err: unknown) => void): Periodic {
  let current: Promise<void> | null = null;
  let stopped = false;
  const timer = setInterval(() => {
    if (current || stopped) return;
    current = run()
      .catch(onError)
      .finally(() => {
        current = null;
      });
  }, everyMs);
  // A timer alone does not keep the process up.
  timer.unref?.();
  return {
    async stop() {
      stopped = true;
      clearInterval(timer);
      await current;
    },
  };
}
