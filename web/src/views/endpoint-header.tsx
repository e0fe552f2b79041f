/** An endpoint's own header: breadcrumb, name (Rename), receiver URL, expiry, and its actions (clear, delete, settings). */
import { useEffect, useRef, useState, type FormEvent, type ReactNode, type RefObject } from 'react';
import { Link, useLocation } from 'wouter';
import { useClearCaptures, useDeleteEndpoint, useRenameEndpoint, type Endpoint } from '../api/queries';
import { paths } from '../paths';
import { BusyButton } from '../ui/busy-button';
import { ConfirmDialog } from '../ui/confirm';
import { useDisclosure } from '../ui/disclosure';
import { EndpointSwitcher } from '../ui/endpoint-switcher';
import { ErrorMessage } from '../ui/error';
import { focusNextPageHeading, useFocusWhenGone } from '../ui/focus';
import { ExpiresAt } from '../ui/time';
import { announce } from '../ui/toast';
import { ReceiverUrl, takeJustCreated } from './endpoints';

function RenameForm({ endpoint, onDone }: { endpoint: Endpoint; onDone: () => void }) {
  const [name, setName] = useState(endpoint.name);
  const rename = useRenameEndpoint();
  // An empty name is refused here, in the dashboard's words: the API's "name must not be empty" is
  // its own lowercase phrase, written for code.
  const [empty, setEmpty] = useState(false);
  const submit = (e: FormEvent) => {
    e.preventDefault();
    if (!name.trim()) {
      rename.reset();
      setEmpty(true);
      return;
    }
    rename.mutate({ slug: endpoint.slug, name }, { onSuccess: onDone });
  };
  return (
    <form
      className="rename"
      onSubmit={submit}
      onKeyDown={(e) => {
        if (e.key === 'Escape') onDone();
      }}
    >
      <label htmlFor="rename-input">Name</label>
      <div className="inline">
        <input
          id="rename-input"
          value={name}
          maxLength={200}
          autoFocus
          aria-invalid={empty ? true : undefined}
          aria-describedby={empty ? 'rename-empty' : undefined}
          onChange={(e) => (setEmpty(false), setName(e.target.value))}
        />
        <BusyButton type="submit" className="primary" busy={rename.isPending}>
          Save
        </BusyButton>
        <button type="button" onClick={onDone}>
          Cancel
        </button>
      </div>
      {empty ? (
        <div className="error" role="alert" id="rename-empty">
          Enter a name for the endpoint.
        </div>
      ) : rename.error ? (
        <ErrorMessage error={rename.error} />
      ) : null}
    </form>
  );
}

/** Whether the element is drawn (not inside a closed More actions on a phone). */
const drawn = (el: HTMLElement | null): el is HTMLElement => el !== null && el.getClientRects().length > 0;

/**
 * Rename, Clear captures and Delete endpoint: in the row on a wide screen; on a phone behind
 * **More actions**, a disclosure over the page, so the header takes three short rows and the list
 * starts high (the toggle is hidden, and the group always shown, above 600 px: styles/app.css).
 * It stays open while its buttons are used (their dialog and the rename form hand the focus back
 * to them); Escape or a click elsewhere closes it.
 */
function MoreActions({ toggle, children }: { toggle: RefObject<HTMLButtonElement | null>; children: ReactNode }) {
  const menu = useDisclosure('endpoint-more', toggle);
  return (
    <div className="more" {...menu.boxProps}>
      <button type="button" className="more-toggle" aria-label="More actions" {...menu.toggleProps}>
        More <span aria-hidden="true">▾</span>
      </button>
      <div className="more-actions" id="endpoint-more" data-open={menu.open}>
        {children}
      </div>
    </div>
  );
}

export function EndpointHeader({ endpoint, onCleared }: { endpoint: Endpoint; onCleared: () => void }) {
  const [renaming, setRenaming] = useState(false);
  const [confirming, setConfirming] = useState<'delete' | 'clear' | null>(null);
  const renameButton = useRef<HTMLButtonElement>(null);
  const moreToggle = useRef<HTMLButtonElement>(null);
  // Saved, cancelled or Escape: the form is gone; the focus goes back to Rename (or to More actions, closed meanwhile).
  useFocusWhenGone(renaming, () => (drawn(renameButton.current) ? renameButton.current : moreToggle.current));
  const remove = useDeleteEndpoint();
  const clear = useClearCaptures();
  const [, navigate] = useLocation();
  const error = remove.error ?? clear.error;
  const title = useRef<HTMLHeadingElement>(null);
  useEffect(() => {
    const active = document.activeElement;
    if (takeJustCreated(endpoint.slug) && (active === null || active === document.body)) title.current?.focus();
  }, [endpoint.slug]);
  return (
    <header className="endpoint-head">
      <nav aria-label="Breadcrumb" className="crumbs">
        <Link href={paths.home}>Endpoints</Link> <span aria-hidden="true">/</span> <EndpointSwitcher current={endpoint.slug} />
      </nav>
      {renaming ? (
        <RenameForm endpoint={endpoint} onDone={() => setRenaming(false)} />
      ) : (
        <h1 className="endpoint-title" ref={title} tabIndex={-1}>
          {endpoint.name}
        </h1>
      )}
      <ReceiverUrl url={endpoint.url} />
      {endpoint.expiresAt !== null ? <ExpiresAt ms={endpoint.expiresAt} /> : null}
      <div className="endpoint-actions">
        <MoreActions toggle={moreToggle}>
          {!renaming ? (
            <button type="button" ref={renameButton} onClick={() => setRenaming(true)}>
              Rename
            </button>
          ) : null}
          <button type="button" onClick={() => setConfirming('clear')}>
            Clear captures
          </button>
          <button type="button" className="danger" onClick={() => setConfirming('delete')}>
            Delete endpoint
          </button>
        </MoreActions>
        <Link href={paths.endpointSettings(endpoint.slug)} className="button">
          Settings
        </Link>
      </div>
      {error ? <ErrorMessage error={error} /> : null}
      <ConfirmDialog
        open={confirming === 'delete'}
        title={`Delete ${endpoint.name}?`}
        confirm="Delete"
        danger
        busy={remove.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() =>
          remove.mutate(endpoint.slug, {
            // The Delete button goes with the page: the list's heading takes the focus, as after
            // deleting a team, and the live region says what happened.
            onSuccess: () => {
              announce(`Deleted the endpoint ${endpoint.name}.`);
              focusNextPageHeading();
              navigate(paths.home);
            },
            onSettled: () => setConfirming(null),
          })
        }
      >
        <p>
          Its URL stops accepting requests and every captured request is deleted. This cannot be undone.
        </p>
      </ConfirmDialog>
      <ConfirmDialog
        open={confirming === 'clear'}
        title="Clear all captured requests?"
        confirm="Clear"
        danger
        busy={clear.isPending}
        onCancel={() => setConfirming(null)}
        onConfirm={() =>
          clear.mutate(endpoint.slug, {
            onSuccess: onCleared,
            onSettled: () => setConfirming(null),
          })
        }
      >
        <p>Every request captured so far is removed. The endpoint keeps its URL and keeps capturing.</p>
      </ConfirmDialog>
    </header>
  );
}
