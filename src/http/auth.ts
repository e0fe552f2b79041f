/**
 * Who is calling: `Authorization: Bearer …` or the `session` cookie (read through Elysia's cookie
 * jar). Routes declare what they need with the `auth` macro, and the check runs before the body is
 * parsed or validated: a caller without a credential learns nothing of a route's schema (SPEC 7.1).
 *
 *   .use(authMacro(ctx)).post('/x', ({ user }) => …, { auth: 'account', body: … })
 *
 * - `auth: 'account'`: an account's API key or browser session (unclaimed agent keys get 403);
 *   the handler gets `user` and `principal`.
 * - `auth: 'session'`: a browser session only (SPEC 4.7; an API key gets 403); `user`, `principal`.
 * - `credential: true`: any valid credential, unclaimed agent keys included; `principal` only.
 */
import { Elysia, type Cookie } from 'elysia';
import { AppError } from '../errors';
import { requireAccount, requireSession, resolveToken } from '../services/auth';
import type { Ctx, Principal } from '../services/context';
import type { UserRow } from '../stores/state/schema';
import { authFailureGate } from './auth-failures';
import { clientIp, type PeerSource } from './client-ip';
import { rateLimitForRoute } from './errors';
import { assertSameOriginJson } from './origin';

export const SESSION_COOKIE = 'session';

export type AuthKind = 'account' | 'session';

export function bearer(authorization: string | undefined | null): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1] ?? null;
}

/** The parsed cookies of a request, as Elysia hands them to hooks and handlers. */
export type CookieJar = Record<string, Cookie<unknown>>;

/**
 * The session token from Elysia's cookie jar, or null. A value that is not valid
 * percent-encoding (`session=%ZZ`) or that Elysia read as JSON is no token: it matches no session,
 * so the caller gets a 401, never a 500.
 */
export function sessionToken(cookie: CookieJar | undefined): string | null {
  const value: unknown = cookie?.[SESSION_COOKIE]?.value;
  return typeof value === 'string' && value !== '' ? value : null;
}

/** The presented credential, bearer first; `viaCookie` says which one it was. */
export function presentedToken(request: Request, cookie: CookieJar | undefined): { token: string; viaCookie: boolean } | null {
  const key = bearer(request.headers.get('authorization'));
  if (key !== null) return { token: key, viaCookie: false };
  const session = sessionToken(cookie);
  return session === null ? null : { token: session, viaCookie: true };
}

/**
 * The challenge of every 401 from an API route (RFC 6750 §3, RFC 9728 §5.1): it names the
 * protected resource metadata, from which a client without a key (an AI agent) finds where to
 * register (docs/agents.md, Discovery).
 */
export function bearerChallenge(baseUrl: string, error?: 'invalid_token'): Record<string, string> {
  const metadata = `resource_metadata="${baseUrl}/.well-known/oauth-protected-resource"`;
  return { 'www-authenticate': error ? `Bearer error="${error}", ${metadata}` : `Bearer ${metadata}` };
}

export async function authenticate(ctx: Ctx, request: Request, cookie: CookieJar | undefined, server: PeerSource | null): Promise<Principal> {
  const presented = presentedToken(request, cookie);
  if (!presented) {
    throw new AppError(
      'unauthorized',
      'missing API key: send Authorization: Bearer svc_… (an AI agent without a key gets one at POST /api/agent/auth; see /.well-known/oauth-authorization-server)',
      bearerChallenge(ctx.config.baseUrl),
    );
  }
  // A browser attaches the cookie to requests other sites start too (src/http/origin.ts).
  if (presented.viaCookie) assertSameOriginJson(request, ctx.config.baseUrl);
  // Unknown or revoked tokens are limited per client address (src/http/auth-failures.ts).
  const gate = authFailureGate(ctx);
  const ip = clientIp(request, server, ctx.config.trustProxy);
  const refused = gate.refusal(ip, presented.token);
  if (refused) throw rateLimitForRoute(request, refused);
  const principal = await resolveToken(ctx, presented.token);
  if (!principal) {
    const over = await gate.noteFailure(ip);
    if (over) throw rateLimitForRoute(request, over);
    throw new AppError('unauthorized', 'invalid or revoked API key', bearerChallenge(ctx.config.baseUrl, 'invalid_token'));
  }
  gate.noteValid(presented.token);
  return principal;
}

function admit(principal: Principal, kind: AuthKind | 'any'): Principal {
  if (kind === 'account') requireAccount(principal);
  if (kind === 'session') requireSession(principal);
  return principal;
}

type HookCtx = { request: Request; cookie: CookieJar; server: PeerSource | null };

/**
 * The `auth` macro. The check starts in the parse hook (before the body is read, so a malformed
 * body from a stranger is a 401 too) and, for bodiless requests, in transform; both await the same
 * lookup, once per request. Anything thrown in a parse hook reaches the error handler wrapped in
 * Elysia's ParseError, which unwraps it (src/http/errors.ts).
 */
export const authMacro = (ctx: Ctx) => {
  const checks = new WeakMap<Request, Promise<Principal>>();
  const check = (request: Request, cookie: CookieJar | undefined, server: PeerSource | null, kind: AuthKind | 'any'): Promise<Principal> => {
    let p = checks.get(request);
    if (!p) {
      p = authenticate(ctx, request, cookie, server).then((principal) => admit(principal, kind));
      // Awaited by a later hook; never left unobserved if the request ends first.
      p.catch(() => {});
      checks.set(request, p);
    }
    return p;
  };
  const early = (kind: AuthKind | 'any') => ({
    parse: async ({ request, cookie, server }: HookCtx) => {
      await check(request, cookie, server, kind);
    },
    transform: async ({ request, cookie, server }: HookCtx) => {
      await check(request, cookie, server, kind);
    },
  });
  return new Elysia({ name: 'auth-macro' }).macro({
    auth: (kind: AuthKind) => ({
      ...early(kind),
      resolve: async ({ request, cookie, server }: HookCtx): Promise<{ principal: Principal; user: UserRow }> => {
        const principal = await check(request, cookie, server, kind);
        return { principal, user: requireAccount(principal) };
      },
    }),
    credential: {
      ...early('any'),
      resolve: async ({ request, cookie, server }: HookCtx): Promise<{ principal: Principal }> => ({ principal: await check(request, cookie, server, 'any') }),
    },
  });
};

/** The session cookie's attributes, for Elysia's `cookie.session.set({ value, ...these })`. */
export function sessionCookieOptions(maxAgeSeconds: number, secure: boolean) {
  return { path: '/', httpOnly: true, sameSite: 'lax' as const, maxAge: maxAgeSeconds, secure };
}
