/** Resolves the caller from `Authorization: Bearer …` or the `session` cookie. */
import { Elysia } from 'elysia';
import { AppError } from '../errors';
import { resolveToken } from '../services/auth';
import type { Ctx, Principal } from '../services/context';
import { assertSameOriginJson } from './origin';

export const SESSION_COOKIE = 'session';

export function bearer(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1] ?? null;
}

/**
 * The session cookie's value, or null. Never throws: a value that is not valid percent-encoding
 * (`session=%ZZ`, which a mock's set-cookie could once plant) is returned as sent, and, matching no
 * session, gets the caller a 401.
 */
export function readSessionCookie(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const eq = part.indexOf('=');
    if (eq < 0 || part.slice(0, eq).trim() !== SESSION_COOKIE) continue;
    const raw = part.slice(eq + 1).trim();
    try {
      return decodeURIComponent(raw);
    } catch {
      return raw;
    }
  }
  return null;
}

export async function authenticate(ctx: Ctx, request: Request): Promise<Principal> {
  const key = bearer(request.headers.get('authorization') ?? undefined);
  const token = key ?? readSessionCookie(request.headers.get('cookie'));
  if (!token) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer svc_…');
  // A browser attaches the cookie to requests other sites start too (src/http/origin.ts).
  if (key === null) assertSameOriginJson(request, ctx.config.baseUrl);
  const principal = await resolveToken(ctx, token);
  if (!principal) throw new AppError('unauthorized', 'invalid or revoked API key');
  return principal;
}

/** Adds `principal` to every route registered after it in the using instance. */
export const authPlugin = (ctx: Ctx) =>
  new Elysia({ name: 'auth' }).resolve({ as: 'scoped' }, async ({ request }) => ({
    principal: await authenticate(ctx, request),
  }));

export function sessionCookie(token: string, maxAgeSeconds: number, secure: boolean): string {
  return `${SESSION_COOKIE}=${token}; Path=/; HttpOnly; SameSite=Lax; Max-Age=${maxAgeSeconds}${secure ? '; Secure' : ''}`;
}
