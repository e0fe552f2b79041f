/**
 * One captured request: where it went, every header, the body as a person reads it (JSON tree,
 * form table, text) and exactly as it arrived (raw, hex), plus cURL, HAR and the body to take
 * away. Everything captured is shown as text: React escapes it; nothing is parsed as HTML.
 */
import { useVirtualizer } from '@tanstack/react-virtual';
import { useEffect, useMemo, useRef, useState, type KeyboardEvent, type MouseEvent, type ReactNode } from 'react';
import { collapseAllNested, defaultStyles } from 'react-json-view-lite';
import { errorText, type Capture } from '../api/client';
import { bodyBytes, bodyFilename, bodyKind, droppedBodyNotice, formRows, HEX_ROW, hexLine, parseJson, type BodyKind } from '../lib/body';
import { copyText, download } from '../lib/browser';
import { curlCommand } from '../lib/curl';
import { headerText } from '../lib/decode';
import { pathStep } from '../lib/diff';
import { exactTime, formatSize, utcTimeIfLocalDiffers } from '../lib/format';
import { harOf } from '../lib/har';
import { queryRows, readableUrl } from '../lib/url';
import { CopyButton } from '../ui/copy-button';
import { DecodedBody } from '../ui/decoded-body';
import { JsonTreeView } from '../ui/json-tree-view';
import { useDetailKeys } from '../ui/keys';
import { EventBadge, ProviderIcon } from '../ui/provider';
import { MethodBadge, SignatureBadge } from '../ui/request-row';
import { RelativeTime } from '../ui/time';
import { announce } from '../ui/toast';

/** The library's layout classes with our colours (app.css), so the tree follows the theme. */
const JSON_STYLE: typeof defaultStyles = {
  ...defaultStyles,
  container: 'json-view',
  label: 'json-label',
  stringValue: 'json-string',
  numberValue: 'json-number',
  booleanValue: 'json-bool',
  nullValue: 'json-null',
  undefinedValue: 'json-null',
  otherValue: 'json-other',
  punctuation: 'json-punct',
};

function KeyValueTable({ label, rows }: { label: string; rows: [string, string][] }) {
  return (
    <table className="kv" aria-label={label}>
      <thead>
        <tr>
          <th scope="col">Name</th>
          <th scope="col">Value</th>
        </tr>
      </thead>
      <tbody>
        {rows.map(([k, v], i) => (
          <tr key={`${k}\0${i}`}>
            <th scope="row">{k}</th>
            <td>{v}</td>
          </tr>
        ))}
      </tbody>
    </table>
  );
}

const hexLineSize = () => 20;

function HexView({ bytes }: { bytes: Uint8Array }) {
  const scroller = useRef<HTMLDivElement>(null);
  const lines = Math.ceil(bytes.length / HEX_ROW);
  const v = useVirtualizer({ count: lines, getScrollElement: () => scroller.current, estimateSize: hexLineSize, overscan: 20 });
  return (
    <div className="hex-scroller" ref={scroller} role="region" aria-label="Hex view" tabIndex={0} style={{ height: Math.min(lines * 20 + 8, 352) }}>
      <div className="hex" style={{ height: v.getTotalSize() }}>
        {v.getVirtualItems().map((row) => {
          const line = hexLine(bytes, row.index);
          return (
            <div key={row.key} className="hex-line" style={{ transform: `translateY(${row.start}px)` }}>
              <span className="hex-offset">{line.offset}</span>
              <span className="hex-bytes">{line.hex}</span>
              <span className="hex-ascii">{line.ascii}</span>
            </div>
          );
        })}
      </div>
    </div>
  );
}

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
  return rows ? <KeyValueTable label="Form fields" rows={rows} /> : <p className="muted">Reading form…</p>;
}

type Tab = 'pretty' | 'raw' | 'hex' | 'base64';
const TAB_NAMES: Record<Tab, string> = { pretty: 'Pretty', raw: 'Raw', hex: 'Hex', base64: 'Base64' };

function tabsFor(kind: BodyKind): Tab[] {
  switch (kind) {
    case 'json':
    case 'form':
    case 'multipart':
      return ['pretty', 'raw', 'hex'];
    case 'text':
      return ['raw', 'hex'];
    case 'binary':
      return ['hex', 'base64'];
    case 'empty':
      return [];
  }
}

