/**
 * The few server-rendered pages (claim ceremony, log-in): the `html` tag (escapes by default), one layout (styled by the
 * dashboard's shared stylesheet, web/src/styles/pages.css), and the headers
 * that keep them from being framed (the confirm button must not be clickjacked), cached, or
 * leaking the claim token in a Referer to other sites.
 */
import type { Ctx } from '../../services/context';
import { resolveToken } from '../../services/auth';
import type { UserRow } from '../../stores/state/schema';
import { sessionToken, type CookieJar } from '../auth';
import { isSameOrigin } from '../origin';

const ESCAPES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&#39;' };

/** Escapes text for HTML element content and quoted attribute values. */
function esc(value: string | number): string {
  return String(value).replace(/[&<>"']/g, (c) => ESCAPES[c] ?? c);
}

/** Markup made by the `html` tag: the only thing inserted into a page without escaping. */
export class Html {
  constructor(readonly text: string) {}
}

type Part = Html | string | number | null | undefined | false | readonly Part[];

const render = (v: Part): string => {
  if (v instanceof Html) return v.text;
  if (Array.isArray(v)) return v.map(render).join('');
  if (v === null || v === undefined || v === false) return '';
  return esc(v as string | number);
};

/**
 * Builds markup from a template: every interpolated value is escaped (text, attribute values)
 * unless it is itself `Html`, so no caller has to remember to escape. Lists are joined;
 * null, undefined and false render as nothing.
 *
 * @example html`<p class="error">${message}</p>${items.map((i) => html`<li>${i}</li>`)}`
 */
export function html(strings: TemplateStringsArray, ...values: Part[]): Html {
  let out = strings[0] ?? '';
  for (let i = 0; i < values.length; i++) out += render(values[i] as Part) + (strings[i + 1] ?? '');
  return new Html(out);
}

export const PAGE_HEADERS: Record<string, string> = {
  'content-type': 'text/html; charset=utf-8',
  'cache-control': 'no-store',
  'content-security-policy': "default-src 'none'; style-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'",
  'x-frame-options': 'DENY',
  'x-content-type-options': 'nosniff',
  'referrer-policy': 'same-origin',
};

/** A whole page around `body`. */
export function page(title: string, body: Html, status = 200, extraHeaders: Record<string, string> = {}): Response {
  const doc = html`<!doctype html><html lang="en"><head><meta charset="utf-8"><meta name="viewport" content="width=device-width,initial-scale=1">
<title>${title} · hookcap</title><link rel="stylesheet" href="/assets/pages.css"></head><body>${body}</body></html>`;
  return new Response(doc.text, { status, headers: { ...PAGE_HEADERS, ...extraHeaders } });
}

export function redirect(location: string, extraHeaders: Record<string, string> = {}): Response {
  return new Response(null, { status: 303, headers: { location, 'cache-control': 'no-store', ...extraHeaders } });
}

/** The signed-in browser user (session cookie only), or null. */
export async function sessionUser(ctx: Ctx, cookie: CookieJar): Promise<UserRow | null> {
  const token = sessionToken(cookie);
  if (!token) return null;
  const principal = await resolveToken(ctx, token);
  return principal?.kind === 'session' ? principal.user : null;
}

/**
 * A form post from one of our own pages. SameSite=Lax already keeps the session cookie off
 * cross-site posts; this also refuses cross-site log-in posts (login CSRF would let an attacker
 * have a victim claim an agent into the attacker's account). Same policy as the API's.
 */
export const isSameOriginPost = (ctx: Ctx, request: Request): boolean => isSameOrigin(request, ctx.config.baseUrl);

/** A urlencoded form from a body read by `rawText`; oversized forms read as empty. */
export function readForm(body: unknown): URLSearchParams {
  const text = typeof body === 'string' ? body : '';
  return new URLSearchParams(text.length > 16 * 1024 ? '' : text);
}
