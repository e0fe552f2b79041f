/**
 * Queries on teams, members, invites, shared endpoints and team subscriptions. Every value goes
 * through drizzle's parameters. Functions take a `Q` so a verb can run several in one transaction;
 * who may do what is decided by the verbs in services/teams.ts, services/invites.ts and
 * services/billing.ts.
 */
import { and, asc, eq, gt, inArray, lte, ne, sql } from 'drizzle-orm';
import { inTransaction, type Db, type Q, type Tx } from './db';
import {
  billingEvents,
  endpoints,
  teamEndpoints,
  teamInvites,
  teamMembers,
  teams,
  teamSubscriptions,
  users,
  type EndpointRow,
  type InviteStatus,
  type TeamInviteRow,
  type TeamMemberRow,
  type TeamRole,
  type TeamRow,
  type TeamSubscriptionRow,
} from './schema';

export { inTransaction, type Q, type Tx };

/**
 * Subscription statuses (Stripe's words) under which a team may invite and share, and under which
 * its members read shared endpoints. Kept here because the read path filters on it in SQL.
 */
export const ACTIVE_STATUSES: readonly string[] = ['active', 'trialing'];

const activeStatusSql = sql`${teamSubscriptions.status} IN (${sql.join(
  ACTIVE_STATUSES.map((s) => sql`${s}`),
  sql`, `,
)})`;

// --- teams and members ------------------------------------------------------------------------

/** Creates the team and its owner's membership together. */
export async function insertTeamWithOwner(db: Db, team: TeamRow): Promise<TeamRow> {
  return inTransaction(db, async (tx) => {
    const out = await tx.insert(teams).values(team).returning();
    await tx.insert(teamMembers).values({ teamId: team.id, userId: team.ownerId, role: 'owner', joinedAt: team.createdAt });
    const row = out[0];
    if (!row) throw new Error('insert teams returned no row');
    return row;
  });
}

/** The team and the user's role in it; null when the team does not exist or the user is not in it. */
export async function findMembership(q: Q, teamId: string, userId: string): Promise<{ team: TeamRow; role: TeamRole } | null> {
  const out = await q
    .select({ team: teams, role: teamMembers.role })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId)))
    .limit(1);
  return out[0] ?? null;
}

/** Takes the team's row lock for the rest of the transaction (seat counts, invites, accepts). */
export async function lockTeam(q: Q, teamId: string): Promise<TeamRow | null> {
  const out = await q.select().from(teams).where(eq(teams.id, teamId)).for('update');
  return out[0] ?? null;
}

export async function findTeam(q: Q, teamId: string): Promise<TeamRow | null> {
  const out = await q.select().from(teams).where(eq(teams.id, teamId)).limit(1);
  return out[0] ?? null;
}

/** Teams the user owns or belongs to, oldest first. */
export async function listUserTeams(q: Q, userId: string): Promise<TeamRow[]> {
  const out = await q
    .select({ team: teams })
    .from(teamMembers)
    .innerJoin(teams, eq(teams.id, teamMembers.teamId))
    .where(eq(teamMembers.userId, userId))
    .orderBy(asc(teams.createdAt), asc(teams.id));
  return out.map((r) => r.team);
}

export async function renameTeam(q: Q, teamId: string, name: string): Promise<TeamRow | null> {
  const out = await q.update(teams).set({ name }).where(eq(teams.id, teamId)).returning();
  return out[0] ?? null;
}

/** Deletes the team; memberships, invites, shares and its subscription go with it (cascade). */
export async function deleteTeam(q: Q, teamId: string): Promise<boolean> {
  const out = await q.delete(teams).where(eq(teams.id, teamId)).returning({ id: teams.id });
  return out.length > 0;
}

export interface MemberView {
  userId: string;
  email: string;
  role: TeamRole;
  joinedAt: number;
}

/** Owner first, then members in joining order. */
export async function listMembers(q: Q, teamId: string): Promise<MemberView[]> {
  return q
    .select({ userId: teamMembers.userId, email: users.email, role: teamMembers.role, joinedAt: teamMembers.joinedAt })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(sql`${teamMembers.role} = 'owner' DESC`, asc(teamMembers.joinedAt), asc(teamMembers.userId));
}

export async function countMembers(q: Q, teamId: string): Promise<number> {
  const out = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(teamMembers)
    .where(eq(teamMembers.teamId, teamId));
  return Number(out[0]?.n ?? 0);
}

/** Adds a member; false when the user already is in the team. */
export async function insertMember(q: Q, row: TeamMemberRow): Promise<boolean> {
  const out = await q.insert(teamMembers).values(row).onConflictDoNothing().returning({ userId: teamMembers.userId });
  return out.length > 0;
}

/**
 * Removes a non-owner member and every endpoint they shared with the team: their endpoints stay
 * theirs, and a team they left no longer sees them. Returns whether they were a member.
 */
