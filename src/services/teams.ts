/**
 * Teams (SPEC 4.5): create, list, rename and settings, delete, members, leave, and endpoints shared
 * with a team. A non-member never learns a team exists (404); a member calling an owner-only verb
 * gets 403. Reading shared captures is decided in services/requests.ts; invites live in
 * services/invites.ts.
 */
import { AppError } from '../errors';
import { randomId } from '../ids';
import type { TeamRole, TeamRow, UserRow } from '../stores/state/schema';
import * as store from '../stores/state/teams';
import * as inviteStore from '../stores/state/team-invites';
import * as memberStore from '../stores/state/team-members';
import * as shareStore from '../stores/state/team-shares';
import * as subscriptionStore from '../stores/state/team-subscriptions';
import { publicSubscription, requireActiveSubscription } from './billing';
import { isExpired } from './endpoints';
import type { Ctx } from './context';
import { announceTeamAccess } from './team-access';

/** Invites made at or before this time (ms) have expired (INVITE_TTL_DAYS). */
export const inviteCutoff = (ctx: Ctx, now = ctx.clock.now()) => now - ctx.config.inviteTtlMs;

const iso = (ms: number) => new Date(ms).toISOString();

// confirmedMembersOnly is beyond SPEC 2.7 (docs/teams.md, "Only members with a confirmed address").
export const publicTeam = (t: TeamRow) => ({ id: t.id, name: t.name, ownerId: t.ownerId, createdAt: iso(t.createdAt), confirmedMembersOnly: t.confirmedMembersOnly });
export type PublicTeam = ReturnType<typeof publicTeam>;

/** Trimmed; 1–100 characters without control characters (the name goes into invite mail subjects). */
export function validTeamName(raw: string): string {
  const name = raw.trim();
  if (name.length === 0) throw new AppError('validation', 'name must not be empty');
  if (name.length > 100) throw new AppError('validation', 'name must be at most 100 characters');
  if (/\p{Cc}/u.test(name)) throw new AppError('validation', 'name must not contain control characters');
  return name;
}

export interface Membership {
  team: TeamRow;
  role: TeamRole;
}

/** The caller's membership; 404 for a team that does not exist or that they are not in. */
export async function requireMember(ctx: Ctx, user: UserRow, teamId: string): Promise<Membership> {
  const m = await store.findMembership(ctx.db, teamId, user.id);
  if (!m) throw new AppError('not_found', 'team not found');
  return m;
}

/** Owner-only verbs: 404 for non-members (as above), 403 for members. */
export async function requireOwner(ctx: Ctx, user: UserRow, teamId: string, doing: string): Promise<TeamRow> {
  const m = await requireMember(ctx, user, teamId);
  if (m.role !== 'owner') throw new AppError('forbidden', `only the team's owner can ${doing}`);
  return m.team;
}

async function announceTeam(ctx: Ctx, teamId: string, endpointIds?: string[]): Promise<void> {
  announceTeamAccess(ctx.bus, { teamId, endpointIds: endpointIds ?? (await shareStore.listTeamEndpointIds(ctx.db, teamId)) });
}

export async function createTeam(ctx: Ctx, user: UserRow, rawName: string): Promise<TeamRow> {
  const name = validTeamName(rawName);
  const limit = ctx.config.teamLimit;
  const team = await store.insertTeamWithOwner(ctx.db, { id: randomId('team'), name, ownerId: user.id, createdAt: ctx.clock.now(), confirmedMembersOnly: false }, limit);
  if (team === 'limit') {
    throw new AppError('team_limit', `you already own ${limit} teams, the most one account may own (TEAM_LIMIT); delete one first`, {}, limit);
  }
  return team;
}

export const listTeams = (ctx: Ctx, user: UserRow): Promise<TeamRow[]> => store.listUserTeams(ctx.db, user.id);

