/** Deleting the account, confirmed by typing its email address. */
import { useState, type FormEvent } from 'react';
import { useLocation } from 'wouter';
import { useDeleteAccount } from '../../api/account';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { BusyButton } from '../../ui/busy-button';

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
        <p>
          Deletes your account, every endpoint and every captured request, your API keys and the teams you own. Their URLs stop accepting requests at once. <strong>This cannot be undone.</strong>
        </p>
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
