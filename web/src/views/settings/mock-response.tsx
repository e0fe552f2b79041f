/**
 * The mock response: what the receiver answers senders instead of its default
 * `200 {"ok":true,"id":…}`. The server refuses some headers (framing, and headers that act on the
 * whole origin); its message is shown at the Headers field.
 */
import { useState, type FormEvent } from 'react';
import type { Endpoint } from '../../api/queries';
import { headerLines, parseHeaderLines } from '../../lib/header-lines';
import { Field } from '../../ui/field';
import { Section } from '../../ui/section';
import { EndpointFormFooter, useEndpointForm } from './endpoint-form';

const FIELDS = ['mockResponse.status', 'mockResponse.headers', 'mockResponse.body', 'mockResponse'] as const;

export function MockResponseForm({ endpoint }: { endpoint: Endpoint }) {
  const mock = endpoint.mockResponse;
  const [status, setStatus] = useState(String(mock?.status ?? 200));
  // With no mock yet, the example is only placeholder text: pre-filled, it read as what the
  // endpoint answers now (it answers the default), and a Save sent what was never typed.
  const [headers, setHeaders] = useState(mock ? headerLines(mock.headers) : '');
  const [body, setBody] = useState(mock?.body ?? '');
  const form = useEndpointForm(endpoint.slug, FIELDS);
  const { errorAt } = form;

  const save = (e: FormEvent) => {
    e.preventDefault();
    const code = Number(status);
    if (!Number.isInteger(code) || code < 200 || code > 599) return form.refuse({ field: 'mockResponse.status', message: 'Enter a status code from 200 to 599.' });
    const parsed = parseHeaderLines(headers);
    if ('error' in parsed) return form.refuse({ field: 'mockResponse.headers', message: parsed.error });
    form.save({ mockResponse: { status: code, headers: parsed.headers, body } });
  };

  // The fields are emptied with the mock: holding its values beside "Now: the default answer" read
  // as if the old mock still answered, and a draft kept only in the page would be gone at the next
  // reload anyway (docs/dashboard.md, Endpoint settings).
  const answerDefault = () =>
    form.save({ mockResponse: null }, () => {
      setStatus('200');
      setHeaders('');
      setBody('');
    });

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
              Now: <strong>the default answer</strong>, <code>200 {'{"ok":true,"id":"req_…"}'}</code>. Fill in the fields below and
              Save to answer with your own instead.
            </>
          )}
        </p>
      }
    >
      <form onSubmit={save} noValidate>
        {/* The error says the range itself: the hint under it again would say it twice. */}
        <Field label="Status" hint={errorAt('mockResponse.status') ? undefined : '200 to 599.'} error={errorAt('mockResponse.status')}>
          <input className="narrow" inputMode="numeric" value={status} onChange={(e) => setStatus(e.target.value)} />
        </Field>
        <Field
          label="Headers"
          hint='One per line, as "Name: value". Cookies, framing headers and headers that act on the whole site (such as Strict-Transport-Security) are refused.'
          error={errorAt('mockResponse.headers')}
        >
          <textarea rows={3} spellCheck={false} className="mono" placeholder="content-type: application/json" value={headers} onChange={(e) => setHeaders(e.target.value)} />
        </Field>
        <Field label="Body" hint="Sent as text, exactly as written." error={errorAt('mockResponse.body') ?? errorAt('mockResponse')}>
          <textarea rows={5} spellCheck={false} className="mono" placeholder='{"received": true}' value={body} onChange={(e) => setBody(e.target.value)} />
        </Field>
        <EndpointFormFooter form={form} off={mock ? { label: 'Use the default answer', onClick: answerDefault } : null} />
      </form>
    </Section>
  );
}
