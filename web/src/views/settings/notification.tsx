/** The notification URL: one POST per capture (docs/notifications.md). */
import { useState, type FormEvent } from 'react';
import type { Endpoint } from '../../api/queries';
import { useUpdateEndpoint } from '../../api/settings';
import { placeError } from '../../lib/field-error';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Actions, SavedNote, Section } from '../../ui/section';

export function NotificationForm({ endpoint }: { endpoint: Endpoint }) {
  const [url, setUrl] = useState(endpoint.notificationUrl ?? '');
  const [savedAt, setSavedAt] = useState(0);
  const update = useUpdateEndpoint(endpoint.slug);
  const placed = update.error ? placeError(update.error, ['notificationUrl']) : null;

  const save = (value: string | null) => update.mutate({ notificationUrl: value }, { onSuccess: (e) => (setUrl(e.notificationUrl ?? ''), setSavedAt(Date.now())) });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    save(url.trim() === '' ? null : url.trim());
  };

  return (
    <Section
      title="Notifications"
      intro={
        <p>
          hookcap POSTs a short JSON note to this URL for every captured request (method, path, size, sender; never the captured headers or body).{' '}
          {endpoint.notificationUrl ? 'Notifications are on.' : 'Notifications are off.'}
        </p>
      }
    >
      <form onSubmit={submit} noValidate>
        <Field label="Notification URL" hint="An http or https URL; leave empty to stop notifications. Private and loopback addresses are refused when sending." error={placed?.field ? placed.message : null}>
          <input type="text" inputMode="url" autoComplete="off" spellCheck={false} placeholder="https://example.com/hooks/hookcap" value={url} onChange={(e) => setUrl(e.target.value)} />
        </Field>
        {update.error && placed?.field === null ? <ErrorMessage error={update.error} /> : null}
        <Actions>
          <button type="submit" className="primary" disabled={update.isPending}>
            Save
          </button>
          {endpoint.notificationUrl ? (
            <button type="button" onClick={() => save(null)} disabled={update.isPending}>
              Stop notifications
            </button>
          ) : null}
          <SavedNote at={savedAt} />
        </Actions>
      </form>
    </Section>
  );
}
