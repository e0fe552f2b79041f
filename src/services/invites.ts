/**
 * Invites (SPEC 4.5 invite, 4.6): a team's owner invites an email address; whoever holds an
 * account with that address (now or after signing up) sees the invite and accepts or declines it,
 * once. An invite takes a seat while pending; accepting needs a free seat and an active
 * subscription, checked under the team's row lock so two accepts never overfill it. An invite
 * still pending INVITE_TTL_DAYS after it was made has expired: it is no longer listed, holds no
 * seat, cannot be used, and no longer stands in the way of inviting the same address again.
 */
import { AppError } from '../errors';
import { randomId } from '../ids';
import { log } from '../log';
import type { TeamInviteRow, TeamRow, UserRow } from '../stores/state/schema';
import * as store from '../stores/state/teams';
import * as inviteStore from '../stores/state/team-invites';
import * as memberStore from '../stores/state/team-members';
import { isWellFormedEmail } from '../model/email';

import { requireActiveSubscription } from './billing';
import type { Ctx } from './context';
import { inviteCutoff, requireOwner } from './teams';
import { errorMessage } from '../unknown';

const iso = (ms: number) => new Date(ms).toISOString();

const expiresAt = (ctx: Ctx, invite: TeamInviteRow) => invite.createdAt + ctx.config.inviteTtlMs;

/** A pending invite as the team sees it (SPEC 2.8). */
export const publicPendingInvite = (i: TeamInviteRow) => ({ id: i.id, email: i.email, createdAt: iso(i.createdAt) });

/** An invite as the invited user sees it. */
export const publicInvite = (ctx: Ctx, v: inviteStore.InviteView) => ({
  id: v.invite.id,
  teamId: v.team.id,
  teamName: v.team.name,
  email: v.invite.email,
  invitedBy: v.invitedByEmail,
  status: v.invite.status,
  createdAt: iso(v.invite.createdAt),
  expiresAt: iso(expiresAt(ctx, v.invite)),
});

/** 402 unless a seat is free: the owner, the members and unexpired pending invites each take one. */
async function requireFreeSeat(ctx: Ctx, tx: store.Tx, teamId: string, seats: number, countPending: boolean): Promise<void> {
  const used = (await memberStore.countMembers(tx, teamId)) + (countPending ? await inviteStore.countPendingInvites(tx, teamId, inviteCutoff(ctx)) : 0);
  if (used >= seats) {
    throw new AppError(
      'payment_required',
      `every seat of this team's subscription is taken (${used} of ${seats}${countPending ? ', pending invites included' : ''}); add seats to the subscription`,
    );
  }
}

function inviteMail(ctx: Ctx, team: TeamRow, inviter: UserRow, invite: TeamInviteRow) {
  return {
    to: invite.email,
    subject: `You are invited to the team "${team.name}" on hookcap`,
    text: [
      `${inviter.email} invited you to join the team "${team.name}" on hookcap.`,
      '',
      `Sign in (or sign up) with this address, ${invite.email}, and open`,
      `${ctx.config.baseUrl}/teams to accept or decline it.`,
      '',
      `From the API: GET ${ctx.config.baseUrl}/api/invites lists your pending invites; accept this one with`,
      `POST ${ctx.config.baseUrl}/api/invites/${invite.id}/accept (or decline with …/decline).`,
      `It expires at ${iso(expiresAt(ctx, invite))}.`,
      '',
      'If you did not expect this, ignore this message.',
    ].join('\n'),
  };
}

/** Owner only; needs an active subscription and a free seat. The invite exists only if its mail left. */
export async function inviteMember(ctx: Ctx, user: UserRow, teamId: string, rawEmail: string): Promise<TeamInviteRow> {
  const team = await requireOwner(ctx, user, teamId, 'invite members');
  const email = rawEmail.trim();
  // The mail sender accepts one plain address only; the shape check refuses lists and display names.
  if (!isWellFormedEmail(email)) throw new AppError('validation', 'email is not a valid address');
  const invite = await store.inTransaction(ctx.db, async (tx) => {
    if (!(await store.lockTeam(tx, teamId))) throw new AppError('not_found', 'team not found');
    const sub = await requireActiveSubscription(tx, teamId, 'inviting members');
    if (await memberStore.isMemberEmail(tx, teamId, email)) throw new AppError('conflict', `${email} is already a member of this team`);
    const now = ctx.clock.now();
    const cutoff = inviteCutoff(ctx, now);
    await inviteStore.closeExpiredInvites(tx, teamId, email, cutoff, now);
    if (await inviteStore.hasPendingInvite(tx, teamId, email, cutoff)) throw new AppError('conflict', `${email} already has a pending invite to this team`);
    await requireFreeSeat(ctx, tx, teamId, sub.seats, true);
    const row = await inviteStore.insertInvite(tx, { id: randomId('inv'), teamId, email, invitedBy: user.id, status: 'pending', createdAt: now });
    if (!row) throw new AppError('conflict', `${email} already has a pending invite to this team`);
    return row;
  });
  try {
    await ctx.mailer.sendMail(inviteMail(ctx, team, user, invite));
  } catch (e) {
    // Nothing half-done: without its mail the invite is withdrawn and the owner can try again.
    await inviteStore.deleteInvite(ctx.db, invite.id);
    log.warn('could not send an invite email', { error: errorMessage(e) });
    throw new AppError('unavailable', 'could not send the invite email; nothing was saved, try again later');
  }
  return invite;
}

