/** A captured body in tabs: Pretty (JSON tree, form fields), Raw, Hex, Base64, as its kind allows. */
import { useEffect, useMemo, useRef, useState, type KeyboardEvent } from 'react';
import { errorText, type Capture } from '../api/client';
import { hasBidiControls, rawParts } from '../lib/bidi';
import { shownText } from '../lib/json-shown';
import { bodyBytes, bodyKind, declaredText, droppedBodyNotice, formRows, parseJson, type BodyKind } from '../lib/body';
import { formatSize } from '../lib/format';
import { HexView } from '../ui/hex-view';
import { JsonTree } from '../ui/json-tree';
import { KeyValueTable } from '../ui/key-value-table';
import { readableRows } from '../lib/url';

/** multipart/form-data, parsed by the browser itself. */
function MultipartTable({ bytes, contentType }: { bytes: Uint8Array; contentType: string }) {
  const [rows, setRows] = useState<[string, string][] | null>(null);
  const [error, setError] = useState<string | null>(null);
  useEffect(() => {
    let live = true;
    new Response(bytes.slice(), { headers: { 'content-type': contentType } })
      .formData()
      .then((form) => {
        const out: [string, string][] = [];
        form.forEach((value, name) => out.push([name, typeof value === 'string' ? value : `file ${value.name} (${value.type || 'no type'}, ${formatSize(value.size)})`]));
        if (live) setRows(out);
      })
      .catch((e: unknown) => live && setError(`Not readable as multipart form data: ${errorText(e)}`));
    return () => {
      live = false;
    };
  }, [bytes, contentType]);
  if (error) return <p className="muted">{error}</p>;
  return rows ? <KeyValueTable label="Form fields" rows={readableRows(rows)} /> : <p className="muted">Reading form…</p>;
}

type Tab = 'pretty' | 'raw' | 'hex' | 'base64';
const TAB_NAMES: Record<Tab, string> = { pretty: 'Pretty', raw: 'Raw', hex: 'Hex', base64: 'Base64' };

/** `text`: whether the body has text to show as Raw (UTF-8, or decoded from a declared charset). */
function tabsFor(kind: BodyKind, text: boolean): Tab[] {
  switch (kind) {
    case 'json':
    case 'form':
      return ['pretty', 'raw', 'hex'];
    case 'multipart':
      return text ? ['pretty', 'raw', 'hex'] : ['pretty', 'hex', 'base64'];
    case 'text':
      return ['raw', 'hex'];
    case 'binary':
      return text ? ['raw', 'hex', 'base64'] : ['hex', 'base64'];
    case 'empty':
      return [];
  }
}

function Pretty({ capture, kind, bytes }: { capture: Capture; kind: BodyKind; bytes: Uint8Array }) {
  if (kind === 'form') return <KeyValueTable label="Form fields" rows={readableRows(formRows(capture.body))} />;
  if (kind === 'multipart') return <MultipartTable bytes={bytes} contentType={capture.contentType} />;
  const value = parseJson(capture.body);
  // A body that is one JSON string: its hidden characters escaped, as the tree shows them.
  if (value === null || typeof value !== 'object') return <pre className="body-raw">{shownText(JSON.stringify(value, null, 2))}</pre>;
  // Big documents open collapsed below the top level, so the tree stays quick to draw.
  return <JsonTree key={capture.id} value={value} big={capture.size > 64 * 1024} />;
}

/** The body as text; its bidi controls, which would reorder it, flagged above and drawn as markers (lib/bidi.ts). */
function RawText({ text }: { text: string }) {
  const parts = useMemo(() => (hasBidiControls(text) ? rawParts(text) : null), [text]);
  if (!parts) return <pre className="body-raw">{text}</pre>;
  return (
    <>
      <p className="notice" role="note" aria-label="Hidden bidirectional characters">
        This body contains hidden bidirectional Unicode characters, which can make its text read differently from its bytes. Raw shows each one as a marker (⟨U+202E⟩), Hex shows them as they are, and Copy body and Download body give the bytes as received.
      </p>
      <pre className="body-raw">
        {parts.map((p, i) =>
          typeof p === 'string' ? (
            p
          ) : (
            <mark key={i} className="bidi-char">
              {p.marker}
            </mark>
          ),
        )}
      </pre>
    </>
  );
}

/** `idPrefix` names the tabs' ids, so two bodies on one page (a replay's answer over the capture's) keep theirs apart. */
export function BodyView({ capture, idPrefix = 'body' }: { capture: Capture; idPrefix?: string }) {
  const kind = bodyKind(capture);
  const bytes = useMemo(() => bodyBytes(capture), [capture]);
  const declared = useMemo(() => (kind === 'binary' ? declaredText(capture, bytes) : null), [kind, capture, bytes]);
  const text = capture.bodyEncoding === 'utf8' ? capture.body : (declared?.text ?? null);
  const tabs = tabsFor(kind, text !== null);
  const [chosen, setChosen] = useState<Tab | null>(null);
  const tablist = useRef<HTMLDivElement>(null);
  const tab = chosen && tabs.includes(chosen) ? chosen : tabs[0];
  if (!tab) {
    const dropped = droppedBodyNotice(capture);
    return dropped ? <p className="notice">{dropped}</p> : <p className="muted">No body.</p>;
  }
  // The tabs pattern: one stop in the Tab order (the chosen view); arrows, Home and End choose another.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const at = tabs.indexOf(tab);
    const to = { ArrowRight: at + 1, ArrowLeft: at - 1, Home: 0, End: tabs.length - 1 }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    const next = tabs[(to + tabs.length) % tabs.length] ?? tab;
    setChosen(next);
    tablist.current?.querySelector<HTMLElement>(`#${idPrefix}-tab-${next}`)?.focus();
  };
  return (
    <div className="body-view">
      <div role="tablist" aria-label="Body view" className="tabs" ref={tablist} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" id={`${idPrefix}-tab-${t}`} aria-selected={t === tab} aria-controls={`${idPrefix}-panel`} tabIndex={t === tab ? 0 : -1} onClick={() => setChosen(t)}>
            {TAB_NAMES[t]}
          </button>
        ))}
        {capture.bodyEncoding === 'base64' ? (
          <span className="muted">{declared ? `${declared.charset} text (as its Content-Type declares), kept byte for byte` : 'binary body (not UTF-8), kept byte for byte'}</span>
        ) : null}
      </div>
      <div role="tabpanel" id={`${idPrefix}-panel`} aria-labelledby={`${idPrefix}-tab-${tab}`} className="body-panel">
        {tab === 'pretty' ? <Pretty capture={capture} kind={kind} bytes={bytes} /> : null}
        {tab === 'raw' && text !== null ? <RawText text={text} /> : null}
        {tab === 'base64' ? <pre className="body-raw">{capture.body}</pre> : null}
        {tab === 'hex' ? <HexView bytes={bytes} /> : null}
      </div>
    </div>
  );
}
