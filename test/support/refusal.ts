/** For tests of code that refuses input by throwing an AppError (idp.ts's expectCode is the async twin). */
import { AppError } from '../../src/errors';

/**
 * The AppError `fn` throws; any other error is rethrown, and not throwing fails the test.
 *
 * @example
 * expect(refusal(() => parseRegisterJson(body)).code).toBe('invalid_request');
 */
export function refusal(fn: () => unknown): AppError {
  try {
    fn();
  } catch (e) {
    if (e instanceof AppError) return e;
    throw e;
  }
  throw new Error('expected a refusal (an AppError)');
}