/**
 * Levels the JSON tree opens by itself; deeper ones open on a click, a level at a time. A sender
 * can nest thousands of levels in a few KB (`[[[[…]]]]`), and drawing them all at once overflows
 * the stack (React commits a tree recursively), which left the detail blank.
 */
const JSON_OPEN_LEVELS = 24;
const openNearTop = (level: number) => level < JSON_OPEN_LEVELS;

function Pretty({ capture, kind, bytes }: { capture: Capture; kind: BodyKind; bytes: Uint8Array }) {
  if (kind === 'form') return <KeyValueTable label="Form fields" rows={formRows(capture.body)} />;
  if (kind === 'multipart') return <MultipartTable bytes={bytes} contentType={capture.contentType} />;
  const value = parseJson(capture.body);
  if (value === null || typeof value !== 'object') return <pre className="body-raw">{JSON.stringify(value, null, 2)}</pre>;
  // Big documents open collapsed below the top level, so the tree stays quick to draw.
  return <JsonTree key={capture.id} value={value} big={capture.size > 64 * 1024} />;
}

interface Picked {
  path: string;
  value: unknown;
}

/**
 * Where a tree item is in `root`: its path (`data.object.amount`) and value, found by the item's
 * position among its siblings at each level (the tree draws entries in the value's own order), not
 * by reading labels back.
 */
function pickedAt(item: Element, tree: Element, root: unknown): Picked | null {
  const chain: Element[] = [];
  for (let n: Element | null = item; n && tree.contains(n); n = n.parentElement?.closest('[role=treeitem]') ?? null) chain.unshift(n);
  let value = root;
  let path = '';
  for (const n of chain.slice(1)) {
    const index = n.parentElement ? Array.prototype.indexOf.call(n.parentElement.children, n) : -1;
    if (index < 0 || value === null || typeof value !== 'object') return null;
    if (Array.isArray(value)) {
      path += pathStep(index, path === '');
      value = value[index];
    } else {
      const key = Object.keys(value)[index];
      if (key === undefined) return null;
      path += pathStep(key, path === '');
      value = (value as Record<string, unknown>)[key];
    }
  }
  return { path: path || '(the whole body)', value };
}

/**
 * Where the focus stands for a tree item: its expander (the library's, for objects and arrays) or,
 * for a plain value, the item itself (given a tabindex when the focus comes to it).
 */
function focusPoint(item: Element): HTMLElement | null {
  const expander = item.querySelector(':scope > [role=button]');
  if (expander instanceof HTMLElement) return expander;
  return item instanceof HTMLElement ? item : null;
}

/**
 * The JSON tree; a click on a field picks it, for Copy path and Copy value. From the keyboard,
 * every field is reachable: the library moves only between objects and arrays (their expanders),
 * so ↑/↓/Home/End are ours and go through every item shown, plain values too (one Tab stop, the
 * roving tabindex the library uses); Enter or Space picks, and the path is announced. ←/→ still
 * close and open (the library's).
 */
