/**
 * Failed API authentication per client address (docs/security.md, "Invented bearer tokens").
 *
 * The API's rate limit counts a request on its presented token's bucket before the token is looked
 * up, so a client sending a new invented token each time never met a limit. Each unknown or revoked
 * token (RATE_LIMIT_AUTH_FAILURES) is now counted per client address in Postgres, shared by every
 * node. Only failures are counted: a request whose token is valid adds no counter write, only a
 * SHA-256 of the token and a Set lookup (to remember it as seen valid, see below).
 *
 * Once an address is over the limit, the node that sees it remembers so until the window ends
 * (each node learns it at the first failure it counts past the limit). Until then a token from that
 * address is refused with 429 before any lookup, and the API limiter counts it on the address's
 * bucket instead of a new one per token, unless it is a token this node has recently seen valid:
 * someone else's failures behind the same address (a NAT, a proxy) do not lock out a client that
 * was already working. Such a token is still looked up, so a revoked one ends as always.
 */
import { sha256Hex } from '../ids';
import type { Ctx } from '../services/context';
import { consume, rateLimitError } from '../services/rate-limiter';
import type { AppError } from '../errors';

/** Tokens remembered as valid per node (hashes, oldest dropped first); a few MB at most. */
const VERIFIED_CAPACITY = 20_000;
/** Blocked addresses held per node before expired ones are swept. */
const BLOCKED_SWEEP_AT = 10_000;

export interface AuthFailureGate {
  /** The 429 for a token from a blocked address that this node has not seen valid; null to go on. */
  refusal(ip: string, token: string): AppError | null;
  /** Whether the API limiter should count this token on the address's bucket (blocked, not known). */
  countsOnAddress(ip: string, token: string): boolean;
  /** Notes a token that resolved to a principal. */
  noteValid(token: string): void;
  /** Counts an unknown or revoked token against the address; the 429 when that passes the limit. */
  noteFailure(ip: string): Promise<AppError | null>;
}

const gates = new WeakMap<Ctx, AuthFailureGate>();

/** The node's gate for this service (one per Ctx). */
export function authFailureGate(ctx: Ctx): AuthFailureGate {
  let gate = gates.get(ctx);
  if (!gate) {
    gate = makeGate(ctx);
    gates.set(ctx, gate);
  }
  return gate;
}

function makeGate(ctx: Ctx): AuthFailureGate {
  const rule = ctx.config.rateLimits.authFailures;
  /** address → { until, limit } of the window that refused it. */
  const blocked = new Map<string, { until: number; limit: number }>();
  const verified = new Set<string>();
  const hashOf = (token: string) => sha256Hex(token);

  const blockOf = (ip: string) => {
    if (blocked.size === 0) return null;
    const b = blocked.get(ip);
    if (!b) return null;
    if (b.until <= ctx.clock.now()) {
      blocked.delete(ip);
      return null;
    }
    return b;
  };
  const known = (token: string) => verified.size > 0 && verified.has(hashOf(token));

  return {
    refusal(ip, token) {
      const b = blockOf(ip);
      if (!b || known(token)) return null;
      return rateLimitError({ allowed: false, limit: b.limit, remaining: 0, resetAt: b.until }, 'rate_limited_api', ctx.clock.now(), FAILURES_MESSAGE);
    },
    countsOnAddress(ip, token) {
      return blockOf(ip) !== null && !known(token);
    },
    noteValid(token) {
      if (!rule) return;
      const h = hashOf(token);
      if (verified.has(h)) return;
      if (verified.size >= VERIFIED_CAPACITY) {
        const oldest = verified.values().next();
        if (!oldest.done) verified.delete(oldest.value);
      }
      verified.add(h);
    },
    async noteFailure(ip) {
      if (!rule) return null;
      const o = await consume(ctx, `auth-failures:ip:${ip}`, rule);
      if (o.allowed) return null;
      if (blocked.size >= BLOCKED_SWEEP_AT) {
        const now = ctx.clock.now();
        for (const [k, v] of blocked) if (v.until <= now) blocked.delete(k);
      }
      blocked.set(ip, { until: o.resetAt, limit: o.limit });
      return rateLimitError(o, 'rate_limited_api', ctx.clock.now(), FAILURES_MESSAGE);
    },
  };
}

const FAILURES_MESSAGE = 'too many requests with an unknown or revoked API key from this address';