/** One team with the caller's role and the subscription state (members only). */
export async function getTeam(ctx: Ctx, user: UserRow, teamId: string) {
  const m = await requireMember(ctx, user, teamId);
  const [sub, members, pending] = await Promise.all([
    subscriptionStore.findSubscription(ctx.db, teamId),
    memberStore.countMembers(ctx.db, teamId),
    inviteStore.countPendingInvites(ctx.db, teamId, inviteCutoff(ctx)),
  ]);
  return { ...publicTeam(m.team), role: m.role, subscription: { ...publicSubscription(sub), seatsUsed: members, pendingInvites: pending } };
}

/**
 * The owner renames the team and/or sets `confirmedMembersOnly`, in one transaction: a refused part
 * changes nothing. Turning the option on is refused (409) while a member's address is unproven:
 * it would not remove them, and removing them silently would cut access nobody chose to cut; the
 * owner removes them or has them confirm first. The owner's own address is not checked: they did
 * not join by invite (docs/teams.md).
 */
export async function updateTeam(ctx: Ctx, user: UserRow, teamId: string, change: { name?: string; confirmedMembersOnly?: boolean }): Promise<TeamRow> {
  if (change.name === undefined && change.confirmedMembersOnly === undefined) throw new AppError('validation', 'give name, confirmedMembersOnly or both');
  await requireOwner(ctx, user, teamId, change.confirmedMembersOnly === undefined ? 'rename it' : 'change its settings');
  const settings: store.TeamSettings = {};
  if (change.name !== undefined) settings.name = validTeamName(change.name);
  if (change.confirmedMembersOnly !== undefined) settings.confirmedMembersOnly = change.confirmedMembersOnly;
  return store.inTransaction(ctx.db, async (tx) => {
    // Under the team's lock, as accepting an invite is: no unproven member can join meanwhile.
    if (!(await store.lockTeam(tx, teamId))) throw new AppError('not_found', 'team not found');
    if (settings.confirmedMembersOnly) {
      const unproven = await memberStore.listUnprovenMemberEmails(tx, teamId);
      if (unproven.length > 0) {
        const who = unproven.length === 1 ? '1 member has' : `${unproven.length} members have`;
        throw new AppError(
          'conflict',
          `${who} not confirmed their address (${unproven.join(', ')}); remove them, or ask them to confirm it (the link mailed at sign-up, or Resend verification email on the Account page), then turn this on`,
        );
      }
    }
    const row = await store.updateTeam(tx, teamId, settings);
    if (!row) throw new AppError('not_found', 'team not found');
    return row;
  });
}

/** Deletes the team with every membership, invite, share and its subscription record. */
export async function deleteTeam(ctx: Ctx, user: UserRow, teamId: string): Promise<void> {
  await requireOwner(ctx, user, teamId, 'delete it');
  const endpointIds = await store.inTransaction(ctx.db, async (tx) => {
    const ids = await shareStore.listTeamEndpointIds(tx, teamId);
    await store.deleteTeam(tx, teamId);
    return ids;
  });
  await announceTeam(ctx, teamId, endpointIds);
}

export async function listMembers(ctx: Ctx, user: UserRow, teamId: string) {
  await requireMember(ctx, user, teamId);
  const [members, invites] = await Promise.all([memberStore.listMembers(ctx.db, teamId), inviteStore.listPendingInvites(ctx.db, teamId, inviteCutoff(ctx))]);
  return {
    // emailVerified is beyond SPEC 2.8 (extra fields allowed): sign-up does not prove an address,
    // so an owner can see which member may not own the one they show (docs/teams.md).
    members: members.map((m) => ({ userId: m.userId, email: m.email, role: m.role, emailVerified: m.emailVerifiedAt !== null })),
    pendingInvites: invites.map((i) => ({ id: i.id, email: i.email, createdAt: iso(i.createdAt) })),
  };
}

/** Removes a member (owner only); the endpoints they shared with the team are unshared with it. */
export async function removeMember(ctx: Ctx, user: UserRow, teamId: string, memberId: string): Promise<void> {
  const team = await requireOwner(ctx, user, teamId, 'remove members');
  if (memberId === team.ownerId) throw new AppError('conflict', 'the owner cannot be removed from the team; delete the team instead');
  await leaveOrRemove(ctx, teamId, memberId, 'member not found in this team');
}

