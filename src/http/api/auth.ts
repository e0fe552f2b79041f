import { Elysia } from 'elysia';
import * as auth from '../../services/auth';
import * as passwordReset from '../../services/password-reset';
import * as emailVerification from '../../services/email-verification';
import type { Ctx } from '../../services/context';
import { authMacro, SESSION_COOKIE, sessionCookieOptions } from '../auth';
import { assertSameOriginJson } from '../origin';
import { byIp, rateLimit } from '../rate-limit-plugin';
import { AUTH_ERRORS, Credentials, EmailVerifyDone, EmailVerifyRequest, errors, NoContent, PasswordResetAccepted, PasswordResetAccount, PasswordResetConfirm, PasswordResetDone, PasswordResetRequest, PasswordResetToken, SessionBody, UserBody } from './models';

export const authRoutes = (ctx: Ctx) => {
  const secure = ctx.config.baseUrl.startsWith('https:');
  // The cookie lives as long as the session it carries (SESSION_TTL_MS).
  const maxAge = Math.ceil(ctx.config.sessionTtlMs / 1000);
  return new Elysia({ prefix: '/api/auth', detail: { tags: ['auth'] } })
    // Sign-up, log-in and password reset also count per client ip (SPEC 8): password guessing,
    // sign-up floods, reset-mail floods.
    .guard({}, (open) =>
      open
        .use(rateLimit(ctx, { name: 'auth', rule: ctx.config.rateLimits.auth, key: byIp }))
        // These set the session cookie (or mail a link): a cross-site form must not log a visitor
        // into another account (login CSRF). JSON only, from this site or from a non-browser client.
        .onTransform(({ request }) => assertSameOriginJson(request, ctx.config.baseUrl, { bodyRequired: true }))
        .post(
          '/signup',
          async ({ body, set, cookie }) => {
            const out = await auth.signup(ctx, body);
            set.status = 201;
            cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(maxAge, secure) });
            return out;
          },
          { body: Credentials, response: { 201: SessionBody, ...errors(400, 403, 409, 415) }, detail: { summary: 'Create an account and a browser session', security: [] } },
        )
        .post(
          '/login',
          async ({ body, cookie }) => {
            const out = await auth.login(ctx, body);
            cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(maxAge, secure) });
            return out;
          },
          { body: Credentials, response: { 200: SessionBody, ...errors(400, 401, 403, 415) }, detail: { summary: 'Start a browser session', security: [] } },
        )
        .post(
          '/password-reset',
          async ({ body, set }) => {
            const out = await passwordReset.requestReset(ctx, body);
            set.status = 202;
            return out;
          },
          {
            body: PasswordResetRequest,
            response: { 202: PasswordResetAccepted, ...errors(400, 403, 415) },
            detail: {
              summary: 'Mail a password-reset link',
              description:
                'Answers 202 with the same body whether or not an account has this address, and before any lookup. ' +
                `If one does, a single-use link \`${ctx.config.baseUrl}/reset-password#token=rst_…\` is mailed to it, valid for ` +
                `${Math.round(ctx.config.passwordResetTtlMs / 60_000)} minutes (PASSWORD_RESET_TTL_MS); a newer request replaces the older link. ` +
                '400 for a malformed address; 429 past RATE_LIMIT_AUTH per client address or RATE_LIMIT_RESET_EMAIL per address.',
              security: [],
            },
          },
        )
        .post('/password-reset/account', ({ body }) => passwordReset.resetAccount(ctx, body), {
          body: PasswordResetToken,
          response: { 200: PasswordResetAccount, ...errors(400, 403, 415) },
          detail: {
            summary: 'Name the account an emailed reset token belongs to, without using it',
            description:
              'Answers the address of the account whose password the token would set, so the reset page can name it and, when the ' +
              'browser is signed in to another account, ask before switching. 400 `invalid_reset_token` as the confirm route.',
            security: [],
          },
        })
        .post('/verify-email', ({ body }) => emailVerification.verifyEmail(ctx, body), {
          body: EmailVerifyRequest,
          response: { 200: EmailVerifyDone, ...errors(400, 403, 415) },
          detail: {
            summary: 'Confirm the account\'s address with the emailed verification token',
            description:
              `Sign-up mails the new account's address a single-use link \`${ctx.config.baseUrl}/verify-email#token=evf_…\`, valid for ` +
              `${Math.round(ctx.config.emailVerifyTtlMs / 3_600_000)} hours (EMAIL_VERIFY_TTL_MS); \`POST /api/account/verify-email\` sends a new one. ` +
              'This marks the address proven (`emailVerified` on the account) when the account still has the address the link was made for. ' +
              'No session needed, none is started. 400 `invalid_verification_token` for a token that is unknown, used, replaced, expired ' +
              'or made for another address (one message for all).',
            security: [],
          },
        })
        .post(
          '/password-reset/confirm',
          async ({ body, cookie }) => {
            const out = await passwordReset.confirmReset(ctx, body);
            cookie[SESSION_COOKIE]?.set({ value: out.token, ...sessionCookieOptions(maxAge, secure) });
            return out;
          },
          {
            body: PasswordResetConfirm,
            response: { 200: PasswordResetDone, ...errors(400, 403, 415) },
            detail: {
              summary: 'Set a new password with an emailed reset token',
              description:
                'Sets the password (sign-up rules: at least 8 characters, argon2id), ends every browser session of the account, ' +
                'and answers with a new session (and its cookie) and the account it belongs to (`user.email`), as log-in does. ' +
                'When the account had a password before (a recovery), every API key of the account is revoked in the same transaction; ' +
                '`revokedApiKeys` says how many. An account that had none (made by an agent) keeps its keys (`revokedApiKeys: 0`). ' +
                'A "your hookcap password was changed" mail then goes to the address. The token works once. ' +
                '400 `invalid_reset_token` for a token that is unknown, used, replaced or expired (one message for all); ' +
                '400 `validation` for a password that is too short (the token stays usable).',
              security: [],
            },
          },
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
