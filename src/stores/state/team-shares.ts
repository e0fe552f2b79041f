/**
 * Queries on endpoints shared with teams, and the read rule for them (shared with an active team
 * the user is in).
 * Every value goes through drizzle's parameters; functions take a `Q` so a verb can run several in
 * one transaction.
 */
import { and, asc, eq, inArray, ne, sql } from 'drizzle-orm';
import type { Q } from './db';
import { endpoints, teamEndpoints, teamMembers, teams, teamSubscriptions, users, type EndpointRow } from './schema';
import { activeStatusSql } from './team-subscriptions';

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

/**
 * Other accounts' endpoints shared with each team the user owns: what deleting the user takes away
 * from members without deleting the endpoint (the user's own endpoints go with them, announced as deleted).
 */
export async function listOwnedTeamsShares(q: Q, userId: string): Promise<{ teamId: string; endpointIds: string[] }[]> {
  const out = await q
    .select({ teamId: teamEndpoints.teamId, endpointId: teamEndpoints.endpointId })
    .from(teamEndpoints)
    .innerJoin(teams, eq(teams.id, teamEndpoints.teamId))
    .innerJoin(endpoints, eq(endpoints.id, teamEndpoints.endpointId))
    .where(and(eq(teams.ownerId, userId), ne(endpoints.userId, userId)));
  const byTeam = new Map<string, string[]>();
  for (const r of out) byTeam.set(r.teamId, [...(byTeam.get(r.teamId) ?? []), r.endpointId]);
  return [...byTeam].map(([teamId, endpointIds]) => ({ teamId, endpointIds }));
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
