/** /teams: the invites addressed to me, my teams, and a new team. */
import { useRef, useState } from 'react';
import { Link, useLocation } from 'wouter';
import { ApiError } from '../../api/client';
import { useMe } from '../../api/queries';
import { useAnswerInvite, useCreateTeam, useMyInvites, useTeams, type MyInvite } from '../../api/teams';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { focusNextPageHeading, useFocusAfterRemoval } from '../../ui/focus';
import { NameForm } from '../../ui/name-form';
import { Section } from '../../ui/section';
import { useTitle } from '../../ui/title';
import { TimeUntil } from '../../ui/time';
import { TeamError } from './payment';
import { BusyButton } from '../../ui/busy-button';

type Answer = ReturnType<typeof useAnswerInvite>;

function InviteItem({ invite, answer, asked, onDecline }: { invite: MyInvite; answer: Answer; asked: MyInvite | null; onDecline: () => void }) {
  const [, navigate] = useLocation();
  return (
    <li className="invite-card" data-row-key={invite.id}>
      <p>
        <strong>{invite.teamName}</strong>: {invite.invitedBy ?? 'the team’s owner'} invited you. <span className="muted">Expires <TimeUntil ms={Date.parse(invite.expiresAt)} />.</span>
      </p>
      <div className="form-actions">
        <BusyButton
          type="button"
          className="primary"
          aria-label={`Accept the invite to ${invite.teamName}`}
          busy={answer.isPending}
          onClick={() =>
            answer.mutateAsync({ invite, answer: 'accept' }).then(
              () => {
                focusNextPageHeading();
                navigate(paths.team(invite.teamId));
              },
              () => undefined,
            )
          }
        >
          Accept
        </BusyButton>
        <BusyButton type="button" aria-label={`Decline the invite to ${invite.teamName}`} busy={answer.isPending} onClick={onDecline}>
          Decline
        </BusyButton>
      </div>
      {asked?.id === invite.id ? <TeamError error={answer.error} doing="accept" isOwner={false} ownerEmail={invite.invitedBy ?? undefined} /> : null}
    </li>
  );
}

/**
 * One answer at a time for the whole list, so its refusal outlives the invite's row: an invite
 * withdrawn, declined elsewhere or expired while this page was open is gone from the list read
 * after the refusal, and the refusal still says why (docs/dashboard.md, Teams).
 */
function MyInvites({ email, fallback }: { email: string | undefined; fallback: () => HTMLElement | null | undefined }) {
  const invites = useMyInvites();
  const answer = useAnswerInvite();
  // A declined invite's row goes: the focus goes to the next invite's Accept (or the last one's),
  // or, with none left (the section goes too), to `fallback`: Your teams.
  const rows = useRef<HTMLUListElement>(null);
  const refocus = useFocusAfterRemoval(rows, fallback);
  if (invites.error) return <ErrorMessage error={invites.error} />;
  const list = invites.data ?? [];
  const asked = answer.variables?.invite ?? null;
  const gone = answer.error && asked && !list.some((i) => i.id === asked.id) ? asked : null;
  if (list.length === 0 && !gone) {
    // Someone signed in with another account than the invited address would otherwise see nothing.
    return invites.data && email ? (
      <p className="muted">
        No invites for {email}. An invite shows only to the account with the address it was sent to: sign in with that one.
      </p>
    ) : null;
  }
  return (
    <Section title="Invites for you">
      {gone ? (
        <ErrorMessage error={answer.error}>
          {` (the invite to ${gone.teamName}${gone.invitedBy ? ` from ${gone.invitedBy}` : ''}; ask for a new one if you still want to join.)`}
        </ErrorMessage>
      ) : null}
      {list.length > 0 ? (
        <ul className="plain-list" aria-label="Invites for you" ref={rows}>
          {list.map((i) => (
            <InviteItem
              key={i.id}
              invite={i}
              answer={answer}
              asked={asked}
              onDecline={() => {
                refocus.removing(i.id);
                answer.mutate({ invite: i, answer: 'decline' }, { onError: refocus.forget });
              }}
            />
          ))}
        </ul>
      ) : null}
    </Section>
  );
}

/** The cap on teams owned (409 team_limit, TEAM_LIMIT on the server) said with what to do. */
function teamLimitWords(e: ApiError): string {
  return `You already own ${e.limit === undefined ? 'as many teams as you may' : `${e.limit} teams`}, the most one account may own. Delete a team you no longer need (on its page), then create this one.`;
}

function CreateTeam() {
  const [name, setName] = useState('');
  const create = useCreateTeam();
  const [, navigate] = useLocation();
  const error = create.error instanceof ApiError && create.error.code === 'team_limit' ? new Error(teamLimitWords(create.error)) : create.error;
  return (
    <NameForm
      label="New team name"
      value={name}
      onChange={setName}
      onSubmit={() =>
        create.mutate(name, {
          onSuccess: (team) => {
            focusNextPageHeading();
            navigate(paths.team(team.id));
          },
        })
      }
      mutation={{ error, isPending: create.isPending }}
      submitLabel="Create team"
      input={{ autoComplete: 'off' }}
    />
  );
}

export function TeamsHome() {
  useTitle('Teams');
  const teams = useTeams();
  const me = useMe();
  const yourTeams = useRef<HTMLDivElement>(null);
  return (
    <div className="page settings-body">
      <h1>Teams</h1>
      <p className="muted">A team shares endpoints among its members: they watch and search the shared endpoints' requests; each endpoint's owner keeps its settings. Teams need a Teams subscription (12 USD per seat per month) to invite and share.</p>
      <MyInvites email={me.data?.email} fallback={() => yourTeams.current?.querySelector('h2')} />
      <div ref={yourTeams}>
        <Section title="Your teams">
          {teams.error ? <ErrorMessage error={teams.error} /> : null}
          {teams.data && teams.data.length > 0 ? (
            <ul className="plain-list team-list" aria-label="Your teams">
              {teams.data.map((t) => (
                <li key={t.id}>
                  <Link href={paths.team(t.id)}>{t.name}</Link> <span className="muted">{t.ownerId === me.data?.id ? 'owner' : 'member'}</span>
                </li>
              ))}
            </ul>
          ) : teams.data ? (
            <p className="muted">You are not in any team yet.</p>
          ) : teams.error ? null : (
            <p className="muted">Loading teams…</p>
          )}
          <CreateTeam />
        </Section>
      </div>
    </div>
  );
}