export async function removeMember(q: Q, teamId: string, userId: string): Promise<boolean> {
  await q.delete(teamEndpoints).where(and(eq(teamEndpoints.teamId, teamId), eq(teamEndpoints.sharedBy, userId)));
  const out = await q
    .delete(teamMembers)
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.userId, userId), eq(teamMembers.role, 'member')))
    .returning({ userId: teamMembers.userId });
  return out.length > 0;
}

/** Whether an account with this email (any case) is in the team. */
export async function isMemberEmail(q: Q, teamId: string, email: string): Promise<boolean> {
  const out = await q
    .select({ userId: teamMembers.userId })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teamMembers.teamId, teamId), sql`lower(${users.email}) = lower(${email})`))
    .limit(1);
  return out.length > 0;
}

// --- invites ----------------------------------------------------------------------------------

/*
 * `cutoff` is now − INVITE_TTL_DAYS (ms): an invite made at or before it has expired, whatever its
 * row says. Expiry is decided here, in each query, so no sweeper has to run for it to hold.
 */
const livePending = (cutoff: number) => and(eq(teamInvites.status, 'pending'), gt(teamInvites.createdAt, cutoff));
const sameEmail = (email: string) => sql`lower(${teamInvites.email}) = lower(${email})`;

/** Inserts a pending invite; null when one is already pending for this address in this team. */
export async function insertInvite(q: Q, row: typeof teamInvites.$inferInsert): Promise<TeamInviteRow | null> {
  const out = await q.insert(teamInvites).values(row).onConflictDoNothing().returning();
  return out[0] ?? null;
}

export async function deleteInvite(q: Q, inviteId: string): Promise<void> {
  await q.delete(teamInvites).where(eq(teamInvites.id, inviteId));
}

export async function hasPendingInvite(q: Q, teamId: string, email: string, cutoff: number): Promise<boolean> {
  const out = await q
    .select({ id: teamInvites.id })
    .from(teamInvites)
    .where(and(eq(teamInvites.teamId, teamId), livePending(cutoff), sameEmail(email)))
    .limit(1);
  return out.length > 0;
}

/**
 * Closes the team's expired invites to this address as `expired`, so the partial unique index on
 * pending invites lets a new one in. Call under the team's lock, before inviting.
 */
export async function closeExpiredInvites(q: Q, teamId: string, email: string, cutoff: number, now: number): Promise<void> {
  await q
    .update(teamInvites)
    .set({ status: 'expired', respondedAt: now })
    .where(and(eq(teamInvites.teamId, teamId), eq(teamInvites.status, 'pending'), lte(teamInvites.createdAt, cutoff), sameEmail(email)));
}

export async function countPendingInvites(q: Q, teamId: string, cutoff: number): Promise<number> {
  const out = await q
    .select({ n: sql<number>`count(*)::int` })
    .from(teamInvites)
    .where(and(eq(teamInvites.teamId, teamId), livePending(cutoff)));
  return Number(out[0]?.n ?? 0);
}

export async function listPendingInvites(q: Q, teamId: string, cutoff: number): Promise<TeamInviteRow[]> {
  return q
    .select()
    .from(teamInvites)
    .where(and(eq(teamInvites.teamId, teamId), livePending(cutoff)))
    .orderBy(asc(teamInvites.createdAt), asc(teamInvites.id));
}

export interface InviteView {
  invite: TeamInviteRow;
  team: TeamRow;
  invitedByEmail: string | null;
}

const inviteViewColumns = { invite: teamInvites, team: teams, invitedByEmail: users.email };

/** Unexpired pending invites addressed to this email (any case), oldest first. */
export async function listPendingInvitesForEmail(q: Q, email: string, cutoff: number): Promise<InviteView[]> {
  return q
    .select(inviteViewColumns)
    .from(teamInvites)
    .innerJoin(teams, eq(teams.id, teamInvites.teamId))
    .leftJoin(users, eq(users.id, teamInvites.invitedBy))
    .where(and(livePending(cutoff), sameEmail(email)))
    .orderBy(asc(teamInvites.createdAt), asc(teamInvites.id));
}

/**
 * One invite, only if it is addressed to this email, whatever its status; with `lock`, its row
 * is locked for the rest of the transaction so it is used at most once.
 */
export async function findInviteForEmail(q: Q, inviteId: string, email: string, lock = false): Promise<TeamInviteRow | null> {
  const query = q
    .select()
    .from(teamInvites)
    .where(and(eq(teamInvites.id, inviteId), sameEmail(email)));
  const out = lock ? await query.for('update') : await query.limit(1);
  return out[0] ?? null;
}

export async function findPendingInviteOfTeam(q: Q, teamId: string, inviteId: string, cutoff: number): Promise<TeamInviteRow | null> {
  const out = await q
    .select()
    .from(teamInvites)
    .where(and(eq(teamInvites.id, inviteId), eq(teamInvites.teamId, teamId), livePending(cutoff)))
    .limit(1);
  return out[0] ?? null;
}

