/**
 * The Teams subscription (SPEC 4.5, 8: 12 USD per seat per month). Its state lives in Postgres,
 * one row per team, written by Stripe webhooks (`customer.subscription.*`, team id in metadata,
 * seats = quantity) or by an operator's admin command. Inviting and sharing need it active;
 * members read shared endpoints only while it is.
 */
import { AppError } from '../errors';
import * as store from '../stores/state/teams';
import * as shareStore from '../stores/state/team-shares';
import * as subscriptionStore from '../stores/state/team-subscriptions';
import type { TeamSubscriptionRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { announceTeamAccess } from './team-access';
import { parseStripeEvent, verifyStripeSignature, type StripeEvent, type StripeSubscription } from './stripe-events';

export const SEAT_PRICE_USD = 12;

/** What billing verbs need: the admin command runs them without a capture store. */
export type BillingCtx = Pick<Ctx, 'db' | 'bus' | 'clock'>;

export const isActive = (s: TeamSubscriptionRow | null): boolean => s !== null && subscriptionStore.ACTIVE_STATUSES.includes(s.status);

/** The subscription as the API shows it to team members (never Stripe ids or secrets). */
export function publicSubscription(s: TeamSubscriptionRow | null) {
  if (!s) return { status: 'none', active: false, seats: 0, pricePerSeatUsd: SEAT_PRICE_USD, currentPeriodEnd: null };
  return {
    status: s.status,
    active: isActive(s),
    seats: s.seats,
    pricePerSeatUsd: SEAT_PRICE_USD,
    currentPeriodEnd: s.currentPeriodEnd === null ? null : new Date(s.currentPeriodEnd).toISOString(),
  };
}

/** 402 unless the team's subscription is active; `doing` names the refused action. */
export async function requireActiveSubscription(q: store.Q, teamId: string, doing: string): Promise<TeamSubscriptionRow> {
  const sub = await subscriptionStore.findSubscription(q, teamId);
  if (!sub || !isActive(sub)) {
    throw new AppError(
      'payment_required',
      `${doing} needs an active Teams subscription (${SEAT_PRICE_USD} USD per seat per month); this team's is ${sub ? sub.status : 'missing'}`,
    );
  }
  return sub;
}

async function announceTeam(ctx: BillingCtx, teamId: string): Promise<void> {
  announceTeamAccess(ctx.bus, { teamId, endpointIds: await shareStore.listTeamEndpointIds(ctx.db, teamId) });
}

// --- Stripe webhook ---------------------------------------------------------------------------

export interface WebhookOutcome {
  received: true;
  /** False when the event was valid but changed nothing; `reason` says why. */
  applied: boolean;
  reason?: string;
}

const skipped = (reason: string): WebhookOutcome => ({ received: true, applied: false, reason });

/**
 * Whether a subscription event may replace the team's current state. Stripe does not promise
 * delivery order, so an event older than the last applied one is dropped, and a different
 * subscription than the team's current Stripe one only takes over when it is created.
 */
function supersedes(current: TeamSubscriptionRow | null, event: StripeEvent, sub: StripeSubscription): string | null {
  if (!current) return null;
  if (current.lastEventAt !== null && event.created < current.lastEventAt) return 'an event newer than this one was already applied';
  const other = current.stripeSubscriptionId !== null && current.stripeSubscriptionId !== sub.id;
  if (other && event.type !== 'customer.subscription.created') return "not the team's current Stripe subscription";
  return null;
}

async function applySubscriptionEvent(tx: store.Tx, event: StripeEvent, sub: StripeSubscription, now: number): Promise<WebhookOutcome> {
  if (sub.teamId === null) return skipped('no team_id in the subscription metadata');
  if (!(await store.lockTeam(tx, sub.teamId))) return skipped('no such team');
  const current = await subscriptionStore.findSubscription(tx, sub.teamId);
  const refusal = supersedes(current, event, sub);
  if (refusal) return skipped(refusal);
  await subscriptionStore.upsertSubscription(tx, {
    teamId: sub.teamId,
    // A deleted subscription has ended whatever status the object still carries.
    status: event.type === 'customer.subscription.deleted' ? 'canceled' : sub.status,
    seats: sub.seats,
    source: 'stripe',
    stripeSubscriptionId: sub.id,
    stripeCustomerId: sub.customerId,
    currentPeriodEnd: sub.currentPeriodEnd,
    lastEventAt: event.created,
    updatedAt: now,
  });
  return { received: true, applied: true };
}

/**
 * Verifies and applies one Stripe delivery. Each event id takes effect once: it is recorded in the
 * same transaction as its effect, so a failure leaves neither and Stripe's retry applies it.
 */
export async function handleStripeWebhook(ctx: Ctx, rawBody: Uint8Array, signature: string | null, now = ctx.clock.now()): Promise<WebhookOutcome> {
  const secret = ctx.config.stripe.webhookSecret;
  if (!secret) throw new AppError('not_found', 'Stripe billing is not configured on this server (STRIPE_WEBHOOK_SECRET)');
  verifyStripeSignature({ secret, toleranceSeconds: ctx.config.stripe.toleranceSeconds }, signature, rawBody, now);
  const event = parseStripeEvent(rawBody);
  const outcome = await store.inTransaction(ctx.db, async (tx) => {
    if (!(await subscriptionStore.recordBillingEvent(tx, { id: event.id, type: event.type, receivedAt: now }))) {
      return skipped('event already processed');
    }
    if (!event.subscription) return skipped(`event type ${event.type} is not handled`);
    return applySubscriptionEvent(tx, event, event.subscription, now);
  });
  if (outcome.applied && event.subscription?.teamId) await announceTeam(ctx, event.subscription.teamId);
  return outcome;
}

// --- operators without Stripe -----------------------------------------------------------------

export const ADMIN_STATUSES = ['active', 'canceled'] as const;
export type AdminStatus = (typeof ADMIN_STATUSES)[number];

/** Sets a team's subscription by hand (scripts/admin.ts). Stripe ids and event order are kept. */
export async function setSubscription(
  ctx: BillingCtx,
  input: { teamId: string; seats: number; status: AdminStatus },
  now = ctx.clock.now(),
): Promise<TeamSubscriptionRow> {
  if (!Number.isInteger(input.seats) || input.seats < 0 || input.seats > 100_000) throw new AppError('validation', 'seats must be an integer from 0 to 100000');
  if (!ADMIN_STATUSES.includes(input.status)) throw new AppError('validation', `status must be one of ${ADMIN_STATUSES.join(', ')}`);
  const saved = await store.inTransaction(ctx.db, async (tx) => {
    if (!(await store.lockTeam(tx, input.teamId))) throw new AppError('not_found', `team ${input.teamId} not found`);
    const current = await subscriptionStore.findSubscription(tx, input.teamId);
    return subscriptionStore.upsertSubscription(tx, {
      teamId: input.teamId,
      status: input.status,
      seats: input.seats,
      source: 'admin',
      stripeSubscriptionId: current?.stripeSubscriptionId ?? null,
      stripeCustomerId: current?.stripeCustomerId ?? null,
      currentPeriodEnd: current?.currentPeriodEnd ?? null,
      lastEventAt: current?.lastEventAt ?? null,
      updatedAt: now,
    });
  });
  await announceTeam(ctx, input.teamId);
  return saved;
}

export async function getSubscription(ctx: BillingCtx, teamId: string): Promise<TeamSubscriptionRow | null> {
  if (!(await store.findTeam(ctx.db, teamId))) throw new AppError('not_found', `team ${teamId} not found`);
  return subscriptionStore.findSubscription(ctx.db, teamId);
}
