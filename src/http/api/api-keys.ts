import { Elysia, t } from 'elysia';
import { AppError } from '../../errors';
import * as accounts from '../../services/accounts';
import * as keys from '../../services/api-keys';
import { authMacro } from '../auth';
import * as passwordChange from '../../services/password-change';
import * as emailVerification from '../../services/email-verification';
import type { Ctx, Principal } from '../../services/context';
import { byIp, rateLimit } from '../rate-limit-plugin';
import { ApiKeyBody, AUTH_ERRORS, EmailVerifySent, errors, NewApiKeyBody, NoContent, PasswordChange, PasswordChanged } from './models';

/** The macro's `auth: 'session'` admits only sessions; this narrows the type to match. */
function sessionOf(p: Principal): Extract<Principal, { kind: 'session' }> {
  if (p.kind !== 'session') throw new AppError('forbidden', 'this route needs a browser session, not an API key');
  return p;
}

/** SPEC 4.7: session-token-only routes. An API key gets 403. */
export const sessionOnlyRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api', detail: { tags: ['account'] } })
    .use(authMacro(ctx))
    .get('/api-keys', ({ user }) => keys.listKeys(ctx, user), {
      auth: 'session',
      response: { 200: t.Array(ApiKeyBody), ...errors(...AUTH_ERRORS) },
      detail: { summary: 'List API keys (browser session only)' },
    })
    .post(
      '/api-keys',
      async ({ user, body, set }) => {
        const out = await keys.createKey(ctx, user, body?.name);
        set.status = 201;
        return out;
      },
      {
        auth: 'session',
        body: t.Optional(t.Object({ name: t.Optional(t.String({ maxLength: 100 })) })),
        response: { 201: NewApiKeyBody, ...errors(400, ...AUTH_ERRORS, 409) },
        detail: { summary: 'Create an API key; the raw key is shown only in this response' },
      },
    )
    .delete(
      '/api-keys',
      async ({ user, query, set }) => {
        if (!query.id) throw new AppError('validation', 'query parameter id is required');
        await keys.deleteKey(ctx, user, query.id);
        set.status = 204;
      },
      { auth: 'session', query: t.Object({ id: t.Optional(t.String()) }), response: { 204: NoContent, ...errors(400, ...AUTH_ERRORS, 404) }, detail: { summary: 'Delete an API key' } },
    )
    // Password checks count against the log-in limits per client address (RATE_LIMIT_AUTH).
    .guard({}, (limited) =>
      limited.use(rateLimit(ctx, { name: 'auth', rule: ctx.config.rateLimits.auth, key: byIp })).post(
        '/account/password',
        ({ principal, body }) => passwordChange.changePassword(ctx, sessionOf(principal), body),
        {
          auth: 'session',
          body: PasswordChange,
          response: { 200: PasswordChanged, ...errors(400, ...AUTH_ERRORS, 415) },
          detail: {
            summary: 'Change the password (browser session only)',
            description:
              'Takes the current password and a new one (sign-up rules: at least 8 characters). Every other browser session of the ' +
              'account is signed out (their live streams end); this one stays, and API keys keep working. A "your password was ' +
              'changed" mail goes to the account\'s address. 400 `wrong_password` when `currentPassword` is wrong, 400 `validation` ' +
              'for a short `newPassword`; every attempt counts against the log-in limits (429 past RATE_LIMIT_AUTH per client ' +
              'address or RATE_LIMIT_LOGIN_ACCOUNT per account). With the session cookie: JSON from this site only (403, 415).',
          },
        },
      )
      .post(
        '/account/verify-email',
        async ({ user, set }) => {
          const out = await emailVerification.resendVerification(ctx, user);
          set.status = 202;
          return out;
        },
        {
          auth: 'session',
          response: { 202: EmailVerifySent, ...errors(...AUTH_ERRORS, 409, 415, 503) },
          detail: {
            summary: 'Mail a new address-verification link (browser session only)',
            description:
              'Mails the account\'s address a new single-use link (`/verify-email#token=evf_…`, see `POST /api/auth/verify-email`); the older ' +
              'link stops working. 409 when the address is already confirmed; 429 past RATE_LIMIT_RESET_EMAIL per account or ' +
              'RATE_LIMIT_AUTH per client address; 503 when the mail could not be sent (ask again).',
          },
        },
      ),
    )
    .delete(
      '/account',
      async ({ user, set }) => {
        await accounts.deleteAccount(ctx, user);
        set.status = 204;
      },
      { auth: 'session', response: { 204: NoContent, ...errors(...AUTH_ERRORS) }, detail: { summary: 'Delete the account, its endpoints and every capture of them' } },
    );
