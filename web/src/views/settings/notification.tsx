/** The notification URL: one POST per capture (docs/notifications.md), and the secret that signs them. */
import { useState, type FormEvent } from 'react';
import type { Endpoint } from '../../api/queries';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { EndpointFormFooter, useEndpointForm } from './endpoint-form';
import { NotificationSigning } from './notification-signing';

export function NotificationForm({ endpoint }: { endpoint: Endpoint }) {
  const [url, setUrl] = useState(endpoint.notificationUrl ?? '');
  const form = useEndpointForm(endpoint.slug, ['notificationUrl']);

  const save = (value: string | null) => form.save({ notificationUrl: value }, (saved) => setUrl(saved.notificationUrl ?? ''));
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
        {/* The warning is the server's, about the URL as saved: it stays while the endpoint carries it, after a reload too. */}
        <Field
          label="Notification URL"
          hint="An http or https URL to a public address; leave empty to stop notifications. A loopback or private address is saved, but nothing is sent there unless the server's OUTBOUND_ALLOW lists it."
          error={form.errorAt('notificationUrl')}
          warning={endpoint.notificationWarning ?? null}
        >
          <input type="text" inputMode="url" autoComplete="off" spellCheck={false} placeholder="https://example.com/hooks/hookcap" value={url} onChange={(e) => setUrl(e.target.value)} />
        </Field>
        <EndpointFormFooter form={form} off={endpoint.notificationUrl ? { label: 'Stop notifications', onClick: () => save(null) } : null} />
      </form>
      <NotificationSigning endpoint={endpoint} />
    </Section>
  );
}
