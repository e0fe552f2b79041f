/**
 * Queries on team subscriptions and on the billing events already recorded (redelivery check).
 * Every value goes through drizzle's parameters; functions take a `Q` so a verb can run several in
 * one transaction.
 */
import { eq, sql } from 'drizzle-orm';
import type { Q } from './db';
import { billingEvents, teamSubscriptions, type TeamSubscriptionRow } from './schema';

/**
 * Subscription statuses (Stripe's words) under which a team may invite and share, and under which
 * its members read shared endpoints. The read path (team-shares.ts) filters on it in SQL.
 */
export const ACTIVE_STATUSES: readonly string[] = ['active', 'trialing'];

/** The same statuses as a SQL condition on team_subscriptions.status. */
export const activeStatusSql = sql`${teamSubscriptions.status} IN (${sql.join(
  ACTIVE_STATUSES.map((s) => sql`${s}`),
  sql`, `,
)})`;

export async function findSubscription(q: Q, teamId: string): Promise<TeamSubscriptionRow | null> {
  const out = await q.select().from(teamSubscriptions).where(eq(teamSubscriptions.teamId, teamId)).limit(1);
  return out[0] ?? null;
}

export async function upsertSubscription(q: Q, row: TeamSubscriptionRow): Promise<TeamSubscriptionRow> {
  const { teamId, ...rest } = row;
  const out = await q
    .insert(teamSubscriptions)
    .values(row)
    .onConflictDoUpdate({ target: teamSubscriptions.teamId, set: rest })
    .returning();
  const saved = out[0];
  if (!saved) throw new Error(`upsert team_subscriptions returned no row for ${teamId}`);
  return saved;
}

/** Records a billing event id; false when it was recorded before (a redelivery). */
export async function recordBillingEvent(q: Q, row: typeof billingEvents.$inferInsert): Promise<boolean> {
  const out = await q.insert(billingEvents).values(row).onConflictDoNothing().returning({ id: billingEvents.id });
  return out.length > 0;
}
