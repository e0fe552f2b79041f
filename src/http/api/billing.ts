/**
 * Stripe's webhook for the Teams subscription. No bearer auth: the Stripe-Signature header is the
 * credential, and it signs the raw bytes, so the body is taken as bytes whatever its content type
 * (`parse: 'arrayBuffer'`; Elysia 1.4 has no `parse: 'none'`, it would look up a parser so named).
 */
import { Elysia, t } from 'elysia';
import { AppError } from '../../errors';
import { handleStripeWebhook } from '../../services/billing';
import type { Ctx } from '../../services/context';
import { documented, documentedErrors, errors } from './models';

const WebhookReply = t.Object({ received: t.Literal(true), applied: t.Boolean(), reason: t.Optional(t.String()) });

/** Stripe events are a few KB; anything far larger is not one. */
const MAX_EVENT_BYTES = 1024 * 1024;

export const billingRoutes = (ctx: Ctx) =>
  new Elysia({ prefix: '/api/billing', detail: { tags: ['billing'] } }).post(
    '/stripe/webhook',
    async ({ request, body }) => {
      const raw = body instanceof ArrayBuffer ? new Uint8Array(body) : new Uint8Array(0);
      if (raw.byteLength > MAX_EVENT_BYTES) throw new AppError('payload_too_large', 'a Stripe event is at most 1 MiB');
      return handleStripeWebhook(ctx, raw, request.headers.get('stripe-signature'));
    },
    {
      parse: 'arrayBuffer',
      response: { 200: WebhookReply, ...errors(400, 404, 413) },
      detail: {
        summary:
          'Stripe webhook: customer.subscription.created/updated/deleted set the Teams subscription of metadata.team_id (seats = quantity). Signed with STRIPE_WEBHOOK_SECRET; 400 on a bad signature; each event id applies once',
        security: [],
        // Written out: with a bytes body, the generated entries would name the wrong media type.
        responses: documented({ 200: { description: 'Received', schema: WebhookReply }, ...documentedErrors(400, 404, 413) }),
      },
    },
  );
