/**
 * API keys: create (the raw key is shown once, here, with a copy button), list, delete. The raw
 * key lives only in this component's state until it is dismissed; the server keeps its hash.
 */
import { useRef, useState } from 'react';
import { useApiKeys, useCreateApiKey, useDeleteApiKey, type ApiKey } from '../../api/account';
import { ConfirmDialog } from '../../ui/confirm';
import { ErrorMessage } from '../../ui/error';
import { NameForm } from '../../ui/name-form';
import { Section } from '../../ui/section';
import { ShownOnce } from '../../ui/shown-once';
import { RelativeTime } from '../../ui/time';
import { useFocusAfterRemoval, useFocusWhenGone } from '../../ui/focus';

function NewKey({ raw, name, onDone }: { raw: string; name: string; onDone: () => void }) {
  return (
    <ShownOnce
      region="New API key"
      warning={
        <>
          <strong>Copy this key now. It will not be shown again:</strong> hookcap keeps only a hash of it. If you lose it, delete it and create another.
        </>
      }
      value={raw}
      valueLabel={`API key ${name}`}
      copyLabel="Copy key"
      copied="Copied the API key"
      onDone={onDone}
    />
  );
}

function KeyRow({ apiKey, onDelete }: { apiKey: ApiKey; onDelete: () => void }) {
  return (
    <tr data-row-key={apiKey.id}>
      <th scope="row" className="cell-fill">
        {apiKey.name ? (
          // Cut to one line (up to 100 characters, unbroken, would squeeze the other columns); the
          // whole name stays the row's text, so its header's accessible name, and its tooltip.
          <span className="cell-cut" title={apiKey.name}>
            {apiKey.name}
          </span>
        ) : (
          <span className="muted">unnamed</span>
        )}
      </th>
      <td>
        <code>{apiKey.prefix}…</code>
      </td>
      <td className="hide-narrow cell-words">
        {/* One line per scope where the column is narrow, never one broken inside. */}
        {apiKey.scopes.map((scope, i) => (
          <span key={scope}>
            {scope}
            {i < apiKey.scopes.length - 1 ? ', ' : ''}
          </span>
        ))}
      </td>
      <td className="hide-narrow">
        <RelativeTime ms={apiKey.createdAt} />
      </td>
      <td className="cell-action">
        <button type="button" className="small danger" aria-label={`Delete key ${apiKey.name || apiKey.prefix}`} onClick={onDelete}>
          Delete
        </button>
      </td>
    </tr>
  );
}

export function ApiKeys() {
  const list = useApiKeys();
  const create = useCreateApiKey();
  const remove = useDeleteApiKey();
  const [name, setName] = useState('');
  const [deleting, setDeleting] = useState<ApiKey | null>(null);
  const section = useRef<HTMLDivElement>(null);
  // "I have copied it" hides the key: the focus goes to the Key name field, ready for another.
  useFocusWhenGone(create.data !== undefined, () => section.current?.querySelector<HTMLInputElement>('input'));
  // A deleted key's row goes: the focus goes to the next key's Delete (or the last one's), or to
  // the Key name field when no key is left.
  const keyRows = useRef<HTMLTableSectionElement>(null);
  const refocus = useFocusAfterRemoval(keyRows, () => section.current?.querySelector<HTMLInputElement>('input'));

  return (
    <Section title="API keys" intro={<p>Keys let scripts, the CLI and agents call the API as you (send them as <code>Authorization: Bearer svc_…</code>). Delete a key and it stops working at once.</p>}>
      {create.data ? <NewKey raw={create.data.key} name={create.data.name || create.data.prefix} onDone={() => create.reset()} /> : null}
      <div ref={section}>
        <NameForm
          label="Key name"
          hint="Optional: what the key is for, such as “CI” or “laptop”."
          value={name}
          onChange={setName}
          onSubmit={() => create.mutate(name, { onSuccess: () => setName('') })}
          mutation={create}
          submitLabel="Create key"
          input={{ autoComplete: 'off' }}
        />
      </div>
      {list.error ? <ErrorMessage error={list.error} /> : null}
      {remove.error ? <ErrorMessage error={remove.error} /> : null}
      {list.data && list.data.length > 0 ? (
        <div className="table-wrap">
          <table className="list-table">
            <caption className="offscreen">Your API keys</caption>
            <thead>
              <tr>
                <th scope="col" className="cell-fill">
                  Name
                </th>
                <th scope="col">Key</th>
                <th scope="col" className="hide-narrow">
                  Scopes
                </th>
                <th scope="col" className="hide-narrow">
                  Created
                </th>
                <th scope="col">
                  <span className="offscreen">Actions</span>
                </th>
              </tr>
            </thead>
            <tbody ref={keyRows}>
              {list.data.map((k) => (
                <KeyRow key={k.id} apiKey={k} onDelete={() => setDeleting(k)} />
              ))}
            </tbody>
          </table>
        </div>
      ) : list.data ? (
        <p className="muted">No API keys yet.</p>
      ) : null}
      <ConfirmDialog
        open={deleting !== null}
        title={`Delete the key ${deleting?.name || deleting?.prefix || ''}?`}
        confirm="Delete key"
        danger
        busy={remove.isPending}
        onCancel={() => setDeleting(null)}
        onConfirm={() => {
          if (!deleting) return;
          refocus.removing(deleting.id);
          remove.mutate(deleting.id, { onError: refocus.forget, onSettled: () => setDeleting(null) });
        }}
      >
        <p>Anything that uses it (scripts, the CLI, an agent) is refused from then on. This cannot be undone.</p>
      </ConfirmDialog>
    </Section>
  );
}
