/**
 * Replay: the request detail's **Replay** opens a dialog that sends the capture again from the
 * server (POST /api/requests/{id}/replay) to a URL, with header changes and, for a text body, an
 * edited body; then shows what the target answered. The answer is a stranger's: its body is shown
 * through BodyView (text, never HTML; binary as hex and base64). A target the server may not reach
 * (loopback, private) gets the `hookcap replay` command that sends the same from the user's machine.
 * docs/dashboard.md "Replay".
 */
import { useEffect, useId, useRef, useState, type FormEvent } from 'react';
import { ApiError, errorText, type Capture } from '../api/client';
import { useReplay, type ReplayInput, type ReplayResult } from '../api/replay';
import { readableHeaderValue } from '../lib/decode';
import { placeError } from '../lib/field-error';
import { formatSize } from '../lib/format';
import { NOT_PUBLIC, notPublicReason, parseHeaderChanges, rememberedUrl, rememberUrl, replayCommand, statusLine } from '../lib/replay';
import { BusyButton } from '../ui/busy-button';
import { CopyButton } from '../ui/copy-button';
import { ErrorMessage } from '../ui/error';
import { Field } from '../ui/field';
import { KeyValueTable } from '../ui/key-value-table';
import { ModalDialog } from '../ui/modal';
import { BodyView } from './body-view';

/** Bun's HTTP client sends no body with these (the API refuses one). */
const NO_BODY = new Set(['GET', 'HEAD']);

/** The **Replay** action and its dialog; the focus comes back to the button when the dialog closes. */
export function ReplayAction({ capture }: { capture: Capture }) {
  const [open, setOpen] = useState(false);
  const button = useRef<HTMLButtonElement>(null);
  const closing = useRef(false);
  useEffect(() => {
    if (open || !closing.current) return;
    closing.current = false;
    button.current?.focus();
  }, [open]);
  return (
    <>
      <button ref={button} type="button" aria-haspopup="dialog" onClick={() => setOpen(true)}>
        Replay
      </button>
      {open ? (
        <ReplayDialog
          capture={capture}
          onClose={() => {
            closing.current = true;
            setOpen(false);
          }}
        />
      ) : null}
    </>
  );
}

/** What was sent last: the CLI command is made from it, not from fields edited since. */
interface Sent {
  url: string;
  typed: [string, string | null][];
  body?: string;
}

