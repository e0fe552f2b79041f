/**
 * A form of one name (a new API key's, a new team's, a team's new name): the field with its buttons
 * on its row, the server's error about `name` at the field and any other error below it.
 *
 * @example
 * <NameForm label="New team name" value={name} onChange={setName} mutation={create} submitLabel="Create team" onSubmit={() => create.mutate(name)} />
 */
import type { FormEvent, InputHTMLAttributes } from 'react';
import { placeError } from '../lib/field-error';
import { ErrorMessage } from './error';
import { Field } from './field';
import { BusyButton } from './busy-button';

export interface NameFormProps {
  label: string;
  hint?: string;
  value: string;
  onChange: (value: string) => void;
  onSubmit: () => void;
  /** The mutation the form runs: its error and whether it is under way. */
  mutation: { error: Error | null; isPending: boolean };
  submitLabel: string;
  /** Shows a Cancel button beside the submit button; Escape in the form cancels too. */
  onCancel?: () => void;
  input?: Pick<InputHTMLAttributes<HTMLInputElement>, 'autoComplete' | 'autoFocus'>;
}

export function NameForm({ label, hint, value, onChange, onSubmit, mutation, submitLabel, onCancel, input }: NameFormProps) {
  const placed = mutation.error ? placeError(mutation.error, ['name']) : null;
  const submit = (e: FormEvent) => {
    e.preventDefault();
    onSubmit();
  };
  return (
    <form
      onSubmit={submit}
      noValidate
      onKeyDown={(e) => {
        if (onCancel && e.key === 'Escape') onCancel();
      }}
    >
      <Field
        label={label}
        hint={hint}
        error={placed?.field ? placed.message : null}
        action={
          <>
            <BusyButton type="submit" className="primary" busy={mutation.isPending}>
              {submitLabel}
            </BusyButton>
            {onCancel ? (
              <button type="button" onClick={onCancel}>
                Cancel
              </button>
            ) : null}
          </>
        }
      >
        <input maxLength={100} {...input} value={value} onChange={(e) => onChange(e.target.value)} />
      </Field>
      {mutation.error && placed?.field === null ? <ErrorMessage error={mutation.error} /> : null}
    </form>
  );
}
