/** An endpoint with no capture yet: the hint with a curl command, the empty detail pane, and the first arrival. */
import { useLayoutEffect, useRef } from 'react';
import type { Capture } from '../api/client';
import { shellQuote } from '../lib/curl';
import { readablePath } from '../lib/url';
import { CopyButton } from '../ui/copy-button';
import { focusRowWhenDrawn } from '../ui/request-list';
import { announce } from '../ui/toast';

export function FirstRequestHint({ url }: { url: string }) {
  const line = `curl -X POST ${shellQuote(url)} -H 'content-type: application/json' -d '{"hello":"world"}'`;
  return (
    <div className="first-request">
      <h2>Waiting for the first request</h2>
      <p>Send any HTTP request to this endpoint's URL and it shows up here at once. From a terminal:</p>
      <pre className="curl-line">
        <code>{line}</code>
      </pre>
      <CopyButton text={line} label="Copy command" done="Copied the curl command" />
    </div>
  );
}

/**
 * The open-request pane (wide screens) before the first capture: nothing to select yet, so what
 * will show here, and for the owner a way to send one without a terminal.
 */
export function WaitingDetail({ own }: { own: boolean }) {
  return (
    <div className="muted panel-pad select-hint">
      <p>Each request opens here in full: its headers, query, body, and a cURL command that replays it.</p>
      {own ? (
        <p>
          No terminal at hand? <strong>Send test</strong> in this endpoint's <strong>Settings</strong> sends one from the dashboard.
        </p>
      ) : null}
    </div>
  );
}

/**
 * The first request arrives and the waiting hint gives way to the list: said in the polite status
 * region (a screen reader hears nothing else), and when the focus was in the hint (its Copy
 * command button) and fell to the page with it, it goes to the new request's row, so Enter opens
 * it. The row is drawn a frame or two after the list (it is virtualised).
 */
export function FirstArrival({ waiting, first }: { waiting: boolean; first: Capture | undefined }) {
  const was = useRef(waiting);
  useLayoutEffect(() => {
    const before = was.current;
    was.current = waiting;
    if (!before || waiting || !first) return;
    announce(`First request received: ${first.method} ${readablePath(first.path)}`);
    const dropped = () => document.activeElement === null || document.activeElement === document.body;
    if (dropped()) focusRowWhenDrawn(document, first.id, dropped);
  });
  return null;
}
