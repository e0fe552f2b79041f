/** Constant-time checks of the operator's bearer tokens (ADMIN_TOKEN, METRICS_TOKEN). */
import { createHash, timingSafeEqual } from 'node:crypto';

const digest = (s: string) => createHash('sha256').update(s).digest();

/**
 * Compares digests, not the strings: equal lengths for timingSafeEqual, and the time taken says
 * nothing about the token's length or prefix.
 *
 * @example
 * const matches = tokenCheck(config.metricsToken); matches(bearer(request.headers.get('authorization')))
 */
export function tokenCheck(token: string): (given: string | null) => boolean {
  const want = digest(token);
  return (given) => given !== null && timingSafeEqual(digest(given), want);
}
