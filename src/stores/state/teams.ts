/**
 * Queries on teams: create (with the owner's membership), find, lock, list, update, delete. Members,
 * invites, shared endpoints and subscriptions have their own modules beside this one (team-*.ts).
 * Every value goes through drizzle's parameters; functions take a `Q` so a verb can run several in
 * one transaction. Who may do what is decided by the verbs in services/teams.ts,
 * services/invites.ts and services/billing.ts.
 */
import { and, asc, count, eq } from 'drizzle-orm';
import { inTransaction, type Db, type Q, type Tx } from './db';
import { teamMembers, teams, users, type TeamRole, type TeamRow } from './schema';

export { inTransaction, type Q, type Tx };

/**
 * Creates the team and its owner's membership together, unless the owner already owns `limit`
 * teams ('limit'). The count and the insert happen under a lock on the owner's account row, so
 * two creations at once cannot both pass the cap.
 */
export async function insertTeamWithOwner(db: Db, team: TeamRow, limit: number): Promise<TeamRow | 'limit'> {
  return inTransaction(db, async (tx) => {
    await tx.select({ id: users.id }).from(users).where(eq(users.id, team.ownerId)).for('update');
    const [owned] = await tx.select({ n: count() }).from(teams).where(eq(teams.ownerId, team.ownerId));
    if ((owned?.n ?? 0) >= limit) return 'limit';
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

/** The settings an owner changes (PATCH /api/teams/{id}); a field left out stays as it is. */
export type TeamSettings = Partial<Pick<TeamRow, 'name' | 'confirmedMembersOnly'>>;

export async function updateTeam(q: Q, teamId: string, settings: TeamSettings): Promise<TeamRow | null> {
  const out = await q.update(teams).set(settings).where(eq(teams.id, teamId)).returning();
  return out[0] ?? null;
}

/** Deletes the team; memberships, invites, shares and its subscription go with it (cascade). */
export async function deleteTeam(q: Q, teamId: string): Promise<boolean> {
  const out = await q.delete(teams).where(eq(teams.id, teamId)).returning({ id: teams.id });
  return out.length > 0;
}
