/**
 * Where the service reads the time. The composition root (app.ts, or a test building the service
 * in-process) picks one clock and hands it to every part that compares times: expiries, windows,
 * retention cut-offs, cache ages. Timers (setTimeout, setInterval) still run on real time: a clock
 * moved forward makes the next tick see the new time, it does not fire timers early.
 *
 * @example
 * const clock: Clock = systemClock;
 * const expired = row.expiresAt <= clock.now();
 */
export interface Clock {
  /** Milliseconds since the epoch, as Date.now(). */
  now(): number;
}

/** The wall clock: what the running service uses. */
export const systemClock: Clock = { now: () => Date.now() };
