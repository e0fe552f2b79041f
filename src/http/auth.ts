/** Resolves the caller from `Authorization: Bearer …` or the `session` cookie. */
import { Elysia } from 'elysia';
import { AppError } from '../errors';
import { resolveToken } from '../services/auth';
import type { Ctx, Principal } from '../services/context';

export const SESSION_COOKIE = 'session';

export function bearer(authorization: string | undefined): string | null {
  if (!authorization) return null;
  const m = /^Bearer\s+(\S+)\s*$/i.exec(authorization);
  return m?.[1] ?? null;
}

export function readSessionCookie(cookieHeader: string | null): string | null {
  if (!cookieHeader) return null;
  for (const part of cookieHeader.split(';')) {
    const [k, ...v] = part.trim().split('=');
    if (k === SESSION_COOKIE) return decodeURIComponent(v.join('='));
  }
  return null;
}

export async function authenticate(ctx: Ctx, request: Request): Promise<Principal> {
  const token = bearer(request.headers.get('authorization') ?? undefined) ?? readSessionCookie(request.headers.get('cookie'));
  if (!token) throw new AppError('unauthorized', 'missing API key: send Authorization: Bearer svc_…');
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
