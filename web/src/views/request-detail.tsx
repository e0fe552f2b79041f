/**
 * One captured request: where it went, every header, the body as a person reads it (JSON tree,
 * form table, text) and exactly as it arrived (raw, hex), plus cURL, HAR and the body to take
 * away, and Replay (views/replay.tsx). Everything captured is shown as text: React escapes it; nothing is parsed as HTML.
 */
import { type ReactNode } from 'react';
import { errorText, type Capture } from '../api/client';
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

export function RequestDetail({ capture, endpointUrl, endpointName, actions, compare }: { capture: Capture; endpointUrl: string; endpointName?: string; actions?: ReactNode; compare?: ReactNode }) {
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
          <CopyButton text={curl} label="Copy as cURL" done="Copied as cURL" />
          {/* Off with no body, as Download body is: it wiped the clipboard and said "Copied the body".
              A body that is not UTF-8 is copied as base64: said in its name and on hover, not in its
              visible label, which had pushed the compare actions to a second row at 1280 px. */}
          <CopyButton
            text={capture.body}
            label="Copy body"
            ariaLabel={binary ? 'Copy body (base64)' : undefined}
            title={binary ? 'Copies the body as base64 text: its bytes are not UTF-8' : undefined}
            done="Copied the body"
            disabled={capture.body === ''}
          />
          {/* Sends it again from the server (views/replay.tsx); keyed, so another request starts a fresh form. */}
          <ReplayAction key={capture.id} capture={capture} />
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
      {compare}
      <dl className="facts">
        <dt>Received</dt>
        <dd>
          <span>
            {exactTime(capture.receivedAt)} (<RelativeTime ms={capture.receivedAt} />)
            {utc ? <span className="muted">, {utc}</span> : null}
          </span>
        </dd>
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
