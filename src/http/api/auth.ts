import { Elysia } from 'elysia';
import * as auth from '../../services/auth';
import type { Ctx } from '../../services/context';
import { authMacro, sessionCookie } from '../auth';
import { assertSameOriginJson } from '../origin';
import { byIp, rateLimit } from '../rate-limit';
import { Credentials, SessionBody, UserBody } from './models';

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
          async ({ body, set }) => {
            const out = await auth.signup(ctx, body);
            set.status = 201;
            set.headers['set-cookie'] = sessionCookie(out.token, MAX_AGE, secure);
            return out;
          },
          { body: Credentials, response: { 201: SessionBody }, detail: { summary: 'Create an account and a browser session', security: [] } },
        )
        .post(
          '/login',
          async ({ body, set }) => {
            const out = await auth.login(ctx, body);
            set.headers['set-cookie'] = sessionCookie(out.token, MAX_AGE, secure);
            return out;
          },
          { body: Credentials, response: { 200: SessionBody }, detail: { summary: 'Start a browser session', security: [] } },
        ),
    )
    .use(authMacro(ctx))
    .post(
      '/logout',
      async ({ principal, set }) => {
        await auth.logout(ctx, principal);
        set.status = 204;
        set.headers['set-cookie'] = sessionCookie('', 0, secure);
      },
      { credential: true, detail: { summary: 'End the browser session' } },
    )
    .get(
      '/me',
      ({ user }) => auth.publicUser(user),
      { auth: 'account', response: { 200: UserBody }, detail: { summary: 'The signed-in account' } },
    );
};