/** Ends a pending invite; false when it was no longer pending. */
export async function closeInvite(q: Q, inviteId: string, status: Exclude<InviteStatus, 'pending'>, now: number): Promise<boolean> {
  const out = await q
    .update(teamInvites)
    .set({ status, respondedAt: now })
    .where(and(eq(teamInvites.id, inviteId), eq(teamInvites.status, 'pending')))
    .returning({ id: teamInvites.id });
  return out.length > 0;
}

// --- shared endpoints -------------------------------------------------------------------------

/** An endpoint by id, only if this user owns it. */
export async function findOwnEndpoint(q: Q, endpointId: string, userId: string): Promise<EndpointRow | null> {
  const out = await q
    .select()
    .from(endpoints)
    .where(and(eq(endpoints.id, endpointId), eq(endpoints.userId, userId)))
    .limit(1);
  return out[0] ?? null;
}

/** Shares an endpoint; false when it already was shared with this team. */
export async function insertShare(q: Q, row: typeof teamEndpoints.$inferInsert): Promise<boolean> {
  const out = await q.insert(teamEndpoints).values(row).onConflictDoNothing().returning({ id: teamEndpoints.endpointId });
  return out.length > 0;
}

export async function findShare(q: Q, teamId: string, endpointId: string): Promise<{ sharedBy: string; sharedAt: number } | null> {
  const out = await q
    .select({ sharedBy: teamEndpoints.sharedBy, sharedAt: teamEndpoints.sharedAt })
    .from(teamEndpoints)
    .where(and(eq(teamEndpoints.teamId, teamId), eq(teamEndpoints.endpointId, endpointId)))
    .limit(1);
  return out[0] ?? null;
}

export async function deleteShare(q: Q, teamId: string, endpointId: string): Promise<boolean> {
  const out = await q
    .delete(teamEndpoints)
    .where(and(eq(teamEndpoints.teamId, teamId), eq(teamEndpoints.endpointId, endpointId)))
    .returning({ id: teamEndpoints.endpointId });
  return out.length > 0;
}

export interface SharedEndpointView {
  endpoint: EndpointRow;
  ownerEmail: string;
  sharedAt: number;
}

/** Endpoints shared with the team, oldest share first. */
export async function listTeamEndpoints(q: Q, teamId: string): Promise<SharedEndpointView[]> {
  return q
    .select({ endpoint: endpoints, ownerEmail: users.email, sharedAt: teamEndpoints.sharedAt })
    .from(teamEndpoints)
    .innerJoin(endpoints, eq(endpoints.id, teamEndpoints.endpointId))
    .innerJoin(users, eq(users.id, teamEndpoints.sharedBy))
    .where(eq(teamEndpoints.teamId, teamId))
    .orderBy(asc(teamEndpoints.sharedAt), asc(teamEndpoints.endpointId));
}

export async function listTeamEndpointIds(q: Q, teamId: string): Promise<string[]> {
  const out = await q.select({ id: teamEndpoints.endpointId }).from(teamEndpoints).where(eq(teamEndpoints.teamId, teamId));
  return out.map((r) => r.id);
}

/**
 * The read rule for someone else's endpoint: shared with a team the user is in, whose
 * subscription is active. One indexed query, run on every read, so a change is seen at once on
 * every node.
 */
export async function isSharedWithUser(q: Q, endpointId: string, userId: string): Promise<boolean> {
  const out = await q
    .select({ one: sql<number>`1` })
    .from(teamEndpoints)
    .innerJoin(teamMembers, and(eq(teamMembers.teamId, teamEndpoints.teamId), eq(teamMembers.userId, userId)))
    .innerJoin(teamSubscriptions, and(eq(teamSubscriptions.teamId, teamEndpoints.teamId), activeStatusSql))
    .where(eq(teamEndpoints.endpointId, endpointId))
    .limit(1);
  return out.length > 0;
}

/** Endpoints of other accounts the user reads through active teams (the same rule, as a list). */
export async function listSharedWithUser(q: Q, userId: string): Promise<EndpointRow[]> {
  const ids = q
    .select({ id: teamEndpoints.endpointId })
    .from(teamEndpoints)
    .innerJoin(teamMembers, and(eq(teamMembers.teamId, teamEndpoints.teamId), eq(teamMembers.userId, userId)))
    .innerJoin(teamSubscriptions, and(eq(teamSubscriptions.teamId, teamEndpoints.teamId), activeStatusSql));
  return q
    .select()
    .from(endpoints)
    .where(and(inArray(endpoints.id, ids), ne(endpoints.userId, userId)))
    .orderBy(asc(endpoints.createdAt));
}

// --- subscriptions and billing events -------------------------------------------------------

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
