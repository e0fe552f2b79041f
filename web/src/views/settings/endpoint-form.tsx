/**
 * What the endpoint settings forms that save with one PATCH share: the server's 400 shown at the
 * field it names (or below the form), a field error of the form's own checking, the Save button,
 * the button that turns the setting off while it is on, and "Saved." after each success.
 *
 * @example
 * const form = useEndpointForm(endpoint.slug, ['notificationUrl']);
 * form.save({ notificationUrl: url });
 * <Field label="URL" error={form.errorAt('notificationUrl')}>…</Field>
 * <EndpointFormFooter form={form} off={{ label: 'Stop notifications', onClick: () => form.save({ notificationUrl: null }) }} />
 */
import { useLayoutEffect, useRef, useState } from 'react';
import type { Endpoint } from '../../api/queries';
import { useUpdateEndpoint, type EndpointPatch } from '../../api/settings';
import { placeError, type PlacedError } from '../../lib/field-error';
import { ErrorMessage } from '../../ui/error';
import { Actions, SavedNote } from '../../ui/section';
import { BusyButton } from '../../ui/busy-button';

export interface FieldProblem {
  field: string;
  message: string;
}

export interface EndpointForm {
  /** The message for `field`: the form's own check first, then the server's. */
  errorAt(field: string): string | null;
  /** Shows a problem the form found itself, in place of any earlier server error. */
  refuse(problem: FieldProblem): void;
  /** Sends the change; `onSaved` gets the endpoint as saved, before "Saved." shows. */
  save(patch: EndpointPatch, onSaved?: (saved: Endpoint) => void): void;
  pending: boolean;
  /** A server error that names none of the form's fields. */
  formError: unknown;
  savedAt: number;
}

export function useEndpointForm(slug: string, fields: readonly string[]): EndpointForm {
  const update = useUpdateEndpoint(slug);
  const [local, setLocal] = useState<FieldProblem | null>(null);
  const [savedAt, setSavedAt] = useState(0);
  const placed: PlacedError | null = update.error ? placeError(update.error, fields) : null;
  return {
    errorAt: (field) => (local?.field === field ? local.message : placed?.field === field ? placed.message : null),
    refuse(problem) {
      update.reset();
      setLocal(problem);
    },
    save(patch, onSaved) {
      setLocal(null);
      update.mutate(patch, {
        onSuccess: (saved) => {
          onSaved?.(saved);
          setSavedAt(Date.now());
        },
      });
    },
    pending: update.isPending,
    formError: update.error && placed?.field === null ? update.error : null,
    savedAt,
  };
}

/**
 * The form-wide error, then Save, the off button (while `off` is given) and "Saved.". The off
 * button goes away once the setting is off; if it had the focus, Save gets it, not the page.
 */
export function EndpointFormFooter({ form, off }: { form: EndpointForm; off: { label: string; onClick: () => void } | null }) {
  const save = useRef<HTMLButtonElement>(null);
  const offFocused = useRef(false);
  const hasOff = off !== null;
  useLayoutEffect(() => {
    if (hasOff || !offFocused.current) return;
    offFocused.current = false;
    save.current?.focus();
  }, [hasOff]);
  return (
    <>
      {form.formError ? <ErrorMessage error={form.formError} /> : null}
      <Actions>
        <BusyButton type="submit" className="primary" busy={form.pending} ref={save}>
          Save
        </BusyButton>
        {off ? (
          <BusyButton type="button" onClick={off.onClick} busy={form.pending} onFocus={() => (offFocused.current = true)} onBlur={() => (offFocused.current = false)}>
            {off.label}
          </BusyButton>
        ) : null}
        <SavedNote at={form.savedAt} />
      </Actions>
    </>
  );
}
