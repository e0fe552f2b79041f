/**
 * Work a verb starts and does not wait for (the password-reset mail, sent after the answer so its
 * time tells nothing). Failures are logged, never thrown; shutdown waits for what is still running
 * (services/build.ts), within SHUTDOWN_TIMEOUT_MS.
 */
import { log } from '../log';
import { errorMessage } from '../unknown';

export interface Background {
  /** Starts `work` now; a failure is logged as `what` with its message (no secret may be in it). */
  run(what: string, work: () => Promise<void>): void;
  /** Resolves once everything started so far has ended. */
  settle(): Promise<void>;
}

export function createBackground(): Background {
  const running = new Set<Promise<void>>();
  return {
    run(what, work) {
      const p: Promise<void> = work()
        .catch((err: unknown) => log.warn(what, { error: errorMessage(err) }))
        .finally(() => running.delete(p));
      running.add(p);
    },
    async settle() {
      await Promise.all([...running]);
    },
  };
}
