/**
 * Rate limiting as an Elysia plugin for any route group:
 *
 *   new Elysia({ prefix: '/api/things' })
 *     .use(rateLimit(ctx, { name: 'things', rule: { limit: 60, windowMs: 60_000 }, key: byIp }))
 *     .get('/', …)
 *
 * Every route registered after it in that group (and in groups that group then uses) counts one
 * request per call in Postgres (services/rate-limiter.ts), answers with the X-RateLimit-* headers —
 * errors included — and refuses with 429, `{error}` and Retry-After once the window is used up
 * (under `/api/agent/` in the agent API's shape, `rate_limited`).
 * Limiters nest: each counts its own bucket; the inner one's headers are the ones sent.
 */
import { Elysia } from 'elysia';
import type { RateRule } from '../config';
import { sha256Hex } from '../ids';
import type { Ctx } from '../services/context';
import { consume, rateLimitError, rateLimitHeaders, type RateOutcome } from '../services/rate-limiter';
import { presentedToken, type CookieJar } from './auth';
import { authFailureGate } from './auth-failures';
import { clientIp, type PeerSource } from './client-ip';
import { rateLimitForRoute } from './errors';

export interface RateLimitRequest {
  request: Request;
  /** Elysia's parsed cookies (the session cookie is a credential). */
  cookie: CookieJar;
  /** The client address (X-Forwarded-For's first entry with TRUST_PROXY=true). */
  ip: string;
}

export interface RateLimitOptions {
  /** Counter namespace: limiters with the same name share counts. */
  name: string;
  /** The limit; null turns the plugin into a no-op (a limit configured "off"). */
  rule: RateRule | null;
  /** Who a request is counted for, e.g. `byIp` or `byCredential`. Keep it cheap and synchronous. */
  key: (req: RateLimitRequest) => string;
  /** 429 code: `rate_limited_api` (capture API, default) or `rate_limited` (agent API, SPEC 7.2). */
  code?: 'rate_limited_api' | 'rate_limited';
}


/** One bucket per client address. */
export const byIp = ({ ip }: RateLimitRequest): string => `ip:${ip}`;

/**
 * One bucket per credential (API key or session token, by its hash), else per address. Keyed on
 * the presented token rather than the resolved principal so the limit is checked before any
 * account lookup. An address past RATE_LIMIT_AUTH_FAILURES is counted per address for tokens this
 * node has not seen valid (src/http/auth-failures.ts): an invented token each time adds no counter
 * row per token.
 */
export const byCredential = (ctx: Ctx) => (req: RateLimitRequest): string => {
  const token = presentedToken(req.request, req.cookie)?.token;
  if (!token || authFailureGate(ctx).countsOnAddress(req.ip, token)) return byIp(req);
  return `cred:${sha256Hex(token).slice(0, 32)}`;
};

/** Stands in for the body of a refused request so the refusal reaches onTransform (see below). */
const REFUSED_BODY = Object.freeze({});

export function rateLimit(ctx: Ctx, opts: RateLimitOptions) {
  const plugin = new Elysia();
  const rule = opts.rule;
  if (!rule) return plugin;
  // onParse and onTransform may both run for one request; it is counted once.
  const outcomes = new WeakMap<Request, Promise<RateOutcome>>();
  const count = (request: Request, cookie: CookieJar, server: PeerSource | null): Promise<RateOutcome> => {
    let outcome = outcomes.get(request);
    if (!outcome) {
      const ip = clientIp(request, server, ctx.config.trustProxy);
      outcome = consume(ctx, `${opts.name}:${opts.key({ request, cookie, ip })}`, rule);
      outcomes.set(request, outcome);
    }
    return outcome;
  };
  return (
    plugin
      // Parsing runs before onTransform, so a malformed body would otherwise get its 400 without
      // the headers. Elysia turns anything thrown here into a 400 parse error, so a refusal is
      // not thrown here: a stand-in body carries it to onTransform, which answers 429 unread.
      .onParse({ as: 'scoped' }, async ({ request, cookie, server, set }) => {
        try {
          const o = await count(request, cookie, server);
          Object.assign(set.headers, rateLimitHeaders(o));
          return o.allowed ? undefined : REFUSED_BODY;
        } catch {
          // The counter failed; onTransform awaits the same promise and reports it as a 500.
          return REFUSED_BODY;
        }
      })
      // Before body and query validation, so 400s carry the headers too.
      .onTransform({ as: 'scoped' }, async ({ request, cookie, server, set }) => {
        const o = await count(request, cookie, server);
        Object.assign(set.headers, rateLimitHeaders(o));
        if (!o.allowed) throw rateLimitForRoute(request, rateLimitError(o, opts.code ?? 'rate_limited_api', ctx.clock.now()));
      })
  );
}
