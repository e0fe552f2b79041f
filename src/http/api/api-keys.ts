import { Elysia, t } from 'elysia';
import { AppError } from '../../errors';
import * as accounts from '../../services/accounts';
import * as keys from '../../services/api-keys';
import type { Ctx } from '../../services/context';
import { authMacro } from '../auth';
import { ApiKeyBody, AUTH_ERRORS, errors, NewApiKeyBody, NoContent } from './models';

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
    .delete(
      '/account',
      async ({ user, set }) => {
        await accounts.deleteAccount(ctx, user);
        set.status = 204;
      },
      { auth: 'session', response: { 204: NoContent, ...errors(...AUTH_ERRORS) }, detail: { summary: 'Delete the account, its endpoints and every capture of them' } },
    );
