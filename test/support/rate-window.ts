/**
 * Rate-limit windows are fixed, aligned to multiples of their length since the epoch
 * (src/services/rate-limiter.ts): a test that counts calls up to a limit starts with at least
 * `needMs` left in the current window, so no reset lands mid-count (a count straddling the edge
 * starts over and the call meant to be refused is allowed). Waits at most `needMs`.
 *
 * @example
 * await clearOfWindowEdge(600_000, 20_000); // RATE_LIMIT_LOGIN_ACCOUNT: '3/600'
 */
export async function clearOfWindowEdge(windowMs: number, needMs: number): Promise<void> {
  const left = windowMs - (Date.now() % windowMs);
  if (left < needMs) await Bun.sleep(left + 50);
}
