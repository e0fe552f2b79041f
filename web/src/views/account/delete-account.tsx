/**
 * Deleting the account, confirmed by typing its email address. The teams it owns go with it, so
 * they are named with how many other members lose access (the teams list, then each owned team's
 * detail, the same reads and cache as the team pages).
 */
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useDeleteAccount } from '../../api/account';
import { useMe } from '../../api/queries';
import { useTeam, useTeams, type Team } from '../../api/teams';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { BusyButton } from '../../ui/busy-button';

const others = (n: number) => (n === 0 ? 'only you' : n === 1 ? 'you and 1 member' : `you and ${n} members`);

/** One owned team, with its other members once its detail is read. */
function OwnedTeam({ team }: { team: Team }) {
  const used = useTeam(team.id).data?.subscription.seatsUsed;
  return (
    <li>
      <strong>{team.name}</strong>
      {used === undefined ? null : `: ${others(Math.max(0, used - 1))}`}
    </li>
  );
}

/** The teams this account owns. */
function OwnedTeams() {
  const me = useMe();
  const teams = useTeams();
  const owned = (teams.data ?? []).filter((t) => t.ownerId === me.data?.id);
  if (owned.length === 0) return null;
  return (
    <>
      <p>
        {owned.length === 1 ? 'The team you own is deleted too' : `The ${owned.length} teams you own are deleted too`}, and their members lose access to the endpoints shared there:
      </p>
      <ul aria-label="Teams deleted with your account">
        {owned.map((t) => (
          <OwnedTeam key={t.id} team={t} />
        ))}
      </ul>
    </>
  );
}

export function DeleteAccount({ email }: { email: string }) {
  const [typed, setTyped] = useState('');
  const remove = useDeleteAccount();
  const [, navigate] = useLocation();
  const matches = typed.trim().toLowerCase() === email.toLowerCase();
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (matches) remove.mutate(undefined, { onSuccess: () => navigate(paths.home, { replace: true }) });
  };
  return (
    <Section
      title="Delete account"
      className="danger-zone"
      intro={
        <>
          <p>
            Deletes your account, every endpoint and every captured request, your API keys and the teams you own. Their URLs stop accepting requests at once. <strong>This cannot be undone.</strong>
          </p>
          <OwnedTeams />
        </>
      }
    >
      <form onSubmit={submit} noValidate>
        <Field label={`Type your email address (${email}) to confirm`}>
          <input type="text" autoComplete="off" spellCheck={false} value={typed} onChange={(e) => setTyped(e.target.value)} />
        </Field>
        {remove.error ? <ErrorMessage error={remove.error} /> : null}
        <div className="form-actions">
          <BusyButton type="submit" className="primary danger" disabled={!matches} busy={remove.isPending}>
            Delete account
          </BusyButton>
        </div>
      </form>
    </Section>
  );
}