function JsonTree({ value, big }: { value: object; big: boolean }) {
  const [picked, setPicked] = useState<Picked | null>(null);
  const marked = useRef<Element | null>(null);
  const pick = (item: Element, tree: Element, say: boolean) => {
    const found = pickedAt(item, tree, value);
    if (!found) return;
    marked.current?.removeAttribute('data-picked');
    item.setAttribute('data-picked', '');
    marked.current = item;
    setPicked(found);
    if (say) announce(`Picked ${found.path}`);
  };
  const moveTo = (tree: Element, point: HTMLElement) => {
    for (const other of tree.querySelectorAll<HTMLElement>('[tabindex="0"]')) if (other !== point) other.tabIndex = -1;
    point.tabIndex = 0;
    point.focus();
  };
  const onClick = (e: MouseEvent<HTMLDivElement>) => {
    const tree = e.currentTarget.querySelector('[role=tree]');
    const item = (e.target as Element).closest('[role=treeitem]');
    if (!tree || !item) return;
    pick(item, tree, false);
  };
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const tree = e.currentTarget.querySelector('[role=tree]');
    const item = (e.target as Element).closest('[role=treeitem]');
    if (!tree || !item || !tree.contains(item)) return;
    if (e.key === 'Enter' || e.key === ' ') {
      e.preventDefault();
      e.stopPropagation();
      pick(item, tree, true);
      return;
    }
    const items = [...tree.querySelectorAll('[role=treeitem]')];
    const at = items.indexOf(item);
    const to = { ArrowDown: at + 1, ArrowUp: at - 1, Home: 0, End: items.length - 1 }[e.key];
    if (to === undefined) return;
    // Before the library's own handler (on the expanders), which would skip the plain values.
    e.preventDefault();
    e.stopPropagation();
    const next = items[Math.max(0, Math.min(items.length - 1, to))];
    const point = next ? focusPoint(next) : null;
    if (point) moveTo(tree, point);
  };
  return (
    <div className="json-pick" onClick={onClick} onKeyDownCapture={onKeyDown}>
      <div className="json-picked" role="group" aria-label="Picked field">
        {picked ? (
          <>
            <code className="json-path">{picked.path}</code>
            <CopyButton className="small" text={picked.path} label="Copy path" done="Copied the path" />
            <CopyButton className="small" text={() => (typeof picked.value === 'string' ? picked.value : JSON.stringify(picked.value, null, 2))} label="Copy value" done="Copied the value" />
          </>
        ) : (
          <span className="muted">Click a field to copy its path or value. Keyboard: ↑/↓ to a field, then Enter.</span>
        )}
      </div>
      <JsonTreeView data={value} style={JSON_STYLE} shouldExpandNode={big ? collapseAllNested : openNearTop} />
    </div>
  );
}

function BodyView({ capture }: { capture: Capture }) {
  const kind = bodyKind(capture);
  const tabs = tabsFor(kind);
  const bytes = useMemo(() => bodyBytes(capture), [capture]);
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
    tablist.current?.querySelector<HTMLElement>(`#body-tab-${next}`)?.focus();
  };
  return (
    <div className="body-view">
      <div role="tablist" aria-label="Body view" className="tabs" ref={tablist} onKeyDown={onKeyDown}>
        {tabs.map((t) => (
          <button key={t} type="button" role="tab" id={`body-tab-${t}`} aria-selected={t === tab} aria-controls="body-panel" tabIndex={t === tab ? 0 : -1} onClick={() => setChosen(t)}>
            {TAB_NAMES[t]}
          </button>
        ))}
        {kind === 'binary' ? <span className="muted">binary body (not UTF-8), kept byte for byte</span> : null}
      </div>
      <div role="tabpanel" id="body-panel" aria-labelledby={`body-tab-${tab}`} className="body-panel">
        {tab === 'pretty' ? <Pretty capture={capture} kind={kind} bytes={bytes} /> : null}
        {tab === 'raw' || tab === 'base64' ? <pre className="body-raw">{capture.body}</pre> : null}
        {tab === 'hex' ? <HexView bytes={bytes} /> : null}
      </div>
    </div>
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
  const query = queryRows(capture.queryParams);
  const utc = utcTimeIfLocalDiffers(capture.receivedAt);
  const binary = capture.bodyEncoding === 'base64';
  return (
    <article className="detail" aria-labelledby="detail-title">
      <header className="detail-head">
        <h2 id="detail-title" className="detail-title" tabIndex={-1}>
          <MethodBadge method={capture.method} /> <span className="detail-url" dir="ltr">{url}</span>
        </h2>
        <div className="detail-actions">
          <CopyButton text={curl} label="Copy as cURL" done="Copied as cURL" />
          <CopyButton text={capture.body} label={binary ? 'Copy body (base64)' : 'Copy body'} done="Copied the body" />
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
              <SignatureBadge capture={capture} /> {capture.signatureVerified ? 'verified' : `not verified: ${capture.signatureError ?? 'unknown'}`}
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
        <KeyValueTable label="Headers" rows={Object.entries(capture.headers).map(([k, v]) => [k, headerText(v)])} />
      </section>
    </article>
  );
}
