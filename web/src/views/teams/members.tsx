/**
 * A team's members and pending invites: the owner invites by email, removes members (after asking),
 * withdraws invites and may take only members with a confirmed address; the focus stays in place
 * when a row goes.
 */
import { useId, useRef, useState, type FormEvent } from 'react';
import { ApiError } from '../../api/client';
import { useConfirmedMembersOnly, useInvite, useMembers, useRemoveMember, useWithdrawInvite, type TeamDetail } from '../../api/teams';
import { placeError } from '../../lib/field-error';
import { BusyButton } from '../../ui/busy-button';
import { ConfirmDialog } from '../../ui/confirm';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { useFocusAfterRemoval } from '../../ui/focus';
import { Section } from '../../ui/section';
import { RelativeTime } from '../../ui/time';
import { TeamError } from './payment';

function InviteForm({ team }: { team: TeamDetail }) {
  const [email, setEmail] = useState('');
  const invite = useInvite(team.id);
  const placed = invite.error ? placeError(invite.error, ['email']) : null;
  const fieldError = invite.error && !placed?.field && invite.error instanceof Error && /^\S+@\S+ (is already|already has)/.test(invite.error.message) ? invite.error.message : placed?.field ? placed.message : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    invite.mutate(email.trim(), { onSuccess: () => setEmail('') });
  };
  return (
    <form onSubmit={submit} noValidate>
      <Field
        label="Email address to invite"
        error={fieldError}
        action={
          <BusyButton type="submit" className="primary" busy={invite.isPending || email.trim() === ''}>
            Invite
          </BusyButton>
        }
      >
        <input type="email" autoComplete="off" value={email} onChange={(e) => setEmail(e.target.value)} />
      </Field>
      {fieldError ? null : <TeamError error={invite.error} doing="invite" isOwner />}
    </form>
  );
}

/**
 * The owner's switch for docs/teams.md's "Only members with a confirmed address". Shown checked as
 * asked while the change is saved; a refusal (409: members whose address is unproven, named by the
 * server) leaves it as the team has it and says why. Clicks while saving are swallowed, not
 * `disabled`, so the focus stays on the box (see ui/busy-button.tsx).
 */
function ConfirmedOnly({ team }: { team: TeamDetail }) {
  const change = useConfirmedMembersOnly(team.id);
  const hintId = useId();
  const checked = change.isPending && change.variables !== undefined ? change.variables : team.confirmedMembersOnly;
  const error = change.error instanceof ApiError && change.error.status === 409 ? new Error(`Not turned on: ${change.error.message}.`) : change.error;
  return (
    <div className="field check-field">
      <label>
        <input
          type="checkbox"
          checked={checked}
          aria-describedby={hintId}
          aria-disabled={change.isPending || undefined}
          onChange={(e) => {
            if (!change.isPending) change.mutate(e.target.checked);
          }}
        />
        Only members with a confirmed address
      </label>
      <p id={hintId} className="field-hint">
        An invite is then accepted only by an account whose address is confirmed, so whoever signed an invited address up first cannot join in its owner's place.
      </p>
      {error ? <ErrorMessage error={error} /> : null}
    </div>
  );
}

export function Members({ team, myId }: { team: TeamDetail; myId: string }) {
  const members = useMembers(team.id);
  const remove = useRemoveMember(team.id);
  const withdraw = useWithdrawInvite(team.id);
  const [removing, setRemoving] = useState<{ userId: string; email: string } | null>(null);
  const owner = team.role === 'owner';
  // A removed member's or withdrawn invite's row goes: the focus goes to the next row's button (or
  // the last one's), or to the invite field when no invite is left.
  const box = useRef<HTMLDivElement>(null);
  const memberRows = useRef<HTMLUListElement>(null);
  const inviteRows = useRef<HTMLUListElement>(null);
  const inviteField = () => box.current?.querySelector<HTMLElement>('input[type="email"]');
  const memberFocus = useFocusAfterRemoval(memberRows, inviteField);
  const inviteFocus = useFocusAfterRemoval(inviteRows, inviteField);
  return (
    <Section title="Members">
      <div ref={box}>
        {members.error ? <ErrorMessage error={members.error} /> : null}
        {remove.error ? <ErrorMessage error={remove.error} /> : null}
        {withdraw.error ? <ErrorMessage error={withdraw.error} /> : null}
        {members.data ? (
          <>
            <ul className="plain-list member-list" aria-label="Members" ref={memberRows}>
              {members.data.members.map((m) => (
                <li key={m.userId} className="member-row" data-row-key={m.userId}>
                  <span className="member-email">{m.email}</span>
                  <span className="badge">{m.role}</span>
                  {m.emailVerified ? null : (
                    <span className="badge warn" title="Sign-up does not prove an address: this account may not belong to whoever owns this mailbox.">
                      address not confirmed
                    </span>
                  )}
                  {m.userId === myId ? <span className="muted">you</span> : null}
                  {owner && m.role !== 'owner' ? (
                    <button type="button" className="small danger" aria-label={`Remove ${m.email}`} onClick={() => setRemoving(m)}>
                      Remove
                    </button>
                  ) : null}
                </li>
              ))}
            </ul>
            {members.data.pendingInvites.length > 0 ? (
              <>
                <h3>Pending invites</h3>
                <ul className="plain-list member-list" aria-label="Pending invites" ref={inviteRows}>
                  {members.data.pendingInvites.map((i) => (
                    <li key={i.id} className="member-row" data-row-key={i.id}>
                      <span className="member-email">{i.email}</span>
                      <span className="muted">
                        invited <RelativeTime ms={Date.parse(i.createdAt)} />
                      </span>
                      {owner ? (
                        <BusyButton
                          type="button"
                          className="small"
                          aria-label={`Withdraw the invite to ${i.email}`}
                          busy={withdraw.isPending}
                          onClick={() => {
                            inviteFocus.removing(i.id);
                            withdraw.mutate(i.id, { onError: inviteFocus.forget });
                          }}
                        >
                          Withdraw
                        </BusyButton>
                      ) : null}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </>
        ) : null}
        {owner ? (
          <>
            <ConfirmedOnly team={team} />
            <InviteForm team={team} />
          </>
        ) : team.confirmedMembersOnly ? (
          <p className="muted">Only members with a confirmed address can join this team.</p>
        ) : null}
      </div>
      <ConfirmDialog
        open={removing !== null}
        title={`Remove ${removing?.email ?? ''} from ${team.name}?`}
        confirm="Remove"
        danger
        busy={remove.isPending}
        onCancel={() => setRemoving(null)}
        onConfirm={() => {
          if (!removing) return;
          memberFocus.removing(removing.userId);
          remove.mutate(removing.userId, { onError: memberFocus.forget, onSettled: () => setRemoving(null) });
        }}
      >
        <p>They lose access to the endpoints shared with the team at once, and the endpoints they shared leave the team.</p>
      </ConfirmDialog>
    </Section>
  );
}
