/**
 * The minimal log-in / sign-up page of the claim ceremony: a visitor who is not signed in is sent
 * here from /agent/claim and back there (only there) afterwards.
 */
import { Elysia } from 'elysia';
import { paths } from '../../../web/src/paths';
import { AppError } from '../../errors';
import { buckets, RateMeter } from '../../services/agent/rate-meter';
import * as auth from '../../services/auth';
import type { Ctx } from '../../services/context';
import { rawText } from '../api/agent';
import { clientIp } from '../client-ip';
import { SESSION_COOKIE, sessionCookieOptions, type CookieJar } from '../auth';
import { html, isSameOriginPost, page, readForm, redirect, sessionUser } from './html';

/** Only claim pages are valid destinations, so the page can never become an open redirect. */
export function safeNext(raw: string | null | undefined): string {
  return raw && /^\/agent\/claim(?:\?[A-Za-z0-9_\-.~%=&+]*)?$/.test(raw) ? raw : '/agent/claim';
}

type FormName = 'login' | 'signup';

/** After a refusal, the refused form keeps the address typed in it (never the password). */
export function loginPage(next: string, error: string | null = null, status = 200, kept: { form: FormName; email: string } | null = null): Response {
  const hidden = html`<input type="hidden" name="next" value="${next}">`;
  const email = (form: FormName) => (kept?.form === form ? kept.email : '');
  const note = error ? html`<p class="error" role="alert">${error}</p>` : null;
  return page(
    'Sign in',
    html`<h1>Sign in to continue</h1>
<p>An AI agent wants to be connected to a hookcap account. Sign in, or create an account, to review it.</p>${note}
<form method="post" action="/agent/login" id="login" aria-label="Sign in">${hidden}
<label for="login-email">Email</label><input id="login-email" name="email" type="email" value="${email('login')}" autocomplete="username" required>
<label for="login-password">Password</label><input id="login-password" name="password" type="password" autocomplete="current-password" required>
<button type="submit">Sign in</button></form>
<p><a href="${paths.forgotPassword}">Forgot password?</a></p>
<h2>New to hookcap?</h2>
<form method="post" action="/agent/signup" id="signup" aria-label="Create an account">${hidden}
<label for="signup-email">Email</label><input id="signup-email" name="email" type="email" value="${email('signup')}" autocomplete="username" required>
<label for="signup-password">Password (at least 8 characters)</label><input id="signup-password" name="password" type="password" autocomplete="new-password" minlength="8" required>
<button type="submit">Create account</button></form>`,
    status,
  );
}

export const loginPages = (ctx: Ctx) => {
  const secure = ctx.config.baseUrl.startsWith('https:');
  // The cookie lives as long as the session it carries (SESSION_TTL_MS).
  const maxAge = Math.ceil(ctx.config.sessionTtlMs / 1000);
  const submit = (verb: typeof auth.login, name: FormName) => async ({ request, body, server, cookie }: { request: Request; body: unknown; server: Parameters<typeof clientIp>[1]; cookie: CookieJar }) => {
    const form = readForm(body);
    const next = safeNext(form.get('next'));
    const kept = { form: name, email: form.get('email') ?? '' };
    if (!isSameOriginPost(ctx, request)) return loginPage(next, 'This form must be sent from this site.', 403, kept);
    try {
      // Password guessing through this page is bounded like the other agent attempts.
      await new RateMeter(ctx).consume(buckets.loginIp(clientIp(request, server, ctx.config.trustProxy)), ctx.config.agent.ratePerIp);
      const out = await verb(ctx, { email: form.get('email') ?? '', password: form.get('password') ?? '' });
      cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(maxAge, secure) });
      return redirect(next);
    } catch (e) {
      if (!(e instanceof AppError)) throw e;
      // Any 429: the page's own per-address limit (`rate_limited`) or the per-account log-in limit (`rate_limited_api`).
      return loginPage(next, e.status === 429 ? 'Too many attempts; try again later.' : e.message, e.status, kept);
    }
  };
  return new Elysia({ detail: { tags: ['pages'], hide: true } })
    .get('/agent/login', async ({ cookie, query }) => {
      const next = safeNext(query.next);
      // Already signed in: nothing to do here.
      return (await sessionUser(ctx, cookie)) ? redirect(next) : loginPage(next);
    })
    .post('/agent/login', submit(auth.login, 'login'), { parse: rawText })
    .post('/agent/signup', submit(auth.signup, 'signup'), { parse: rawText });
};
