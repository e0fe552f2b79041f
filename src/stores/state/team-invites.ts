/**
 * Queries on team invites: pending ones expire by age in each query (`cutoff`).
 * Every value goes through drizzle's parameters; functions take a `Q` so a verb can run several in
 * one transaction.
 */
import { and, asc, eq, gt, lte, sql } from 'drizzle-orm';
import type { Q } from './db';
import { teamInvites, teams, users, type InviteStatus, type TeamInviteRow, type TeamRow } from './schema';

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
