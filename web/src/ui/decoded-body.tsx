/**
 * A body sent with `Content-Encoding` (gzip, deflate; br where the browser can), decompressed in
 * the browser and handed to the body views as if it had been sent plain, with a line above them
 * saying which bytes are shown and a button for the other: the decoded body, or the bytes stored
 * (exactly as received, what Copy body and Download body give). Bodies without a content coding
 * pass through untouched.
 */
import { useEffect, useMemo, useState, type ReactNode } from 'react';
import type { Capture } from '../api/client';
import { bodyBytes, bodyExtension } from '../lib/body';
import { download } from '../lib/browser';
import { contentCodings, decodeBody, decodedCapture, type Decoded } from '../lib/decode';
import { formatSize } from '../lib/format';

export function DecodedBody({ capture, children }: { capture: Capture; children: (shown: Capture) => ReactNode }) {
  const codings = useMemo(() => (capture.body === '' ? [] : contentCodings(capture.headers)), [capture.body, capture.headers]);
  const [result, setResult] = useState<{ id: string; decoded: Decoded; capture: Capture | null } | null>(null);
  // Like the body tab, the choice stays while moving from request to request.
  const [stored, setStored] = useState(false);
  useEffect(() => {
    if (codings.length === 0) return;
    let live = true;
    void decodeBody(bodyBytes(capture), codings).then((decoded) => {
      if (live) setResult({ id: capture.id, decoded, capture: decoded.ok ? decodedCapture(capture, decoded.bytes) : null });
    });
    return () => {
      live = false;
    };
  }, [capture, codings]);
  if (codings.length === 0) return children(capture);
  const named = codings.join(', ');
  const mine = result?.id === capture.id ? result : null;
  if (!mine) {
    return (
      <>
        <p className="decoded-bar muted">Decoding {named}…</p>
        {children(capture)}
      </>
    );
  }
  if (!mine.decoded.ok || !mine.capture) {
    const message = mine.decoded.ok ? '' : mine.decoded.message;
    return (
      <>
        <p className="notice" role="note" aria-label="Content encoding">
          {message} Shown: the stored bytes ({named}-encoded, {formatSize(capture.size)}, as received).
        </p>
        {children(capture)}
      </>
    );
  }
  const plain = mine.capture;
  return (
    <>
      <div className="decoded-bar" role="group" aria-label="Content encoding">
        <span>
          {stored ? (
            <>
              <strong>Stored bytes ({named})</strong>: {formatSize(capture.size)}, compressed, exactly as received.
            </>
          ) : (
            <>
              <strong>Decoded ({named})</strong>: {formatSize(plain.size)} from {formatSize(capture.size)} stored. Copy body and Download body give the stored bytes.
            </>
          )}
        </span>
        <button type="button" className="small" onClick={() => setStored(!stored)}>
          {stored ? 'Show decoded' : 'Show stored bytes'}
        </button>
        <button type="button" className="small" onClick={() => download(`${capture.id}.decoded.${bodyExtension(plain)}`, bodyBytes(plain).slice(), capture.contentType || 'application/octet-stream')}>
          Download decoded
        </button>
      </div>
      {children(stored ? capture : plain)}
    </>
  );
}
