/**
 * Stripe webhook input: the Stripe-Signature check and the parts of a subscription event the
 * Teams subscription needs, read through TypeBox schemas. Pure: no database, no network.
 *
 * @example
 * verifyStripeSignature({ secret, toleranceSeconds: 300 }, request.headers.get('stripe-signature'), raw, ctx.clock.now());
 * const event = parseStripeEvent(raw); // → { id: 'evt_…', type, created, subscription: { teamId, seats, status, … } }
 */
import { verifySignature } from '../engine/signing';
import { Type, type Static } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { AppError } from '../errors';
import { checked } from '../schema-problem';

export const SUBSCRIPTION_EVENTS = [
  'customer.subscription.created',
  'customer.subscription.updated',
  'customer.subscription.deleted',
] as const;

export type SubscriptionEventType = (typeof SUBSCRIPTION_EVENTS)[number];

export interface StripeSubscription {
  id: string;
  customerId: string | null;
  status: string;
  seats: number;
  /** `metadata.team_id`; null when the subscription is not a Teams subscription of ours. */
  teamId: string | null;
  /** ms since epoch, when Stripe sent it. */
  currentPeriodEnd: number | null;
}

export interface StripeEvent {
  id: string;
  type: string;
  /** Seconds since epoch: when Stripe created the event (orders deliveries that arrive late). */
  created: number;
  /** Present for the three subscription event types. */
  subscription: StripeSubscription | null;
}

const SIGNATURE_MESSAGES: Record<string, string> = {
  'missing_header: stripe-signature': 'missing Stripe-Signature header',
  'bad_format: stripe-signature': 'Stripe-Signature header is malformed (expected t=<unix seconds>,v1=<hex>)',
  mismatch: 'Stripe-Signature does not match the payload',
  timestamp_outside_tolerance: 'Stripe-Signature timestamp is outside the tolerance',
  invalid_secret: 'the webhook signing secret is not configured',
};

/**
 * Checks `t=…,v1=…` (HMAC-SHA256 of `{t}.{raw body}`, constant-time, any of several v1) and the
 * timestamp tolerance, with the same verifier endpoints use for captured Stripe requests.
 */
export function verifyStripeSignature(
  opts: { secret: string; toleranceSeconds: number },
  header: string | null,
  rawBody: Uint8Array,
  now: number,
): void {
  const result = verifySignature(
    { provider: 'stripe', secret: opts.secret, toleranceSeconds: opts.toleranceSeconds },
    { headers: header === null ? {} : { 'stripe-signature': header }, rawBody, url: '', method: 'POST', now },
  );
  if (result.signatureError !== null) {
    throw new AppError('validation', SIGNATURE_MESSAGES[result.signatureError] ?? `invalid Stripe signature (${result.signatureError})`);
  }
}

const bad = (message: string) => new AppError('validation', `Stripe event: ${message}`);

const Text = (max: number) => Type.String({ minLength: 1, maxLength: max, error: 'must be a non-empty string' });
const Seconds = Type.Integer({ minimum: Number.MIN_SAFE_INTEGER, maximum: Number.MAX_SAFE_INTEGER, error: 'must be an integer (seconds)' });

/** The envelope of every event; `data.object` is read only for subscription events. */
const EventBody = Type.Object({
  id: Text(255),
  type: Text(100),
  created: Seconds,
  data: Type.Optional(Type.Unknown()),
});
const EventData = Type.Object({ object: Type.Optional(Type.Unknown()) });

/** A subscription item: newer API versions carry the quantity and period here only. */
const SubscriptionItem = Type.Object({ quantity: Type.Optional(Type.Unknown()), current_period_end: Type.Optional(Type.Unknown()) });

/** The fields of a Stripe subscription object the Teams subscription uses; others are ignored. */
const SubscriptionObject = Type.Object({
  id: Text(255),
  status: Type.String({ minLength: 1, maxLength: 40, pattern: '^[a-z_]+$', error: 'is not a Stripe status' }),
  quantity: Type.Optional(Type.Unknown()),
  items: Type.Optional(Type.Unknown()),
  current_period_end: Type.Optional(Type.Unknown()),
  customer: Type.Optional(Type.Unknown()),
  metadata: Type.Optional(Type.Unknown()),
});
type SubscriptionObject = Static<typeof SubscriptionObject>;

const ItemList = Type.Object({ data: Type.Array(Type.Unknown()) });
const Metadata = Type.Object({ team_id: Type.Optional(Type.Unknown()) });
/** `customer` is an id, or the customer object when the event expands it. */
const ExpandedCustomer = Type.Object({ id: Type.String() });

function itemsOf(sub: SubscriptionObject): Static<typeof SubscriptionItem>[] {
  if (!Value.Check(ItemList, sub.items)) return [];
  return sub.items.data.filter((item) => Value.Check(SubscriptionItem, item));
}

function seatsOf(sub: SubscriptionObject): number {
  if (Number.isInteger(sub.quantity)) return Number(sub.quantity);
  const quantities = itemsOf(sub).map((item) => item.quantity).filter(Number.isInteger);
  if (quantities.length === 0) throw bad('subscription has no quantity (seats)');
  return quantities.reduce((a: number, q) => a + Number(q), 0);
}

function periodEndOf(sub: SubscriptionObject): number | null {
  const seconds = sub.current_period_end ?? itemsOf(sub)[0]?.current_period_end;
  return Number.isSafeInteger(seconds) ? Number(seconds) * 1000 : null;
}

function parseSubscription(obj: unknown): StripeSubscription {
  const sub = checked(SubscriptionObject, obj, (problem) => bad(`data.object: ${problem}`));
  const seats = seatsOf(sub);
  if (seats < 0 || seats > 100_000) throw bad('quantity must be from 0 to 100000');
  const customer = Value.Check(ExpandedCustomer, sub.customer) ? sub.customer.id : sub.customer;
  const teamId = Value.Check(Metadata, sub.metadata) ? sub.metadata.team_id : undefined;
  return {
    id: sub.id,
    customerId: typeof customer === 'string' ? customer : null,
    status: sub.status,
    seats,
    teamId: typeof teamId === 'string' && teamId !== '' ? teamId : null,
    currentPeriodEnd: periodEndOf(sub),
  };
}

export const isSubscriptionEvent = (type: string): type is SubscriptionEventType =>
  (SUBSCRIPTION_EVENTS as readonly string[]).includes(type);

export function parseStripeEvent(rawBody: Uint8Array): StripeEvent {
  let parsed: unknown;
  try {
    parsed = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(rawBody));
  } catch {
    throw bad('body is not JSON');
  }
  const event = checked(EventBody, parsed, bad);
  return {
    id: event.id,
    type: event.type,
    created: event.created,
    subscription: isSubscriptionEvent(event.type) ? parseSubscription(Value.Check(EventData, event.data) ? event.data.object : undefined) : null,
  };
}
