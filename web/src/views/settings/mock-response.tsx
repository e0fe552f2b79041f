/**
 * The mock response: what the receiver answers senders instead of its default
 * `200 {"ok":true,"id":…}`. The server refuses some headers (framing, and headers that act on the
 * whole origin); its message is shown at the Headers field.
 */
import { useState, type FormEvent } from 'react';
import type { Endpoint } from '../../api/queries';
import { useUpdateEndpoint } from '../../api/settings';
import { placeError } from '../../lib/field-error';
import { headerLines, parseHeaderLines } from '../../lib/header-lines';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Actions, SavedNote, Section } from '../../ui/section';

const FIELDS = ['mockResponse.status', 'mockResponse.headers', 'mockResponse.body', 'mockResponse'] as const;

export function MockResponseForm({ endpoint }: { endpoint: Endpoint }) {
  const mock = endpoint.mockResponse;
  const [status, setStatus] = useState(String(mock?.status ?? 200));
  const [headers, setHeaders] = useState(headerLines(mock?.headers ?? { 'content-type': 'application/json' }));
  const [body, setBody] = useState(mock?.body ?? '{"received": true}');
  const [local, setLocal] = useState<{ field: string; message: string } | null>(null);
  const [savedAt, setSavedAt] = useState(0);
  const update = useUpdateEndpoint(endpoint.slug);

  const placed = update.error ? placeError(update.error, FIELDS) : null;
  const errorAt = (field: string) => (local?.field === field ? local.message : placed?.field === field ? placed.message : null);

  const save = (e: FormEvent) => {
    e.preventDefault();
    setLocal(null);
    update.reset();
    const code = Number(status);
    if (!Number.isInteger(code) || code < 200 || code > 599) return setLocal({ field: 'mockResponse.status', message: 'Enter a status code from 200 to 599.' });
    const parsed = parseHeaderLines(headers);
    if ('error' in parsed) return setLocal({ field: 'mockResponse.headers', message: parsed.error });
    update.mutate({ mockResponse: { status: code, headers: parsed.headers, body } }, { onSuccess: () => setSavedAt(Date.now()) });
  };
  const clear = () => {
    setLocal(null);
    update.mutate({ mockResponse: null }, { onSuccess: () => setSavedAt(Date.now()) });
  };

  return (
    <Section
      title="Mock response"
      intro={
        <p>
          What this endpoint answers every sender.{' '}
          {mock ? (
            <>
              Now: <strong>a mock response with status {mock.status}</strong>.
            </>
          ) : (
            <>
              Now: <strong>the default answer</strong>, <code>200 {'{"ok":true,"id":"req_…"}'}</code>.
            </>
          )}
        </p>
      }
    >
      <form onSubmit={save} noValidate>
        <Field label="Status" hint="200 to 599." error={errorAt('mockResponse.status')}>
          <input className="narrow" inputMode="numeric" value={status} onChange={(e) => setStatus(e.target.value)} />
        </Field>
        <Field
          label="Headers"
          hint='One per line, as "Name: value". Cookies, framing headers and headers that act on the whole site (such as Strict-Transport-Security) are refused.'
          error={errorAt('mockResponse.headers')}
        >
          <textarea rows={3} spellCheck={false} className="mono" value={headers} onChange={(e) => setHeaders(e.target.value)} />
        </Field>
        <Field label="Body" hint="Sent as text, exactly as written." error={errorAt('mockResponse.body') ?? errorAt('mockResponse')}>
          <textarea rows={5} spellCheck={false} className="mono" value={body} onChange={(e) => setBody(e.target.value)} />
        </Field>
        {update.error && placed?.field === null ? <ErrorMessage error={update.error} /> : null}
        <Actions>
          <button type="submit" className="primary" disabled={update.isPending}>
            Save
          </button>
          {mock ? (
            <button type="button" onClick={clear} disabled={update.isPending}>
              Use the default answer
            </button>
          ) : null}
          <SavedNote at={savedAt} />
        </Actions>
      </form>
    </Section>
  );
}
