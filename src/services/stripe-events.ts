/**
 * Stripe webhook input: the Stripe-Signature check and the parts of a subscription event the
 * Teams subscription needs. Pure: no database, no network.
 *
 * @example
 * verifyStripeSignature({ secret, toleranceSeconds: 300 }, request.headers.get('stripe-signature'), raw, Date.now());
 * const event = parseStripeEvent(raw); // → { id: 'evt_…', type, created, subscription: { teamId, seats, status, … } }
 */
import { verifySignature } from '../engine/signing';
import { AppError } from '../errors';

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

type Json = Record<string, unknown>;

const isObject = (v: unknown): v is Json => typeof v === 'object' && v !== null && !Array.isArray(v);
const bad = (message: string) => new AppError('validation', `Stripe event: ${message}`);

function text(v: unknown, name: string, max = 255): string {
  if (typeof v !== 'string' || v === '' || v.length > max) throw bad(`${name} must be a non-empty string`);
  return v;
}

function seatsOf(sub: Json): number {
  if (Number.isInteger(sub.quantity)) return Number(sub.quantity);
  // Newer API versions carry the quantity on the subscription items only.
  const items = isObject(sub.items) && Array.isArray(sub.items.data) ? sub.items.data : [];
  let total = 0;
  let found = false;
  for (const item of items) {
    if (isObject(item) && Number.isInteger(item.quantity)) {
      total += Number(item.quantity);
      found = true;
    }
  }
  if (!found) throw bad('subscription has no quantity (seats)');
  return total;
}

function periodEndOf(sub: Json): number | null {
  const first = isObject(sub.items) && Array.isArray(sub.items.data) ? sub.items.data[0] : undefined;
  const seconds = sub.current_period_end ?? (isObject(first) ? first.current_period_end : undefined);
  return Number.isSafeInteger(seconds) ? Number(seconds) * 1000 : null;
}

function parseSubscription(obj: unknown): StripeSubscription {
  if (!isObject(obj)) throw bad('data.object must be a subscription object');
  const seats = seatsOf(obj);
  if (seats < 0 || seats > 100_000) throw bad('quantity must be from 0 to 100000');
  const status = text(obj.status, 'data.object.status', 40);
  if (!/^[a-z_]+$/.test(status)) throw bad('data.object.status is not a Stripe status');
  const customer = isObject(obj.customer) ? obj.customer.id : obj.customer;
  const teamId = isObject(obj.metadata) ? obj.metadata.team_id : undefined;
  return {
    id: text(obj.id, 'data.object.id'),
    customerId: typeof customer === 'string' ? customer : null,
    status,
    seats,
    teamId: typeof teamId === 'string' && teamId !== '' ? teamId : null,
    currentPeriodEnd: periodEndOf(obj),
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
  if (!isObject(parsed)) throw bad('body must be a JSON object');
  const type = text(parsed.type, 'type', 100);
  if (!Number.isSafeInteger(parsed.created)) throw bad('created must be an integer (seconds)');
  return {
    id: text(parsed.id, 'id'),
    type,
    created: Number(parsed.created),
    subscription: isSubscriptionEvent(type) ? parseSubscription(isObject(parsed.data) ? parsed.data.object : undefined) : null,
  };
}
