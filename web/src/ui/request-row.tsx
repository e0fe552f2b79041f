import type { Capture } from '../api/client';
import { formatSize } from '../lib/format';
import { missingSignatureHeader } from '../lib/signature';
import { readableCaptureQuery, readablePath } from '../lib/url';
import { EventBadge, ProviderIcon } from './provider';
import { RelativeTime } from './time';

export function MethodBadge({ method }: { method: string }) {
  return <span className={`method m-${method.toLowerCase()}`}>{method}</span>;
}

/**
 * Verified; unsigned (a header the signature needs was not sent: a hand-made test, not a forgery,
 * so the warning colour rather than the error red); or a signature that failed (forged, mismatched,
 * stale: the reason on hover). Nothing when the endpoint does not check signatures.
 */
export function SignatureBadge({ capture }: { capture: Pick<Capture, 'signatureVerified' | 'signatureError' | 'signingProvider'> }) {
  if (capture.signatureVerified === undefined) return null;
  if (capture.signatureVerified)
    return (
      <span className="badge sig-ok" title={`Signature verified (${capture.signingProvider ?? ''})`}>
        signed ✓
      </span>
    );
  const missing = missingSignatureHeader(capture.signatureError);
  return missing ? (
    <span className="badge sig-none" title={`Unsigned: no ${missing} header was sent, so there was no signature to verify`}>
      unsigned
    </span>
  ) : (
    <span className="badge sig-bad" title={`Signature not verified: ${capture.signatureError ?? 'unknown'}`}>
      bad signature
    </span>
  );
}

/** One row of the list: two fixed-height lines, so rows never change size as data arrives. */
export function RequestRowContent({ capture, endpointName }: { capture: Capture; endpointName?: string }) {
  return (
    <>
      <span className="row-line">
        <MethodBadge method={capture.method} />
        {/* Decoded for reading; dir isolates it, so right-to-left text in it cannot reorder the row. */}
        <span className="row-path" dir="ltr">
          {readablePath(capture.path)}
          <span className="row-query">{readableCaptureQuery(capture)}</span>
        </span>
        <span className="row-tags">
          <ProviderIcon provider={capture.detectedProvider} />
          <EventBadge event={capture.detectedEvent} />
          <SignatureBadge capture={capture} />
          {/* Its text is part of the row's name ("… kept"), so a screen reader hears it too. */}
          {capture.pinned ? (
            <span className="badge kept" title="Kept: retention will not delete this request">
              kept
            </span>
          ) : null}
        </span>
      </span>
      <span className="row-line row-meta">
        <RelativeTime ms={capture.receivedAt} />
        <span>{formatSize(capture.size)}</span>
        <span className="row-ip">{capture.ip}</span>
        {endpointName ? <span className="row-endpoint">{endpointName}</span> : null}
      </span>
    </>
  );
}
