import { Elysia, t } from 'elysia';
import { requireAccount } from '../../services/auth';
import type { Ctx } from '../../services/context';
import * as endpoints from '../../services/endpoints';
import { SigningConfigSchema } from '../../engine/signing';
import { authPlugin } from '../auth';
import { EndpointBody, MockResponseBody } from './models';

export const endpointRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/endpoints', detail: { tags: ['endpoints'] } })
    .use(authPlugin(ctx))
    .post(
      '',
      async ({ principal, body, set }) => {
        const row = await endpoints.createEndpoint(ctx, requireAccount(principal), body.name);
        set.status = 201;
        return endpoints.publicEndpoint(ctx, row);
      },
      {
        body: t.Object({ name: t.String({ maxLength: 200 }) }),
        response: { 201: EndpointBody },
        detail: { summary: 'Create a capture endpoint' },
      },
    )
    .get(
      '',
      async ({ principal }) =>
        (await endpoints.listEndpoints(ctx, requireAccount(principal))).map((e) => endpoints.publicEndpoint(ctx, e)),
      { response: { 200: t.Array(EndpointBody) }, detail: { summary: 'List your endpoints' } },
    )
    .get(
      '/:slug',
      async ({ principal, params }) =>
        endpoints.publicEndpoint(ctx, await endpoints.getOwnEndpoint(ctx, requireAccount(principal), params.slug)),
      { response: { 200: EndpointBody }, detail: { summary: 'Get one endpoint' } },
    )
    .patch(
      '/:slug',
      async ({ principal, params, body }) =>
        endpoints.publicEndpoint(ctx, await endpoints.updateEndpoint(ctx, requireAccount(principal), params.slug, body)),
      {
        body: t.Object({
          name: t.Optional(t.String({ maxLength: 200 })),
          mockResponse: t.Optional(t.Union([MockResponseBody, t.Null()])),
          notificationUrl: t.Optional(t.Union([t.String(), t.Null()])),
          signing: t.Optional(t.Union([SigningConfigSchema, t.Null()])),
        }),
        response: { 200: EndpointBody },
        detail: {
          summary: 'Update name, mock response (null clears), notification URL (null stops) or signature verification (null turns off)',
        },
      },
    )
    .delete(
      '/:slug',
      async ({ principal, params, set }) => {
        await endpoints.deleteEndpoint(ctx, requireAccount(principal), params.slug);
        set.status = 204;
      },
      { detail: { summary: 'Delete the endpoint and all its captured requests' } },
    );