/** Withdraws a pending invite (owner only). */
export async function revokeInvite(ctx: Ctx, user: UserRow, teamId: string, inviteId: string): Promise<void> {
  await requireOwner(ctx, user, teamId, 'revoke invites');
  const invite = await inviteStore.findPendingInviteOfTeam(ctx.db, teamId, inviteId, inviteCutoff(ctx));
  if (!invite || !(await inviteStore.closeInvite(ctx.db, invite.id, 'revoked', ctx.clock.now()))) throw new AppError('not_found', 'pending invite not found');
}

/** Unexpired pending invites addressed to the caller's email. */
export const listMyInvites = async (ctx: Ctx, user: UserRow) =>
  (await inviteStore.listPendingInvitesForEmail(ctx.db, user.email, inviteCutoff(ctx))).map((v) => publicInvite(ctx, v));

/**
 * The caller's invite, locked; 404 unless addressed to their email, 409 once used or expired.
 * Someone else's invite id is indistinguishable from an unknown one. An expired invite is a 409,
 * like a used one, rather than a 404: it exists and is the caller's, it just can no longer be used
 * (the capture API has no 410, and SPEC 7.1 leaves this case to us).
 */
async function pendingInviteOf(ctx: Ctx, tx: store.Tx, user: UserRow, inviteId: string): Promise<TeamInviteRow> {
  const invite = await inviteStore.findInviteForEmail(tx, inviteId, user.email, true);
  if (!invite) throw new AppError('not_found', 'invite not found');
  const expired = () => new AppError('conflict', `this invite expired at ${iso(expiresAt(ctx, invite))}; ask the team's owner to invite you again`);
  if (invite.status === 'expired') throw expired();
  if (invite.status === 'revoked') throw new AppError('conflict', "the team's owner withdrew this invite; ask them to invite you again");
  if (invite.status !== 'pending') throw new AppError('conflict', `this invite was already ${invite.status}; an invite can be used once`);
  if (invite.createdAt <= inviteCutoff(ctx)) throw expired();
  return invite;
}

/**
 * 403 when the team takes only members with a confirmed address and the caller's was never proven
 * (docs/teams.md). Before the subscription and seat checks: this one the invitee fixes themselves.
 */
function requireConfirmedAddress(team: TeamRow, user: UserRow): void {
  if (!team.confirmedMembersOnly || user.emailVerifiedAt !== null) return;
  throw new AppError(
    'address_not_confirmed',
    `the team "${team.name}" takes only members with a confirmed address, and ${user.email} is not confirmed yet: open the link mailed to it at sign-up (or send a new one with Resend verification email on the Account page), then accept again`,
  );
}

/** Makes the caller a member. Needs an active subscription, a free seat and, if the team asks, a proven address. */
export async function acceptInvite(ctx: Ctx, user: UserRow, inviteId: string): Promise<TeamRow> {
  return store.inTransaction(ctx.db, async (tx) => {
    const first = await inviteStore.findInviteForEmail(tx, inviteId, user.email);
    if (!first) throw new AppError('not_found', 'invite not found');
    // Team lock first, then the invite's, the same order as inviting, so the two never deadlock.
    const team = await store.lockTeam(tx, first.teamId);
    const invite = await pendingInviteOf(ctx, tx, user, inviteId);
    if (!team) throw new AppError('not_found', 'invite not found');
    requireConfirmedAddress(team, user);
    const sub = await requireActiveSubscription(tx, team.id, 'joining a team');
    await requireFreeSeat(ctx, tx, team.id, sub.seats, false);
    const now = ctx.clock.now();
    await inviteStore.closeInvite(tx, invite.id, 'accepted', now);
    await memberStore.insertMember(tx, { teamId: team.id, userId: user.id, role: 'member', joinedAt: now });
    return team;
  });
}

export async function declineInvite(ctx: Ctx, user: UserRow, inviteId: string): Promise<void> {
  await store.inTransaction(ctx.db, async (tx) => {
    const invite = await pendingInviteOf(ctx, tx, user, inviteId);
    await inviteStore.closeInvite(tx, invite.id, 'declined', ctx.clock.now());
  });
}

