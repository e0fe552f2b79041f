/**
 * Queries on team members: list, count, add, remove (with the shares they made), find by email,
 * and those whose address was never proven.
 * Every value goes through drizzle's parameters; functions take a `Q` so a verb can run several in
 * one transaction.
 */
import { and, asc, eq, isNull, sql } from 'drizzle-orm';
import type { Q } from './db';
import { teamEndpoints, teamMembers, users, type TeamMemberRow, type TeamRole } from './schema';

export interface MemberView {
  userId: string;
  email: string;
  role: TeamRole;
  joinedAt: number;
  /** When the member's address was first proven; null while never (sql/013_email_verified.sql). */
  emailVerifiedAt: number | null;
}

/** Owner first, then members in joining order. */
export async function listMembers(q: Q, teamId: string): Promise<MemberView[]> {
  return q
    .select({ userId: teamMembers.userId, email: users.email, role: teamMembers.role, joinedAt: teamMembers.joinedAt, emailVerifiedAt: users.emailVerifiedAt })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(eq(teamMembers.teamId, teamId))
    .orderBy(sql`${teamMembers.role} = 'owner' DESC`, asc(teamMembers.joinedAt), asc(teamMembers.userId));
}

/** Addresses of the members (not the owner) whose address was never proven, in joining order. */
export async function listUnprovenMemberEmails(q: Q, teamId: string): Promise<string[]> {
  const out = await q
    .select({ email: users.email })
    .from(teamMembers)
    .innerJoin(users, eq(users.id, teamMembers.userId))
    .where(and(eq(teamMembers.teamId, teamId), eq(teamMembers.role, 'member'), isNull(users.emailVerifiedAt)))
    .orderBy(asc(teamMembers.joinedAt), asc(teamMembers.userId));
  return out.map((r) => r.email);
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