/** The caller leaves; an owner is refused and told to delete the team instead. */
export async function leaveTeam(ctx: Ctx, user: UserRow, teamId: string): Promise<void> {
  const m = await requireMember(ctx, user, teamId);
  if (m.role === 'owner') throw new AppError('conflict', 'the owner cannot leave the team; delete the team instead (DELETE /api/teams/{team_id})');
  await leaveOrRemove(ctx, teamId, user.id, 'team not found');
}

async function leaveOrRemove(ctx: Ctx, teamId: string, userId: string, notFound: string): Promise<void> {
  const endpointIds = await store.inTransaction(ctx.db, async (tx) => {
    await store.lockTeam(tx, teamId);
    const ids = await shareStore.listTeamEndpointIds(tx, teamId);
    if (!(await memberStore.removeMember(tx, teamId, userId))) throw new AppError('not_found', notFound);
    return ids;
  });
  await announceTeam(ctx, teamId, endpointIds);
}

// --- shared endpoints -------------------------------------------------------------------------

export const publicSharedEndpoint = (ctx: Ctx, view: shareStore.SharedEndpointView) => ({
  id: view.endpoint.id,
  slug: view.endpoint.slug,
  name: view.endpoint.name,
  url: `${ctx.config.receiverUrl}/w/${view.endpoint.slug}`,
  createdAt: view.endpoint.createdAt,
  ownerId: view.endpoint.userId ?? '',
  ownerEmail: view.ownerEmail,
  sharedAt: iso(view.sharedAt),
});

/**
 * Shares one of the caller's endpoints with a team they are in. Needs an active subscription.
 * Sharing again is not an error: `created` is false and nothing changes.
 */
export async function shareEndpoint(ctx: Ctx, user: UserRow, teamId: string, endpointId: string) {
  await requireMember(ctx, user, teamId);
  const ep = await shareStore.findOwnEndpoint(ctx.db, endpointId, user.id);
  // Expired and not yet swept: gone, as for every other read.
  if (!ep || isExpired(ep, ctx.clock.now())) throw new AppError('not_found', "endpoint not found among your endpoints (only an endpoint's owner can share it)");
  const now = ctx.clock.now();
  // Under the team's lock, so a concurrent leave or subscription change cannot interleave.
  const { created, sharedAt } = await store.inTransaction(ctx.db, async (tx) => {
    await store.lockTeam(tx, teamId);
    if (!(await store.findMembership(tx, teamId, user.id))) throw new AppError('not_found', 'team not found');
    await requireActiveSubscription(tx, teamId, 'sharing an endpoint');
    const isNew = await shareStore.insertShare(tx, { teamId, endpointId: ep.id, sharedBy: user.id, sharedAt: now });
    return { created: isNew, sharedAt: (await shareStore.findShare(tx, teamId, ep.id))?.sharedAt ?? now };
  });
  return { created, endpoint: publicSharedEndpoint(ctx, { endpoint: ep, ownerEmail: user.email, sharedAt }) };
}

/** Ends a share: the endpoint's owner, or the team's owner for any endpoint shared with the team. */
export async function unshareEndpoint(ctx: Ctx, user: UserRow, teamId: string, endpointId: string): Promise<void> {
  const m = await requireMember(ctx, user, teamId);
  const share = await shareStore.findShare(ctx.db, teamId, endpointId);
  if (!share) throw new AppError('not_found', 'endpoint is not shared with this team');
  if (share.sharedBy !== user.id && m.role !== 'owner') {
    throw new AppError('forbidden', "only the endpoint's owner or the team's owner can unshare it");
  }
  if (await shareStore.deleteShare(ctx.db, teamId, endpointId)) announceTeamAccess(ctx.bus, { teamId, endpointIds: [endpointId] });
}

export async function listTeamEndpoints(ctx: Ctx, user: UserRow, teamId: string) {
  await requireMember(ctx, user, teamId);
  const now = ctx.clock.now();
  return (await shareStore.listTeamEndpoints(ctx.db, teamId)).filter((v) => !isExpired(v.endpoint, now)).map((v) => publicSharedEndpoint(ctx, v));
}
