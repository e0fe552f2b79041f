/**
 * One team (/teams/<id>): its name (the owner renames it), its subscription, members and pending
 * invites, the endpoints shared with it, and leaving or deleting it. What a control does not allow
 * for my role is not shown; the API decides anyway and its refusals are shown as messages.
 */
import { useRef, useState, type FormEvent } from 'react';
import { focusNextPageHeading, useFocusAfterRemoval, useFocusWhenGone } from '../../ui/focus';
import { announce } from '../../ui/toast';
import { Link, useLocation } from 'wouter';
import { useEndpoints, useMe } from '../../api/queries';
import {
  useDeleteTeam,
  useLeaveTeam,
  useMembers,
  useRenameTeam,
  useShareEndpoint,
  useTeam,
  useTeamEndpoints,
  useUnshareEndpoint,
  type TeamDetail,
  type TeamEndpoint,
} from '../../api/teams';
import { ApiError } from '../../api/client';
import { endpointLabels, endpointSuffixes } from '../../lib/endpoint-label';
import { plural } from '../../lib/format';
import { paths } from '../../paths';
import { ConfirmDialog } from '../../ui/confirm';
import { EndpointLabel } from '../../ui/endpoint-switcher';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { NameForm } from '../../ui/name-form';
import { Actions, Section } from '../../ui/section';
import { useTitle } from '../../ui/title';
import { Members } from './members';
import { TeamError } from './payment';
import { BusyButton } from '../../ui/busy-button';

const longDay = new Intl.DateTimeFormat('en', { dateStyle: 'long' });

function TeamTitle({ team }: { team: TeamDetail }) {
  const [editing, setEditing] = useState(false);
  const [name, setName] = useState(team.name);
  const rename = useRenameTeam(team.id);
  const renameButton = useRef<HTMLButtonElement>(null);
  // Saved, cancelled or Escape: the form is gone; the focus goes back to Rename team, as the
  // endpoint's Rename does (it fell to the top of the document).
  useFocusWhenGone(editing, () => renameButton.current);
  if (!editing) {
    return (
      <div className="page-head">
        <h1>{team.name}</h1>
        {team.role === 'owner' ? (
          // Opened afresh: a refusal from before a Cancel or Escape is not about this name.
          <button type="button" ref={renameButton} onClick={() => (rename.reset(), setName(team.name), setEditing(true))}>
            Rename team
          </button>
        ) : null}
      </div>
    );
  }
  return (
    <NameForm
      label="Team name"
      value={name}
      onChange={setName}
      onSubmit={() => rename.mutate(name, { onSuccess: () => setEditing(false) })}
      mutation={rename}
      submitLabel="Save"
      onCancel={() => setEditing(false)}
      input={{ autoFocus: true }}
    />
  );
}

/**
 * Seats as docs/teams.md counts them: the owner and each member take one, each unexpired pending
 * invite holds one. A team without a subscription has none, so "0 seats, 1 taken" would read as a
 * fault; it says what the team would need instead.
 */
function seatsText(s: TeamDetail['subscription']): string {
  const taken = s.seatsUsed + s.pendingInvites;
  if (s.seats === 0) {
    const invites = s.pendingInvites ? `; each pending invite holds one (${s.pendingInvites})` : '';
    return `None yet. Each member takes one, the owner included (${s.seatsUsed} so far)${invites}.`;
  }
  const invites = s.pendingInvites ? `, ${plural(s.pendingInvites, 'pending invite')}` : '';
  const free = s.seats > taken ? ` ${s.seats - taken} free.` : '';
  return `${taken} of ${s.seats} taken: ${plural(s.seatsUsed, 'member')} (the owner included)${invites}.${free}`;
}

