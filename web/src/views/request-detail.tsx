/**
 * One captured request: where it went, every header, the body as a person reads it (JSON tree,
 * form table, text) and exactly as it arrived (raw, hex), plus cURL, HAR and the body to take
 * away, and Replay (views/replay.tsx). Everything captured is shown as text: React escapes it; nothing is parsed as HTML.
 */
import { useEffect, type ReactNode } from 'react';
import { errorText, type Capture } from '../api/client';
import { keepRefusal, useKeep, useRetentionDays } from '../api/pins';
import { useEndpoints } from '../api/queries';
import { bodyBytes, bodyFilename } from '../lib/body';
import { copyText, download } from '../lib/browser';
import { curlCommand } from '../lib/curl';
import { readableHeaderValue } from '../lib/decode';
import { exactTime, formatSize, utcTimeIfLocalDiffers } from '../lib/format';
import { harOf } from '../lib/har';
import { queryRows, readableRows, readableUrl } from '../lib/url';
import { CopyButton } from '../ui/copy-button';
import { DecodedBody } from '../ui/decoded-body';
import { KeyValueTable } from '../ui/key-value-table';
import { useDetailKeys } from '../ui/keys';
import { EventBadge, ProviderIcon } from '../ui/provider';
import { MethodBadge, SignatureBadge } from '../ui/request-row';
import { missingSignatureHeader } from '../lib/signature';
import { RelativeTime } from '../ui/time';
import { useFold } from '../ui/fold';
import { announce } from '../ui/toast';
import { BusyButton } from '../ui/busy-button';
import { ErrorMessage } from '../ui/error';
import { BodyView } from './body-view';
import { ReplayAction } from './replay';

/**
 * Method and URL, the URL cut to three lines: a sender's URL of a few thousand characters (a long
 * query, a path with a token in it) otherwise filled the pane, pushing the actions, the facts and
 * the body out of sight, and on a phone scrolled the back link away when the heading took the
 * focus. **Show full URL** unfolds it; the heading's text (what a screen reader reads) is always whole.
 */
function DetailTitle({ method, url }: { method: string; url: string }) {
  const { ref, expanded, toggleable, toggle } = useFold<HTMLSpanElement>(url);
  return (
    <>
      <h2 id="detail-title" className="detail-title" tabIndex={-1}>
        <MethodBadge method={method} />{' '}
        <span ref={ref} id="detail-url" className={expanded ? 'detail-url' : 'detail-url clamped'} dir="ltr">
          {url}
        </span>
      </h2>
      {toggleable ? (
        <button type="button" className="small detail-url-toggle" aria-expanded={expanded} aria-controls="detail-url" onClick={toggle}>
          {expanded ? 'Show less' : 'Show full URL'}
        </button>
      ) : null}
    </>
  );
}

/**
 * **Keep**: pins the capture so retention never deletes it (docs/retention.md), a toggle
 * (`aria-pressed`); its label stays "Keep" either way, as a toggle's does, the state being
 * pressed or not. The refusal at the cap is said with the cap and what to do.
 */
function KeepButton({ keep, capture }: { keep: ReturnType<typeof useKeep>; capture: Capture }) {
  const kept = capture.pinned === true;
  return (
    <BusyButton
      type="button"
      className="keep-toggle"
      aria-pressed={kept}
      title={kept ? 'Kept: retention will not delete this request. Press to stop keeping it' : 'Keep this request: retention will not delete it'}
      busy={keep.isPending}
      onClick={() =>
        keep.mutate(!kept, {
          onSuccess: (c) => announce(c.pinned ? 'Kept: retention will not delete this request' : 'No longer kept'),
        })
      }
    >
      Keep
    </BusyButton>
  );
}

/**
 * How long the capture stays: known for the account's own endpoints (its plan's retention,
 * `GET /api/usage`); a shared endpoint's captures go by its owner's plan, which is not shown here.
 */
function RetentionFact({ capture }: { capture: Capture }) {
  const { days, failed } = useRetentionDays();
  const endpoints = useEndpoints().data;
  if (capture.pinned) return <dd>Kept: retention will not delete it</dd>;
  // Until it is known whose endpoint it is and for how long, a blank line of the same height: no
  // wrong period said for a moment, and nothing below moves when it comes.
  if (!endpoints) return <dd>{'\u00a0'}</dd>;
  if (!endpoints.some((e) => e.id === capture.endpointId)) return <dd>Deleted after the owner's retention period unless kept</dd>;
  if (days !== undefined) return <dd>Deleted after {days === 1 ? '1 day' : `${days} days`} unless kept</dd>;
  return <dd>{failed ? "Deleted after your plan's retention period unless kept" : '\u00a0'}</dd>;
}

