/** Waiting with a deadline, for shutdown: a step that overruns is given up on, not cancelled. */
import type { Clock } from './clock';

/** Resolves true once `work` settles, or false at `deadline` (epoch ms on `clock`) if it has not by then. */
export async function within(work: Promise<unknown>, deadline: number, clock: Clock): Promise<boolean> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<false>((resolve) => {
    timer = setTimeout(() => resolve(false), Math.max(0, deadline - clock.now()));
  });
  // A step that failed is over too; the caller reports failures itself.
  const done = work.then(
    () => true as const,
    () => true as const,
  );
  try {
    return await Promise.race([done, late]);
  } finally {
    clearTimeout(timer);
  }
}