function Subscription({ team, ownerEmail }: { team: TeamDetail; ownerEmail?: string }) {
  const s = team.subscription;
  const free = s.seats - s.seatsUsed - s.pendingInvites;
  const owner = team.role === 'owner';
  return (
    <Section title="Subscription">
      <dl className="facts">
        <dt>Status</dt>
        <dd>
          {/* The badge says active or not; Stripe's status beside it only when it says more ("trialing", "past_due"), not "active active". */}
          <span className={s.active ? 'badge sig-ok' : 'badge sig-bad'}>{s.active ? 'active' : 'not active'}</span>
          {s.status === 'none' ? ' no subscription yet' : s.status === (s.active ? 'active' : 'not active') ? null : ` ${s.status}`}
        </dd>
        <dt>Seats</dt>
        <dd>
          {seatsText(s)}
        </dd>
        <dt>Price</dt>
        <dd>{s.pricePerSeatUsd} USD per seat per month</dd>
        {s.currentPeriodEnd ? (
          <>
            {/* Only an active subscription renews; a lapsed or canceled one just has a period end. */}
            <dt>{s.active ? 'Renews' : Date.parse(s.currentPeriodEnd) < Date.now() ? 'Period ended' : 'Period ends'}</dt>
            <dd>{longDay.format(Date.parse(s.currentPeriodEnd))}</dd>
          </>
        ) : null}
      </dl>
      {!s.active ? (
        <p className="notice">
          Without an active subscription nobody can be invited, invites cannot be accepted and endpoints cannot be shared, and members cannot see the endpoints shared with the team.{' '}
          {owner ? 'Subscriptions are handled through Stripe by whoever runs this hookcap service.' : `Ask ${ownerEmail ?? "the team's owner"} to renew it.`}
        </p>
      ) : free <= 0 && owner ? (
        <p className="notice">Every seat is taken: add seats to the subscription before inviting anyone else.</p>
      ) : null}
    </Section>
  );
}

function SharedEndpoints({ team, myId }: { team: TeamDetail; myId: string }) {
  const shared = useTeamEndpoints(team.id);
  const mine = useEndpoints();
  const share = useShareEndpoint(team.id);
  const unshare = useUnshareEndpoint(team.id);
  const [choice, setChoice] = useState('');
  const sharedIds = new Set((shared.data ?? []).map((e) => e.id));
  const shareable = (mine.data ?? []).filter((e) => !sharedIds.has(e.id));
  const selected = shareable.some((e) => e.id === choice) ? choice : (shareable[0]?.id ?? '');
  const owner = team.role === 'owner';
  // Both lists of the section tell apart endpoints of the same name by their slug.
  const named = [...(shared.data ?? []), ...shareable];
  const suffix = endpointSuffixes(named);
  const labelOf = endpointLabels(named);
  const canUnshare = (e: TeamEndpoint) => owner || e.ownerId === myId;
  // An unshared endpoint's row goes: the focus goes to the next row (its Unshare, else its link),
  // or, with none left, to the Endpoint to share picker or the section's heading.
  const box = useRef<HTMLDivElement>(null);
  const rows = useRef<HTMLUListElement>(null);
  const refocus = useFocusAfterRemoval(rows, () => box.current?.querySelector<HTMLElement>('select') ?? box.current?.closest('section')?.querySelector<HTMLElement>('h2'));
  // Sharing the last endpoint left to share takes the Share form away: the focus goes to that
  // endpoint's row, now in the list (its Unshare).
  useFocusWhenGone(shareable.length > 0, () => {
    const row = [...(rows.current?.querySelectorAll<HTMLElement>('[data-row-key]') ?? [])].find((r) => r.dataset.rowKey === share.variables);
    return row?.querySelector<HTMLElement>('button') ?? box.current?.closest('section')?.querySelector<HTMLElement>('h2');
  });
  const submit = (ev: FormEvent) => {
    ev.preventDefault();
    if (selected) share.mutate(selected);
  };
  return (
    <Section title="Shared endpoints" intro={<p>Members can watch and search these endpoints' requests. Each stays its owner's: only they change its settings.</p>}>
      {shared.error ? <ErrorMessage error={shared.error} /> : null}
      {unshare.error ? <ErrorMessage error={unshare.error} /> : null}
      <div ref={box}>
        {shared.data && shared.data.length > 0 ? (
          <ul className="plain-list member-list" aria-label="Shared endpoints" ref={rows}>
            {shared.data.map((e) => (
              <li key={e.id} className="member-row" data-row-key={e.id}>
                <Link href={paths.endpoint(e.slug)} className="member-email">
                  <EndpointLabel name={e.name} suffix={suffix(e)} />
                </Link>
                <span className="muted">{e.ownerId === myId ? 'yours' : `by ${e.ownerEmail}`}</span>
                {canUnshare(e) ? (
                  <BusyButton
                    type="button"
                    className="small"
                    aria-label={`Unshare ${labelOf(e)}`}
                    busy={unshare.isPending}
                    onClick={() => {
                      refocus.removing(e.id);
                      unshare.mutate(e.id, { onError: refocus.forget });
                    }}
                  >
                    Unshare
                  </BusyButton>
                ) : null}
              </li>
            ))}
          </ul>
        ) : shared.data ? (
          <p className="muted">No endpoint is shared with this team yet.</p>
        ) : null}
        {shareable.length > 0 ? (
          <form onSubmit={submit} noValidate>
            <Field
              label="Endpoint to share"
              action={
                <BusyButton type="submit" className="primary" busy={share.isPending}>
                  Share
                </BusyButton>
              }
            >
              <select value={selected} onChange={(e) => setChoice(e.target.value)}>
                {shareable.map((e) => (
                  <option key={e.id} value={e.id}>
                    {labelOf(e)}
                  </option>
                ))}
              </select>
            </Field>
          </form>
        ) : mine.data && mine.data.length === 0 ? (
          <p className="muted">You have no endpoint of your own to share.</p>
        ) : null}
      </div>
      <TeamError error={share.error} doing="share" isOwner={owner} />
    </Section>
  );
}