export function RequestDetail({
  capture,
  endpointUrl,
  endpointName,
  actions,
  compare,
  onChanged,
}: {
  capture: Capture;
  endpointUrl: string;
  endpointName?: string;
  actions?: ReactNode;
  compare?: ReactNode;
  /** The record changed on the server (kept or not): for a list that holds its own copy (the live list). */
  onChanged?: (c: Capture) => void;
}) {
  const keep = useKeep(capture, onChanged);
  const { reset } = keep;
  // One detail shows request after request (j/k): a refusal said for one is not about the next.
  useEffect(() => reset(), [capture.id, reset]);
  // For reading (decoded); cURL and HAR rebuild the URL to send from the record itself.
  const url = readableUrl(endpointUrl, capture);
  const curl = () => curlCommand(capture, endpointUrl);
  useDetailKeys({
    copyCurl: () => {
      copyText(curl()).then(
        () => announce('Copied as cURL'),
        (e: unknown) => announce(`Could not copy: ${errorText(e)}`),
      );
    },
  });
  const query = readableRows(queryRows(capture.queryParams));
  const utc = utcTimeIfLocalDiffers(capture.receivedAt);
  const binary = capture.bodyEncoding === 'base64';
  return (
    <article className="detail" aria-labelledby="detail-title">
      <header className="detail-head">
        <DetailTitle key={capture.id} method={capture.method} url={url} />
        <div className="detail-actions">
          {/* Short visible labels under a group name, as Download and Compare: with Keep the bar no
              longer fitted one row at 1280 px. Each accessible name still says it in full (and holds
              the visible text). Copy body is off with no body, as Download body is: it wiped the
              clipboard and said "Copied the body". A body that is not UTF-8 is copied as base64:
              said in its name and on hover, not in its visible label. */}
          <span className="action-group" role="group" aria-label="Copy">
            <span className="action-group-label" aria-hidden="true">
              Copy
            </span>
            <CopyButton text={curl} label="cURL" ariaLabel="Copy as cURL" done="Copied as cURL" />
            <CopyButton
              text={capture.body}
              label="Body"
              ariaLabel={binary ? 'Copy body (base64)' : 'Copy body'}
              title={binary ? 'Copies the body as base64 text: its bytes are not UTF-8' : undefined}
              done="Copied the body"
              disabled={capture.body === ''}
            />
          </span>
          {/* Sends it again from the server (views/replay.tsx); keyed, so another request starts a fresh form. */}
          <ReplayAction key={capture.id} capture={capture} />
          <KeepButton keep={keep} capture={capture} />
          {/* Short visible labels under a group name, so every action fits on one row beside the
              compare ones; each accessible name still says it in full (and holds the visible text). */}
          <span className="action-group" role="group" aria-label="Download">
            <span className="action-group-label" aria-hidden="true">
              Download
            </span>
            <button type="button" aria-label="Download HAR" onClick={() => download(`${capture.id}.har`, JSON.stringify(harOf(capture, endpointUrl), null, 2), 'application/json')}>
              HAR
            </button>
            <button type="button" aria-label="Download body" onClick={() => download(bodyFilename(capture), bodyBytes(capture).slice(), capture.contentType || 'application/octet-stream')} disabled={capture.body === ''}>
              Body
            </button>
          </span>
          {actions}
        </div>
      </header>
      {keep.error ? <ErrorMessage error={keepRefusal(keep.error)} /> : null}
      {compare}
      <dl className="facts">
        <dt>Received</dt>
        <dd>
          <span>
            {exactTime(capture.receivedAt)} (<RelativeTime ms={capture.receivedAt} />)
            {utc ? <span className="muted">, {utc}</span> : null}
          </span>
        </dd>
        <dt>Retention</dt>
        <RetentionFact capture={capture} />
        <dt>Size</dt>
        <dd>{capture.size >= 1024 ? `${formatSize(capture.size)} (${capture.size.toLocaleString('en')} bytes)` : formatSize(capture.size)}</dd>
        <dt>From</dt>
        <dd>{capture.ip}</dd>
        {capture.responseStatus !== undefined ? (
          <>
            {/* What the sender got: 200 by default, the mock response's status when one is set. */}
            <dt>Answered</dt>
            <dd>{capture.responseStatus}</dd>
          </>
        ) : null}
        <dt>ID</dt>
        <dd>
          <code>{capture.id}</code>
        </dd>
        {endpointName ? (
          <>
            <dt>Endpoint</dt>
            <dd>{endpointName}</dd>
          </>
        ) : null}
        <dt>Content type</dt>
        <dd>{capture.contentType || <span className="muted">none</span>}</dd>
        <dt>Sender</dt>
        <dd>
          {capture.detectedProvider ? (
            <>
              <ProviderIcon provider={capture.detectedProvider} /> {capture.detectedProvider} <EventBadge event={capture.detectedEvent} />
            </>
          ) : (
            <span className="muted">not recognised</span>
          )}
        </dd>
        {capture.signatureVerified !== undefined ? (
          <>
            <dt>Signature</dt>
            <dd>
              <SignatureBadge capture={capture} />{' '}
              {capture.signatureVerified
                ? 'verified'
                : missingSignatureHeader(capture.signatureError)
                  ? `no ${missingSignatureHeader(capture.signatureError)} header sent, nothing to verify (${capture.signatureError})`
                  : `not verified: ${capture.signatureError ?? 'unknown'}`}
              {capture.signingProvider ? ` (${capture.signingProvider})` : ''}
            </dd>
          </>
        ) : null}
      </dl>
      {query.length > 0 ? (
        <section aria-labelledby="query-title">
          <h3 id="query-title">Query</h3>
          <KeyValueTable label="Query parameters" rows={query} />
        </section>
      ) : null}
      <section aria-labelledby="body-title">
        <h3 id="body-title">Body</h3>
        <DecodedBody capture={capture}>{(shown) => <BodyView capture={shown} />}</DecodedBody>
      </section>
      <section aria-labelledby="headers-title">
        <h3 id="headers-title">Headers</h3>
        <KeyValueTable label="Headers" rows={Object.entries(capture.headers).map(([k, v]) => [k, readableHeaderValue(v)])} />
      </section>
    </article>
  );
}
