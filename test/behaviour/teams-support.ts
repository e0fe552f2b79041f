/**
 * Shared steps of the teams, invites, sharing and billing suites: real HTTP only. Subscriptions
 * are set the way production sets them, through correctly signed Stripe webhook deliveries.
 */
import { createHmac } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { join as pathJoin } from 'node:path';
import { call, eventually, newAccount, type Reply } from '../support/client';
import { verificationLinksIn } from './password-reset-support';

/** The Stripe webhook signing secret the suites start their servers with. */
export const STRIPE_SECRET = 'whsec_teams_suite_0123456789abcdef';
export const TEAMS_ENV = { STRIPE_WEBHOOK_SECRET: STRIPE_SECRET };

export type Account = Awaited<ReturnType<typeof newAccount>>;

export interface Team {
  id: string;
  name: string;
  ownerId: string;
  createdAt: string;
  confirmedMembersOnly: boolean;
}

export const nowSeconds = () => Math.floor(Date.now() / 1000);

let eventCounter = 0;

export interface SubscriptionEventOptions {
  type?: 'customer.subscription.created' | 'customer.subscription.updated' | 'customer.subscription.deleted' | string;
  status?: string;
  seats?: number;
  subscriptionId?: string;
  eventId?: string;
  /** Event `created`, seconds. */
  created?: number;
  /** metadata.team_id; null leaves metadata empty. */
  teamId: string | null;
  /** Put the quantity on items.data[0] only (newer Stripe API versions). */
  quantityOnItems?: boolean;
}

/** A Stripe `customer.subscription.*` event as Stripe sends it (the fields we read, and a few more). */
export function subscriptionEvent(o: SubscriptionEventOptions): string {
  const seats = o.seats ?? 5;
  const subscription: Record<string, unknown> = {
    id: o.subscriptionId ?? `sub_${o.teamId ?? 'none'}`,
    object: 'subscription',
    customer: 'cus_teamsuite',
    status: o.status ?? 'active',
    metadata: o.teamId === null ? {} : { team_id: o.teamId },
    items: { object: 'list', data: [{ id: 'si_1', object: 'subscription_item', quantity: seats, price: { unit_amount: 1200, currency: 'usd' } }] },
    current_period_end: nowSeconds() + 30 * 86_400,
  };
  if (!o.quantityOnItems) subscription.quantity = seats;
  return JSON.stringify({
    id: o.eventId ?? `evt_suite_${Date.now()}_${eventCounter++}_${Math.random().toString(36).slice(2, 8)}`,
    object: 'event',
    type: o.type ?? 'customer.subscription.created',
    created: o.created ?? nowSeconds(),
    livemode: false,
    data: { object: subscription },
  });
}

/** `t=…,v1=…`: HMAC-SHA256 hex of `{t}.{payload}`, as Stripe signs. */
export function stripeSignature(payload: string, secret = STRIPE_SECRET, t = nowSeconds()): string {
  return `t=${t},v1=${createHmac('sha256', secret).update(`${t}.${payload}`).digest('hex')}`;
}

export function postStripe(base: string, payload: string, signature: string | null): Promise<Reply<{ received?: boolean; applied?: boolean; reason?: string; error?: string }>> {
  const headers: Record<string, string> = { 'content-type': 'application/json; charset=utf-8' };
  if (signature !== null) headers['stripe-signature'] = signature;
  return call(base, 'POST', '/api/billing/stripe/webhook', { raw: payload, headers });
}

/** Activates (or changes) a team's subscription through a signed Stripe event, signed at `t` (seconds). */
export async function setStripeSubscription(base: string, o: SubscriptionEventOptions, t = nowSeconds()): Promise<void> {
  const payload = subscriptionEvent(o);
  const r = await postStripe(base, payload, stripeSignature(payload, STRIPE_SECRET, t));
  if (r.status !== 200 || r.body.applied !== true) throw new Error(`stripe event not applied: ${r.status} ${r.text}`);
}

export async function createTeam(base: string, token: string, name = 'Team'): Promise<Team> {
  const r = await call<Team>(base, 'POST', '/api/teams', { token, body: { name } });
  if (r.status !== 201) throw new Error(`create team: ${r.status} ${r.text}`);
  return r.body;
}

/**
 * A team with an active subscription of `seats` seats. `nowMs` is the service's time (a test that
 * moved a TestClock passes its reading, so the event is inside the signature tolerance).
 */
export async function paidTeam(base: string, owner: Account, seats = 10, name = 'Paid team', nowMs = Date.now()): Promise<Team> {
  const team = await createTeam(base, owner.key, name);
  const t = Math.floor(nowMs / 1000);
  await setStripeSubscription(base, { teamId: team.id, seats, created: t - 60 }, t);
  return team;
}

/** Owner invites `member` by email and `member` accepts. */
export async function joinTeam(base: string, owner: Account, team: Team, member: Account): Promise<void> {
  const inv = await call(base, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email: member.email } });
  if (inv.status !== 201) throw new Error(`invite: ${inv.status} ${inv.text}`);
  const acc = await call(base, 'POST', `/api/invites/${inv.body.id}/accept`, { token: member.key });
  if (acc.status !== 200) throw new Error(`accept: ${acc.status} ${acc.text}`);
}

export async function newEndpoint(base: string, token: string, name = 'shared'): Promise<{ id: string; slug: string; name: string }> {
  const r = await call(base, 'POST', '/api/endpoints', { token, body: { name } });
  if (r.status !== 201) throw new Error(`endpoint: ${r.status} ${r.text}`);
  return r.body;
}

export async function capture(base: string, slug: string, body: string): Promise<string> {
  const r = await fetch(`${base}/w/${slug}/hook`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  if (r.status !== 200) throw new Error(`capture: ${r.status}`);
  return ((await r.json()) as { id: string }).id;
}

export interface OutboxMail {
  to: string;
  subject: string;
  text: string;
}

/** Mail written by the service to its outbox (no SMTP_URL set), oldest first. */
export function outbox(dataDir: string): OutboxMail[] {
  let text = '';
  try {
    text = readFileSync(pathJoin(dataDir, 'outbox.jsonl'), 'utf8');
  } catch {
    return [];
  }
  return text
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as OutboxMail);
}

export const mailTo = (dataDir: string, email: string) => outbox(dataDir).filter((m) => m.to === email);

/** The token of the sign-up's address-verification link to `email`, from the outbox (these suites send no SMTP). */
export const verificationToken = (dataDir: string, email: string): Promise<string> =>
  eventually(async () => verificationLinksIn(mailTo(dataDir, email))[0]?.token ?? null, 10_000);