function LeaveOrDelete({ team }: { team: TeamDetail }) {
  const [confirming, setConfirming] = useState(false);
  const owner = team.role === 'owner';
  const del = useDeleteTeam(team.id);
  const leave = useLeaveTeam(team.id);
  const [, navigate] = useLocation();
  const action = owner ? del : leave;
  return (
    <Section title={owner ? 'Delete team' : 'Leave team'} className="danger-zone">
      <p>
        {owner
          ? 'Deleting the team ends every membership, pending invite and share. The endpoints stay with their owners. Cancel its subscription at Stripe as well.'
          : 'You lose access to the endpoints shared with this team, and the endpoints you shared leave it.'}
      </p>
      {action.error ? <ErrorMessage error={action.error} /> : null}
      <Actions>
        <button type="button" className="danger" onClick={() => setConfirming(true)}>
          {owner ? 'Delete team' : 'Leave team'}
        </button>
      </Actions>
      <ConfirmDialog
        open={confirming}
        title={owner ? `Delete ${team.name}?` : `Leave ${team.name}?`}
        confirm={owner ? 'Delete' : 'Leave'}
        danger
        busy={action.isPending}
        onCancel={() => setConfirming(false)}
        onConfirm={() =>
          action.mutateAsync().then(
            () => {
              announce(owner ? `Deleted the team ${team.name}.` : `You left ${team.name}.`);
              focusNextPageHeading();
              navigate(paths.teams);
            },
            () => setConfirming(false),
          )
        }
      >
        <p>{owner ? 'This cannot be undone.' : 'To come back you need a new invite.'}</p>
      </ConfirmDialog>
    </Section>
  );
}

/**
 * The API answers 404 for a team the caller is not in, whether it never existed, was deleted, or
 * they left or were removed (team ids do not leak): the page says those, in words.
 */
function NotInTeam() {
  return (
    <div className="error" role="alert">
      <p>
        <strong>You are not a member of this team.</strong> It may have been deleted, or you left it or were removed from it; its shared endpoints are not
        yours to read. To come back you need a new invite from its owner.
      </p>
      <p>
        <Link href={paths.teams}>Your teams</Link>
      </p>
    </div>
  );
}

export function TeamPage({ id }: { id: string }) {
  const team = useTeam(id);
  useTitle(team.data ? `Team ${team.data.name}` : 'Teams');
  const me = useMe();
  const members = useMembers(id);
  const myId = me.data?.id ?? '';
  const ownerEmail = members.data?.members.find((m) => m.role === 'owner')?.email;
  return (
    <div className="page settings-body">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.teams}>Teams</Link> <span aria-hidden="true">/</span>
      </nav>
      {team.error instanceof ApiError && team.error.status === 404 ? (
        <NotInTeam />
      ) : team.error ? (
        <ErrorMessage error={team.error} />
      ) : !team.data ? (
        <p className="muted">Loading team…</p>
      ) : (
        <>
          <TeamTitle team={team.data} />
          <p className="muted">
            You are its {team.data.role}
            {ownerEmail && team.data.role !== 'owner' ? `; its owner is ${ownerEmail}` : ''}.
          </p>
          <Subscription team={team.data} ownerEmail={ownerEmail} />
          <Members team={team.data} myId={myId} />
          <SharedEndpoints team={team.data} myId={myId} />
          <LeaveOrDelete team={team.data} />
        </>
      )}
    </div>
  );
}
