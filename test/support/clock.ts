/**
 * A clock a test moves by hand, for a service built in-process (test/support/in-process.ts):
 * expiry and window tests advance it instead of sleeping. It keeps running with the wall clock
 * (plus what was advanced), so rows made one after another still get increasing times, and
 * captures, which the receiver stamps with the wall clock, look as old as the step says.
 *
 * @example
 * const clock = new TestClock();
 * clock.advance(TTL_MS + 1); // everything the service compares with now is TTL_MS later
 */
import type { Clock } from '../../src/clock';

export class TestClock implements Clock {
  private offset = 0;

  now(): number {
    return Date.now() + this.offset;
  }

  /** Moves the time forward by `ms` (never back: stored times must stay ordered). */
  advance(ms: number): void {
    if (!(ms >= 0)) throw new Error(`TestClock.advance: ${ms} is not a forward step`);
    this.offset += ms;
  }
}
