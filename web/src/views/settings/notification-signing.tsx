/**
 * The notification signing secret (docs/notifications.md "Signatures"), inside the Notifications
 * section: generate one, rotate it, remove it. A new secret is shown once, here, with a copy
 * button, and lives only in the mutation's state until dismissed; afterwards the page knows only
 * since when the endpoint has one.
 */
import { useEffect, useId, useRef, useState } from 'react';
import type { Endpoint } from '../../api/queries';
import { useRemoveNotificationSecret, useRotateNotificationSecret } from '../../api/settings';
import { BusyButton } from '../../ui/busy-button';
import { ConfirmDialog } from '../../ui/confirm';
import { CopyButton } from '../../ui/copy-button';
import { ErrorMessage } from '../../ui/error';
import { Actions } from '../../ui/section';
import { RelativeTime } from '../../ui/time';

function NewSecret({ secret, onDone }: { secret: string; onDone: () => void }) {
  // Shown once: the focus goes to its copy button, inside the region that names it.
  const copy = useRef<HTMLButtonElement>(null);
  useEffect(() => copy.current?.focus(), []);
  return (
    <div className="new-key" role="region" aria-label="New signing secret">
      <p className="new-key-warning">
        <strong>Copy this secret now. It will not be shown again.</strong> Give it to the app that receives the notifications, to check their <code>webhook-signature</code>. If you lose it,
        rotate it.
      </p>
      <p className="new-key-line">
        <code className="raw-key" aria-label="Notification signing secret">
          {secret}
        </code>
      </p>
      <Actions>
        <CopyButton text={secret} label="Copy secret" done="Copied the signing secret" className="primary" ref={copy} />
        <button type="button" onClick={onDone}>
          I have copied it
        </button>
      </Actions>
    </div>
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
