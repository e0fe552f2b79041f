/**
 * Fixed-window request limits counted in Postgres, so every node sees one count per subject.
 * `consume` is the verb; the Elysia plugin (src/http/rate-limit-plugin.ts) and any service that
 * limits by something only it knows (an email address, say) both call it.
 */
import type { RateRule } from '../config';
import { AppError } from '../errors';
import { log } from '../log';
import { secondsUntil } from '../model/usage';
import { hitWindow, sweepWindows } from '../stores/state/rate-windows';
import type { Ctx } from './context';
import { errorMessage } from '../unknown';

export interface RateOutcome {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** When the window ends (ms since epoch). */
  resetAt: number;
}

/** Expired windows are deleted at most this often per process, off the request's path. */
const SWEEP_EVERY_MS = 60_000;
let lastSweep = 0;

function sweepSometimes(ctx: Ctx, now: number): void {
  if (now - lastSweep < SWEEP_EVERY_MS) return;
  lastSweep = now;
  sweepWindows(ctx.db, now).catch((err: unknown) => log.warn('rate-limit sweep failed', { error: errorMessage(err) }));
}

/**
 * Counts one request against `bucket` (namespace it, e.g. `api:cred:<hash>`) and says whether it
 * is within `rule`. Requests over the limit are counted too: a client that keeps hammering stays
 * refused until the window ends.
 */
export async function consume(ctx: Ctx, bucket: string, rule: RateRule, now = ctx.clock.now()): Promise<RateOutcome> {
  sweepSometimes(ctx, now);
  const windowStart = Math.floor(now / rule.windowMs) * rule.windowMs;
  const hit = await hitWindow(ctx.db, bucket, windowStart, rule.windowMs);
  return {
    allowed: hit.count <= rule.limit,
    limit: rule.limit,
    remaining: Math.max(0, rule.limit - hit.count),
    resetAt: hit.windowStart + rule.windowMs,
  };
}

/** The SPEC 8 headers, for every response of a limited route. */
export function rateLimitHeaders(o: RateOutcome): Record<string, string> {
  return {
    'x-ratelimit-limit': String(o.limit),
    'x-ratelimit-remaining': String(o.remaining),
    'x-ratelimit-reset': String(Math.ceil(o.resetAt / 1000)),
  };
}

/**
 * The 429 for a refused request, carrying the headers and Retry-After. `code` is `rate_limited_api`
 * on the capture API (`{error: message}`) and `rate_limited` on the agent API (`{error: code}`).
 */
export function rateLimitError(o: RateOutcome, code: 'rate_limited_api' | 'rate_limited', now: number, what = 'too many requests'): AppError {
  const wait = secondsUntil(o.resetAt, now);
  return new AppError(code, `${what}: the limit is ${o.limit} per window; retry in ${wait} s`, {
    ...rateLimitHeaders(o),
    'retry-after': String(wait),
  });
}
