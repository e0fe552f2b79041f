/**
 * Teams, their members, invites and shared endpoints (docs/teams.md), and the endpoints other
 * people share with me: every team's shares, minus my own endpoints, each with the teams that
 * give me access and whether any of them currently does (an inactive subscription pauses it).
 */
import { useEffect } from 'react';
import { useMutation, useMutationState, useQuery, useQueryClient, type QueryClient } from '@tanstack/react-query';
import { ApiError, api, unwrap } from './client';
import { useMe } from './queries';

export const teamKeys = {
  all: ['teams'] as const,
  list: ['teams', 'list'] as const,
  team: (id: string) => ['teams', 'one', id] as const,
  members: (id: string) => ['teams', 'members', id] as const,
  endpoints: (id: string) => ['teams', 'endpoints', id] as const,
  shared: ['teams', 'shared-with-me'] as const,
  invites: ['invites'] as const,
  /** The mutation key of a change to one team (useClearedByLaterChange). */
  change: (id: string) => ['team-change', id] as const,
};

/**
 * What other people do to a team (accept or decline an invite, share, leave) reaches this page by
 * no stream: read again each time the page comes back into view (the global default is off), even
 * within the 10 s the cache counts as fresh, since the owner who invited someone and switched to
 * their chat is back soon after the accept. A few small requests per return.
 */
const onReturn = { refetchOnWindowFocus: 'always' } as const;

/** Anything about teams may change who sees what: read it all again. */
const refreshTeams = (qc: QueryClient) => qc.invalidateQueries({ queryKey: teamKeys.all });

/**
 * A change to a team (`id`, none for a new one) after which everything about teams is read again
 * (or, for leaving and deleting, `after` says what to read). Its refusal goes once a later change
 * to the same team succeeds (useClearedByLaterChange): every form of a team's page gets that here,
 * in one place, rather than each asking for it.
 */
function useTeamChange<TArg, TData>(mutationFn: (arg: TArg) => Promise<TData>, id?: string, after: (qc: QueryClient) => unknown = refreshTeams) {
  const qc = useQueryClient();
  const change = useMutation({
    mutationKey: id === undefined ? undefined : teamKeys.change(id),
    mutationFn,
    onSuccess: () => after(qc),
    // A 404 may mean the team is gone for me (deleted, or I was removed, elsewhere): read the team
    // again, so the page gives its own explanation (TeamPage's NotInTeam) instead of a bare "team
    // not found" under one form. Only the team: a member or invite gone elsewhere keeps the lists
    // as they were, with the refusal saying so under its form.
    onError: (e) => (id !== undefined && e instanceof ApiError && e.status === 404 ? qc.invalidateQueries({ queryKey: teamKeys.team(id) }) : undefined),
  });
  useClearedByLaterChange(id, change);
  return change;
}

/**
 * A form's refusal on a team's page (Rename team, the confirmed-members switch, Remove, Withdraw,
 * Invite, Share, Unshare, Leave team, Delete team) stays under its form while the owner goes on to
 * another. Once a later change to the same team succeeds, the refusal is old news that reads as if
 * about that change:
 * it goes, as a settings section's refusal goes when its other action runs
 * (views/settings/notification-signing.tsx). Typing again in the refused form keeps it, as the
 * settings forms keep theirs until the next Save. A new team (no id yet) has no later change.
 */
function useClearedByLaterChange(teamId: string | undefined, refused: { error: unknown; submittedAt: number; reset: () => void }): void {
  const succeeded = useMutationState({
    filters: teamId === undefined ? { predicate: () => false } : { mutationKey: teamKeys.change(teamId), status: 'success' },
    select: (m) => m.state.submittedAt,
  });
  const stale = refused.error !== null && succeeded.some((at) => at > refused.submittedAt);
  const { reset } = refused;
  useEffect(() => {
    if (stale) reset();
  }, [stale, reset]);
}

export function useTeams() {
  return useQuery({ queryKey: teamKeys.list, queryFn: () => unwrap(api.teams.get()), ...onReturn });
}

export type Team = NonNullable<ReturnType<typeof useTeams>['data']>[number];

export function useTeam(id: string) {
  return useQuery({ queryKey: teamKeys.team(id), queryFn: () => unwrap(api.teams({ teamId: id }).get()), ...onReturn });
}

export type TeamDetail = NonNullable<ReturnType<typeof useTeam>['data']>;

export function useMembers(id: string) {
  return useQuery({ queryKey: teamKeys.members(id), queryFn: () => unwrap(api.teams({ teamId: id }).members.get()), ...onReturn });
}

export function useTeamEndpoints(id: string) {
  return useQuery({ queryKey: teamKeys.endpoints(id), queryFn: () => unwrap(api.teams({ teamId: id }).endpoints.get()), ...onReturn });
}

export type TeamEndpoint = NonNullable<ReturnType<typeof useTeamEndpoints>['data']>[number];

export interface SharedEndpoint extends TeamEndpoint {
  /** The teams this endpoint reaches me through. */
  teams: { id: string; name: string; active: boolean }[];
  /** False while none of those teams has an active subscription: its captures cannot be read. */
  readable: boolean;
}

/**
 * At most this often the endpoints shared with me are read again on return to the tab: each read
 * is 1 + 2 × teams requests (no route lists them at once), for a list that rarely changes.
 */
export const SHARED_ON_RETURN_MS = 30_000;

/**
 * Read again on return once the last read (or failed read) is SHARED_ON_RETURN_MS old: a user
 * flicking between tabs costs one read per half minute, not 21 requests per flick with 10 teams.
 */
