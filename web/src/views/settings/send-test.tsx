/**
 * Send test: a real request to this endpoint through the receiver (POST /api/send-test), captured
 * like any other. Afterwards: what the receiver answered, and a link to the captured request.
 */
import { useState, type FormEvent } from 'react';
import { Link } from 'wouter';
import type { Endpoint } from '../../api/queries';
import { useSendTest } from '../../api/settings';
import { placeError } from '../../lib/field-error';
import { parseHeaderLines } from '../../lib/header-lines';
import { paths } from '../../paths';
import { ErrorMessage } from '../../ui/error';
import { Field } from '../../ui/field';
import { Actions, Section } from '../../ui/section';
import { BusyButton } from '../../ui/busy-button';

const METHODS = ['POST', 'PUT', 'PATCH', 'DELETE', 'GET', 'HEAD', 'OPTIONS'];
const NO_BODY = new Set(['GET', 'HEAD']);
const DEFAULT_BODY = JSON.stringify({ type: 'hookcap.test', message: 'Test webhook sent by hookcap' }, null, 2);

export function SendTestForm({ endpoint }: { endpoint: Endpoint }) {
  const [method, setMethod] = useState('POST');
  const [headers, setHeaders] = useState('content-type: application/json');
  const [body, setBody] = useState(DEFAULT_BODY);
  const [headerError, setHeaderError] = useState<string | null>(null);
  const send = useSendTest(endpoint.slug);
  const placed = send.error ? placeError(send.error, ['method', 'headers', 'body']) : null;
  const noBody = NO_BODY.has(method);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setHeaderError(null);
    const parsed = parseHeaderLines(headers);
    if ('error' in parsed) return setHeaderError(parsed.error);
    send.mutate({ method, headers: parsed.headers, body: noBody ? '' : body });
  };

  const result = send.data;
  return (
    <Section title="Send test" intro={<p>Send a request to this endpoint's URL through the receiver, as a real sender would; it is captured like any other.</p>}>
      <form onSubmit={submit} noValidate>
        <Field label="Method" error={placed?.field === 'method' ? placed.message : null}>
          <select className="narrow" value={method} onChange={(e) => setMethod(e.target.value)}>
            {METHODS.map((m) => (
              <option key={m}>{m}</option>
            ))}
          </select>
        </Field>
        <Field label="Headers" hint='One per line, as "Name: value".' error={headerError ?? (placed?.field === 'headers' ? placed.message : null)}>
          <textarea rows={2} spellCheck={false} className="mono" value={headers} onChange={(e) => setHeaders(e.target.value)} />
        </Field>
        <Field label="Body" hint={noBody ? `${method} requests are sent without a body.` : undefined} error={placed?.field === 'body' ? placed.message : null}>
          <textarea rows={5} spellCheck={false} className="mono" value={noBody ? '' : body} disabled={noBody} onChange={(e) => setBody(e.target.value)} />
        </Field>
        {send.error && placed?.field === null ? <ErrorMessage error={send.error} /> : null}
        <Actions>
          <BusyButton type="submit" className="primary" busy={send.isPending}>
            Send test
          </BusyButton>
          {send.isPending ? <span className="muted">Sending…</span> : null}
        </Actions>
      </form>
      {result ? (
        <div className="send-result" role="status">
          <p>
            The receiver answered <strong>{result.response.status}</strong>.{' '}
            {result.id ? (
              <>
                Captured as <code>{result.id}</code>: <Link href={paths.endpointRequest(endpoint.slug, result.id)}>Open the captured request</Link>
              </>
            ) : (
              'It was not captured (the receiver refused it).'
            )}
          </p>
          {result.response.body ? (
            <details>
              <summary>Response body</summary>
              <pre className="body-raw">{result.response.body}</pre>
            </details>
          ) : null}
        </div>
      ) : null}
    </Section>
  );
}