function ReplayDialog({ capture, onClose }: { capture: Capture; onClose: () => void }) {
  const urlInput = useRef<HTMLInputElement>(null);
  const titleId = useId();
  const [url, setUrl] = useState(() => rememberedUrl(capture.endpointId));
  const [headerText, setHeaderText] = useState('');
  const [editing, setEditing] = useState(false);
  const [body, setBody] = useState(capture.bodyEncoding === 'utf8' ? capture.body : '');
  const [localError, setLocalError] = useState<{ field: 'url' | 'headers'; message: string } | null>(null);
  const [sent, setSent] = useState<Sent | null>(null);
  const replay = useReplay(capture.id);

  // The focus to the first field: ModalDialog, a child, has opened the dialog by now (its effects run first).
  useEffect(() => {
    urlInput.current?.focus();
  }, []);

  const error = replay.error;
  const blocked = error instanceof ApiError && error.code === NOT_PUBLIC ? notPublicReason(error.message) : null;
  const placed = error && !blocked ? placeError(error, ['url', 'headers', 'bodyEncoding', 'body']) : null;
  const fieldError = (field: 'url' | 'headers' | 'body'): string | null => {
    if (localError?.field === field) return localError.message;
    if (field === 'url' && blocked) return `The server does not send to this address: ${blocked}.`;
    if (field === 'body' && (placed?.field === 'body' || placed?.field === 'bodyEncoding')) return placed.message;
    return placed?.field === field ? placed.message : null;
  };
  const formError = error && !blocked && placed?.field === null ? error : null;
  const method = capture.method.toUpperCase();
  const editable = capture.bodyEncoding === 'utf8' && !NO_BODY.has(method);

  const submit = (e: FormEvent) => {
    e.preventDefault();
    setLocalError(null);
    // A new attempt: the last one's answer or refusal goes, even when this one stops in the page.
    replay.reset();
    const target = url.trim();
    if (target === '') {
      setLocalError({ field: 'url', message: 'Enter the URL to send the request to.' });
      urlInput.current?.focus();
      return;
    }
    const changes = parseHeaderChanges(headerText);
    if ('error' in changes) return setLocalError({ field: 'headers', message: changes.error });
    const input: ReplayInput = { url: target };
    if (changes.typed.length > 0) input.headers = changes.headers;
    // Unchanged, it is the captured body: sent as such, and the CLI command needs no --body.
    if (editable && editing && body !== capture.body) {
      input.body = body;
      input.bodyEncoding = 'utf8';
    }
    setSent({ url: target, typed: changes.typed, body: input.body });
    replay.mutate(input, {
      onSuccess: () => rememberUrl(capture.endpointId, target),
      onError: (err) => {
        // The target is right but down: worth offering again next time.
        if (err instanceof ApiError && err.status === 502) rememberUrl(capture.endpointId, target);
      },
    });
  };

  const result = replay.isPending ? undefined : replay.data;
  return (
    <ModalDialog open labelledBy={titleId} className="replay-dialog" onCancel={onClose}>
      <h2 id={titleId}>Replay request</h2>
      <p className="muted replay-intro">
        Sends this {method} again from the hookcap server, with its headers and its body byte for byte, to the URL you give (its path and query are not added).
      </p>
      <form onSubmit={submit} noValidate>
        <Field label="Target URL" hint="Remembered for this endpoint's requests (without its query, user or password)." error={fieldError('url')}>
          <input
            ref={urlInput}
            type="url"
            className="mono"
            spellCheck={false}
            autoComplete="off"
            placeholder="https://staging.example.com/webhooks"
            value={url}
            onChange={(e) => setUrl(e.target.value)}
          />
        </Field>
        <Field label="Header changes" hint='One per line: "Name: value" sets or replaces a header, "Name:" removes it, "Name;" sends it empty (as hookcap replay -H and curl -H). Not remembered.' error={fieldError('headers')}>
          <textarea rows={3} className="mono" spellCheck={false} placeholder={'x-debug: 1\nstripe-signature:'} value={headerText} onChange={(e) => setHeaderText(e.target.value)} />
        </Field>
        <BodyChoice capture={capture} editable={editable} editing={editing} setEditing={setEditing} body={body} setBody={setBody} error={fieldError('body')} />
        {formError ? <ErrorMessage error={new Error(sentence(errorText(formError)))} /> : null}
        {blocked && sent ? <FromYourMachine key={replay.submittedAt} id={capture.id} sent={sent} /> : null}
        <div className="dialog-actions">
          <button type="button" onClick={onClose}>
            Close
          </button>
          <BusyButton type="submit" className="primary" busy={replay.isPending}>
            Send
          </BusyButton>
        </div>
        <p className="replay-state" role="status">
          {replay.isPending ? 'Sending…' : result ? `The target answered ${statusLine(result.status)} in ${ms(result.timing.totalMs)}.` : ''}
        </p>
      </form>
      {result ? <ReplayAnswer key={replay.submittedAt} result={result} /> : null}
    </ModalDialog>
  );
}

/** The API's messages start in lower case ("the target did not answer: …"). */
const sentence = (text: string): string => `${text.charAt(0).toUpperCase()}${text.slice(1)}`;

const ms = (n: number): string => `${n.toLocaleString('en', { maximumFractionDigits: 1 })} ms`;