const dueOnReturn = ({ state }: { state: { dataUpdatedAt: number; errorUpdatedAt: number } }): boolean =>
  Date.now() - Math.max(state.dataUpdatedAt, state.errorUpdatedAt) >= SHARED_ON_RETURN_MS;

/**
 * Endpoints other accounts share with a team I am in (my own shares are not listed). With
 * `readOnReturn`, read again when the tab comes back into view, at most every SHARED_ON_RETURN_MS;
 * only the home page's Shared with you list asks for it (docs/dashboard.md, "Shared with you, read
 * again on return"): a shared endpoint's own page learns of its end from its stream, whose reason
 * a list read on return would replace with "does not exist".
 */
export function useSharedEndpoints(enabled = true, readOnReturn = false) {
  const me = useMe();
  const myId = me.data?.id;
  return useQuery({
    queryKey: teamKeys.shared,
    enabled: enabled && myId !== undefined,
    refetchOnWindowFocus: (q) => readOnReturn && dueOnReturn(q),
    queryFn: async (): Promise<SharedEndpoint[]> => {
      const teams = await unwrap(api.teams.get());
      const perTeam = await Promise.all(
        teams.map(async (t) => {
          try {
            const [detail, endpoints] = await Promise.all([unwrap(api.teams({ teamId: t.id }).get()), unwrap(api.teams({ teamId: t.id }).endpoints.get())]);
            return { team: { id: t.id, name: t.name, active: detail.subscription.active }, endpoints };
          } catch (e) {
            // Left or deleted since the list was read: it shares nothing with me any more.
            if (e instanceof ApiError && e.status === 404) return { team: { id: t.id, name: t.name, active: false }, endpoints: [] };
            throw e;
          }
        }),
      );
      const bySlug = new Map<string, SharedEndpoint>();
      for (const { team, endpoints } of perTeam) {
        for (const e of endpoints) {
          if (e.ownerId === myId) continue;
          const seen = bySlug.get(e.slug) ?? { ...e, teams: [], readable: false };
          seen.teams.push(team);
          seen.readable ||= team.active;
          bySlug.set(e.slug, seen);
        }
      }
      return [...bySlug.values()].sort((a, b) => b.createdAt - a.createdAt);
    },
  });
}

export function useCreateTeam() {
  return useTeamChange((name: string) => unwrap(api.teams.post({ name })));
}

export function useRenameTeam(id: string) {
  return useTeamChange((name: string) => unwrap(api.teams({ teamId: id }).patch({ name })), id);
}

/** Only members with a confirmed address (docs/teams.md): on or off, owner only; 409 while a member is unproven. */
export function useConfirmedMembersOnly(id: string) {
  return useTeamChange((on: boolean) => unwrap(api.teams({ teamId: id }).patch({ confirmedMembersOnly: on })), id);
}

/**
 * After deleting or leaving, the page of that team is left (the caller navigates once the call
 * resolves): the list forgets it, and its own queries are not refetched into a 404 meanwhile.
 */
function forgetTeam(qc: QueryClient, id: string): void {
  qc.setQueryData<Team[]>(teamKeys.list, (list) => list?.filter((t) => t.id !== id));
  void qc.invalidateQueries({ queryKey: teamKeys.shared });
  void qc.invalidateQueries({ queryKey: teamKeys.list });
}

export function useDeleteTeam(id: string) {
  return useTeamChange(() => unwrap(api.teams({ teamId: id }).delete()), id, (qc) => forgetTeam(qc, id));
}

export function useLeaveTeam(id: string) {
  return useTeamChange(() => unwrap(api.teams({ teamId: id }).leave.post()), id, (qc) => forgetTeam(qc, id));
}

export function useRemoveMember(id: string) {
  return useTeamChange((userId: string) => unwrap(api.teams({ teamId: id }).members({ userId }).delete()), id);
}

export function useInvite(id: string) {
  return useTeamChange((email: string) => unwrap(api.teams({ teamId: id }).invite.post({ email })), id);
}

export function useWithdrawInvite(id: string) {
  return useTeamChange((inviteId: string) => unwrap(api.teams({ teamId: id }).invites({ inviteId }).delete()), id);
}

export function useShareEndpoint(id: string) {
  return useTeamChange((endpointId: string) => unwrap(api.teams({ teamId: id }).endpoints.post({ endpointId })), id);
}

export function useUnshareEndpoint(id: string) {
  return useTeamChange((endpointId: string) => unwrap(api.teams({ teamId: id }).endpoints({ endpointId }).delete()), id);
}

/** Invites addressed to me. */
export function useMyInvites() {
  return useQuery({ queryKey: teamKeys.invites, queryFn: () => unwrap(api.invites.get()), ...onReturn });
}

export type MyInvite = NonNullable<ReturnType<typeof useMyInvites>['data']>[number];

export function useAnswerInvite() {
  const qc = useQueryClient();
  return useMutation({
    // The whole invite goes in, so a refusal can still name it once the list no longer holds it.
    mutationFn: ({ invite, answer }: { invite: MyInvite; answer: 'accept' | 'decline' }) =>
      answer === 'accept' ? unwrap(api.invites({ inviteId: invite.id }).accept.post()).then(() => undefined) : unwrap(api.invites({ inviteId: invite.id }).decline.post()),
    // Not awaited: the invite's own row leaves the page when the list is read again.
    onSettled: () => {
      void qc.invalidateQueries({ queryKey: teamKeys.invites });
      void refreshTeams(qc);
    },
  });
}
