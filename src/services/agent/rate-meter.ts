/**
 * Limits on registrations, OTP attempts and claim attempts (SPEC 7.2 rate_limited, SPEC 8
 * headers), per client address and per email. Counted through the shared Postgres counters
 * (services/rate-limiter.ts), so every node sees one count. A `RateMeter` collects the windows one
 * request touched and reports the tightest in the X-RateLimit-* headers, on success and errors.
 */
import type { RateRule } from '../../config';
import type { Ctx } from '../context';
import { consume, rateLimitError, rateLimitHeaders, type RateOutcome } from '../rate-limiter';

export class RateMeter {
  private readonly outcomes: RateOutcome[] = [];

  constructor(private readonly ctx: Ctx) {}

  /** Counts one attempt in `bucket`; throws rate_limited (429, Retry-After) past the limit. */
  async consume(bucket: string, rule: RateRule | null): Promise<void> {
    if (!rule) return;
    const outcome = await consume(this.ctx, `agent:${bucket}`, rule);
    this.outcomes.push(outcome);
    if (!outcome.allowed) throw rateLimitError(outcome, 'rate_limited', this.ctx.clock.now());
  }

  /** The X-RateLimit-* headers of the tightest window touched so far ({} when none). */
  headers(): Record<string, string> {
    const tightest = this.outcomes.reduce<RateOutcome | null>(
      (worst, o) => (!worst || o.remaining < worst.remaining || (o.remaining === worst.remaining && o.resetAt > worst.resetAt) ? o : worst),
      null,
    );
    return tightest ? rateLimitHeaders(tightest) : {};
  }
}

/** Bucket names: one namespace per kind of attempt, keyed by address or lower-cased email. */
export const buckets = {
  registerIp: (ip: string) => `register:ip:${ip}`,
  registerEmail: (email: string) => `register:email:${email.toLowerCase()}`,
  otpIp: (ip: string) => `otp:ip:${ip}`,
  otpEmail: (email: string) => `otp:email:${email.toLowerCase()}`,
  claimIp: (ip: string) => `claim:ip:${ip}`,
  loginIp: (ip: string) => `page-login:ip:${ip}`,
};