function BodyChoice(props: { capture: Capture; editable: boolean; editing: boolean; setEditing: (on: boolean) => void; body: string; setBody: (text: string) => void; error: string | null }) {
  const { capture } = props;
  const method = capture.method.toUpperCase();
  if (capture.body === '' && NO_BODY.has(method)) return <p className="muted replay-body-note">{method} requests are sent without a body.</p>;
  if (capture.bodyEncoding === 'base64') {
    return <p className="muted replay-body-note">The body is binary ({formatSize(capture.size)}, not UTF-8 text) and is sent exactly as captured.</p>;
  }
  if (!props.editable) return null;
  return (
    <>
      <div className="field check-field">
        <label>
          <input type="checkbox" checked={props.editing} onChange={(e) => props.setEditing(e.target.checked)} />
          Edit the body
        </label>
      </div>
      {props.editing ? (
        <Field label="Body" hint="Sent as UTF-8 text. A changed body no longer matches the sender's signature." error={props.error}>
          <textarea rows={8} className="mono" spellCheck={false} value={props.body} onChange={(e) => props.setBody(e.target.value)} />
        </Field>
      ) : (
        <p className="muted replay-body-note">The body is sent as captured ({capture.size === 0 ? 'empty' : formatSize(capture.size)}).</p>
      )}
    </>
  );
}

/** The outbound guard refused the address: the same replay from the user's machine, with the CLI. */
function FromYourMachine({ id, sent }: { id: string; sent: Sent }) {
  const titleId = useId();
  const command = replayCommand({ id, url: sent.url, typed: sent.typed, body: sent.body, apiUrl: location.origin });
  return (
    <section className="replay-cli" aria-labelledby={titleId}>
      <h3 id={titleId}>Send it from your machine</h3>
      <p>
        The server sends only to public addresses. The CLI sends from where it runs, so it reaches <code>localhost</code> and your network (it needs an API key: <code>hookcap login --key svc_…</code>, from Account):
      </p>
      <pre className="curl-line">
        <code>{command}</code>
      </pre>
      <CopyButton text={command} label="Copy command" done="Copied the replay command" />
    </section>
  );
}

/** What the target answered; the heading takes the focus when it arrives. */
function ReplayAnswer({ result }: { result: ReplayResult }) {
  const heading = useRef<HTMLHeadingElement>(null);
  const titleId = useId();
  useEffect(() => heading.current?.focus(), []);
  const contentType = Object.entries(result.headers).find(([k]) => k.toLowerCase() === 'content-type')?.[1] ?? '';
  // BodyView reads a capture; the answer as one (the fields it uses).
  const shown: Capture = {
    id: 'replay-answer',
    endpointId: '',
    method: 'POST',
    path: '/',
    headers: result.headers,
    body: result.body,
    bodyEncoding: result.bodyEncoding,
    queryParams: {},
    contentType,
    ip: '',
    size: result.bodyEncoding === 'base64' ? Math.floor((result.body.replace(/=+$/, '').length * 3) / 4) : new TextEncoder().encode(result.body).length,
    receivedAt: 0,
    detectedProvider: '',
    detectedEvent: '',
  };
  return (
    <section className="replay-answer" aria-labelledby={titleId}>
      <h3 id={titleId} ref={heading} tabIndex={-1}>
        Answer: {statusLine(result.status)}
      </h3>
      <p className="muted">
        Headers after {ms(result.timing.headersMs)}, complete after {ms(result.timing.totalMs)}. From <span dir="ltr">{result.url}</span>
      </p>
      {result.truncated ? <p className="notice">The target sent more than 64 KiB; only the first 64 KiB were kept and are shown.</p> : null}
      <h4>Response body</h4>
      <BodyView capture={shown} idPrefix="replay-body" />
      <h4>Response headers</h4>
      <KeyValueTable label="Response headers" rows={Object.entries(result.headers).map(([k, v]) => [k, readableHeaderValue(v)])} />
    </section>
  );
}
