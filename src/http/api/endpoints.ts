import { Type } from '@sinclair/typebox';
import { Elysia, t } from 'elysia';
import type { Ctx } from '../../services/context';
import { ACTIVITY_MAX_ENDPOINTS, endpointActivity } from '../../services/activity';
import * as endpoints from '../../services/endpoints';
import * as notificationSecret from '../../services/notification-secret';
import { SigningConfigSchema } from '../../engine/signing';
import { authMacro } from '../auth';
import { AUTH_ERRORS, EndpointActivity, EndpointBody, errors, MockResponseInput, NoContent, NotificationSecretBody } from './models';

/**
 * Seconds until the endpoint expires: the same bounds on create and PATCH (services/endpoints.ts).
 * TypeBox's own Integer, not Elysia's, which would also take the text "3600": a number is asked for.
 */
const ExpiresIn = Type.Integer({
  minimum: endpoints.EXPIRES_IN_MIN_S,
  maximum: endpoints.EXPIRES_IN_MAX_S,
  description:
    `Seconds from now until the endpoint and all its captures are deleted, as DELETE does (${endpoints.EXPIRES_IN_MIN_S} to ${endpoints.EXPIRES_IN_MAX_S}, 30 days). ` +
    'From then on captures sent to it get 404 like an unknown slug, and reads of it 404.',
});

export const endpointRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/endpoints', detail: { tags: ['endpoints'] } })
    .use(authMacro(ctx))
    .post(
      '',
      async ({ user, body, set }) => {
        const row = await endpoints.createEndpoint(ctx, user, body.name, body.expiresIn);
        set.status = 201;
        return endpoints.publicEndpoint(ctx, row);
      },
      {
        auth: 'account',
        body: t.Object({ name: t.String({ maxLength: 200 }), expiresIn: t.Optional(ExpiresIn) }),
        response: { 201: EndpointBody, ...errors(400, ...AUTH_ERRORS) },
        detail: { summary: 'Create a capture endpoint' },
      },
    )
    .get(
      '',
      async ({ user }) =>
        (await endpoints.listEndpoints(ctx, user)).map((e) => endpoints.publicEndpoint(ctx, e)),
      { auth: 'account', response: { 200: t.Array(EndpointBody), ...errors(...AUTH_ERRORS) }, detail: { summary: 'List your endpoints' } },
    )
    .get('/activity', ({ user }) => endpointActivity(ctx, user), {
      auth: 'account',
      response: { 200: t.Array(EndpointActivity), ...errors(...AUTH_ERRORS) },
      detail: {
        summary: 'How many requests each endpoint you can read holds, and when the last came',
        description:
          'One entry per endpoint you can read: your own, then those shared with you through an active team, each in the order its list gives (oldest first). ' +
          `At most ${ACTIVITY_MAX_ENDPOINTS} endpoints per call; any past them are left out. count is what the endpoint's request list pages through ` +
          '(captures cleared with Clear captures and expired ones are not counted); lastReceivedAt is null when it holds none.',
      },
    })
    .get(
      '/:slug',
      async ({ user, params }) =>
        endpoints.publicEndpoint(ctx, await endpoints.getOwnEndpoint(ctx, user, params.slug)),
      { auth: 'account', response: { 200: EndpointBody, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: 'Get one endpoint' } },
    )
    .patch(
      '/:slug',
      async ({ user, params, body }) =>
        endpoints.publicEndpoint(ctx, await endpoints.updateEndpoint(ctx, user, params.slug, body)),
      {
        auth: 'account',
        body: t.Object({
          name: t.Optional(t.String({ maxLength: 200 })),
          mockResponse: t.Optional(t.Union([MockResponseInput, t.Null()])),
          notificationUrl: t.Optional(t.Union([t.String(), t.Null()])),
          signing: t.Optional(t.Union([SigningConfigSchema, t.Null()])),
          expiresIn: t.Optional(t.Union([ExpiresIn, t.Null()], { description: 'A new expiry, counted from now (replaces the old one), or null: never expires' })),
          expiresAt: t.Optional(
            t.Union([Type.Integer(), t.Null()], {
              description: 'Read-only, taken so a GET can be sent back: the value GET shows is ignored; another one is 400 unless expiresIn is given (set the expiry with expiresIn)',
            }),
          ),
        }),
        response: { 200: EndpointBody, ...errors(400, ...AUTH_ERRORS, 404) },
        detail: {
          summary: 'Update name, mock response (null clears), notification URL (null stops), signature verification (null turns off) or expiry (expiresIn; null: never)',
          description:
            'Fields left out are left as they are. The endpoint as GET shows it may be sent back whole with fields changed: its read-only fields (id, slug, url, createdAt, …) are ignored, ' +
            'and expiresAt too while it is the value GET shows (a different one is 400: the expiry is set with expiresIn). Any other field is 400 (`<field>: is not a field of this request`).',
        },
      },
    )
    .post(
      '/:slug/notification-secret',
      async ({ user, params, set }) => {
        const made = await notificationSecret.rotateNotificationSecret(ctx, user, params.slug);
        set.status = 201;
        return made;
      },
      {
        auth: 'account',
        response: { 201: NotificationSecretBody, ...errors(400, ...AUTH_ERRORS, 404) },
        detail: {
          summary: 'Make (or replace) the secret notifications are signed with; the secret is returned only here',
          description:
            'Notifications of this endpoint carry Standard Webhooks headers (webhook-id, webhook-timestamp, webhook-signature) signed with this secret ' +
            '(docs/notifications.md). Replacing it makes the old secret stop signing at once, retries included. Takes no body.',
        },
      },
    )
    .delete(
      '/:slug/notification-secret',
      async ({ user, params, set }) => {
        await notificationSecret.removeNotificationSecret(ctx, user, params.slug);
        set.status = 204;
      },
      {
        auth: 'account',
        response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) },
        detail: { summary: 'Remove the notification secret: notifications go out unsigned again (204 also when there was none)' },
      },
    )
    .delete(
      '/:slug',
      async ({ user, params, set }) => {
        await endpoints.deleteEndpoint(ctx, user, params.slug);
        set.status = 204;
      },
      { auth: 'account', response: { 204: NoContent, ...errors(...AUTH_ERRORS, 404) }, detail: { summary: 'Delete the endpoint and all its captured requests' } },
    );
