/**
 * The few server-rendered pages (claim ceremony, log-in): escaping, one layout, and the headers
 * that keep them from being framed (the confirm button must not be clickjacked), cached, or
 * leaking the claim token in a Referer to other sites.
 */
import type { Ctx } from '../../services/context';
import { resolveToken } from '../../services/auth';
import type { UserRow } from '../../stores/state/schema';
import { readSessionCookie } from '../auth';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
export function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'unsafe-inline'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

const STYLE = `body{font:16px/1.5 system-ui,sans-serif;max-width:34rem;margin:3rem auto;padding:0 1rem;color:#1d1d1f}
h1{font-size:1.4rem}form{margin:1rem 0}label{display:block;margin:.5rem 0 .2rem}
input{font:inherit;padding:.4rem;width:100%;box-sizing:border-box}button{font:inherit;padding:.5rem 1rem;margin-top:.8rem;cursor:pointer}
.error{background:#fdecea;border:1px solid #f5c2c0;padding:.6rem .8rem}.ok{background:#e8f5e9;border:1px solid #b7dfb9;padding:.6rem .8rem}
code{background:#f2f2f2;padding:0 .25rem}.muted{color:#666;font-size:.9rem}`;

/** A whole page; `body` must already be escaped HTML. */
export function page(title: string, body: string, status = 200, extraHeaders: Record<string, string> = {}): Response {
  const html = `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${esc(title)} · hookcap</title><style>${STYLE}</style></head><body>${body}</body></html>`;
  return new Response(html, { status, headers: { ...PAGE_HEADERS, ...extraHeaders } });
}

export function redirect(location: string, extraHeaders: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...extraHeaders } });
}

/** The signed-in browser user (session cookie only), or null. */
export async function sessionUser(ctx: Ctx, request: Request): Promise<UserRow | null> {
  const token = readSessionCookie(request.headers.get('cookie'));
  if (!token) return null;
  const principal = await resolveToken(ctx, token);
  return principal?.kind === 'session' ? principal.user : null;
}

/**
 * A form post from one of our own pages. SameSite=Lax already keeps the session cookie off
 * cross-site posts; this also refuses cross-site log-in posts (login CSRF would let an attacker
 * have a victim claim an agent into the attacker's account).
 */
export function isSameOriginPost(request: Request): boolean {
  const site = request.headers.get('sec-fetch-site');
  if (site !== null && site !== 'same-origin' && site !== 'none') return false;
  const origin = request.headers.get('origin');
  if (origin === null) return true;
  try {
    return new URL(origin).host === request.headers.get('host');
  } catch {
    return false;
  }
}

/** A urlencoded form from a body read by `rawText`; oversized forms read as empty. */
export function readForm(body: unknown): URLSearchParams {
  const text = typeof body === 'string' ? body : '';
  return new URLSearchParams(text.length > 16 * 1024 ? '' : text);
}
