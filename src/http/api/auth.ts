import { Elysia } from 'elysia';
import * as auth from '../../services/auth';
import type { Ctx } from '../../services/context';
import { authMacro, SESSION_COOKIE, sessionCookieOptions } from '../auth';
import { assertSameOriginJson } from '../origin';
import { byIp, rateLimit } from '../rate-limit';
import { AUTH_ERRORS, Credentials, errors, NoContent, SessionBody, UserBody } from './models';

const MAX_AGE = 30 * 24 * 3600;

export const authRoutes = (ctx: Ctx) => {
  const secure = ctx.config.baseUrl.startsWith('https:');
  return new Elysia({ prefix: '/api/auth', detail: { tags: ['auth'] } })
    // Sign-up and log-in also count per client ip (SPEC 8): password guessing, sign-up floods.
    .guard({}, (open) =>
      open
        .use(rateLimit(ctx, { name: 'auth', rule: ctx.config.rateLimits.auth, key: byIp }))
        // These set the session cookie: a cross-site form must not log a visitor into another
        // account (login CSRF). JSON only, from this site or from a non-browser client.
        .onTransform(({ request }) => assertSameOriginJson(request, ctx.config.baseUrl, { bodyRequired: true }))
        .post(
          '/signup',
          async ({ body, set, cookie }) => {
            const out = await auth.signup(ctx, body);
            set.status = 201;
            cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(MAX_AGE, secure) });
            return out;
          },
          { body: Credentials, response: { 201: SessionBody, ...errors(400, 403, 409, 415) }, detail: { summary: 'Create an account and a browser session', security: [] } },
        )
        .post(
          '/login',
          async ({ body, cookie }) => {
            const out = await auth.login(ctx, body);
            cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(MAX_AGE, secure) });
            return out;
          },
          { body: Credentials, response: { 200: SessionBody, ...errors(400, 401, 403, 415) }, detail: { summary: 'Start a browser session', security: [] } },
        ),
    )
    .use(authMacro(ctx))
    .post(
      '/logout',
      async ({ principal, set, cookie }) => {
        await auth.logout(ctx, principal);
        set.status = 204;
        cookie[SESSION_COOKIE]?.set({ value: '', ...sessionCookieOptions(0, secure) });
      },
      { credential: true, response: { 204: NoContent, ...errors(401) }, detail: { summary: 'End the browser session' } },
    )
    .get(
      '/me',
      ({ user }) => auth.publicUser(user),
      { auth: 'account', response: { 200: UserBody, ...errors(...AUTH_ERRORS) }, detail: { summary: 'The signed-in account' } },
    );
};
