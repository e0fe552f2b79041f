/**
 * The notification signing secret (docs/notifications.md "Signatures"), inside the Notifications
 * section: generate one, rotate it, remove it. A new secret is shown once, here, with a copy
 * button, and lives only in the mutation's state until dismissed; afterwards the page knows only
 * since when the endpoint has one.
 */
import { useId, useState } from 'react';
import type { Endpoint } from '../../api/queries';
import { useRemoveNotificationSecret, useRotateNotificationSecret } from '../../api/settings';
import { BusyButton } from '../../ui/busy-button';
import { ConfirmDialog } from '../../ui/confirm';
import { ErrorMessage } from '../../ui/error';
import { Actions } from '../../ui/section';
import { ShownOnce } from '../../ui/shown-once';
import { RelativeTime } from '../../ui/time';

function NewSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  return (
    <ShownOnce
      region="New signing secret"
      warning={
        <>
          <strong>Copy this secret now. It will not be shown again.</strong> Give it to the app that receives the notifications, to check their <code>webhook-signature</code>. If you lose it,
          rotate it.
        </>
      }
      value={secret}
      valueLabel="Notification signing secret"
      copyLabel="Copy secret"
      copied="Copied the signing secret"
      onDone={onDone}
    />
  );
}

export function NotificationSigning({ endpoint }: { endpoint: Endpoint }) {
  const rotate = useRotateNotificationSecret(endpoint.slug);
  const remove = useRemoveNotificationSecret(endpoint.slug);
  const [asking, setAsking] = useState<'rotate' | 'remove' | null>(null);
  const titleId = useId();
  const signing = endpoint.notificationSigning;
  const busy = rotate.isPending || remove.isPending;

  const make = () => {
    remove.reset();
    rotate.mutate(undefined, { onSettled: () => setAsking(null) });
  };
  const drop = () => {
    rotate.reset();
    remove.mutate(undefined, { onSettled: () => setAsking(null) });
  };

  return (
    <div className="settings-subsection" role="group" aria-labelledby={titleId}>
      <h3 id={titleId}>Notification signing</h3>
      <p>
        {signing ? (
          <>
            Notifications are signed (Standard Webhooks: <code>webhook-id</code>, <code>webhook-timestamp</code>, <code>webhook-signature</code>) with a secret made{' '}
            <RelativeTime ms={signing.createdAt} />.
          </>
        ) : (
          'Notifications are not signed. Generate a secret and your app can check that each one comes from hookcap.'
        )}
      </p>
      {rotate.data ? <NewSecret secret={rotate.data.secret} onDone={() => rotate.reset()} /> : null}
      {rotate.error ? <ErrorMessage error={rotate.error} /> : null}
      {remove.error ? <ErrorMessage error={remove.error} /> : null}
      <Actions>
        {signing ? (
          <>
            <button type="button" disabled={busy} onClick={() => setAsking('rotate')}>
              Rotate secret
            </button>
            <button type="button" className="danger" disabled={busy} onClick={() => setAsking('remove')}>
              Remove secret
            </button>
          </>
        ) : (
          <BusyButton type="button" busy={busy} onClick={make}>
            Generate signing secret
          </BusyButton>
        )}
      </Actions>
      <ConfirmDialog open={asking === 'rotate'} title="Rotate the signing secret?" confirm="Rotate" busy={rotate.isPending} onConfirm={make} onCancel={() => setAsking(null)}>
        <p>A new secret signs every notification from now on, retries included. The current secret stops verifying at once: update your app right after.</p>
      </ConfirmDialog>
      <ConfirmDialog open={asking === 'remove'} title="Remove the signing secret?" confirm="Remove" danger busy={remove.isPending} onConfirm={drop} onCancel={() => setAsking(null)}>
        <p>Notifications go out unsigned from now on. An app that checks signatures will refuse them.</p>
      </ConfirmDialog>
    </div>
  );
}
