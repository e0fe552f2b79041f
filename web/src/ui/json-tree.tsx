/** A JSON value as a tree that opens level by level, with a field picked to copy its path or value. */
import { useMemo, useRef, useState, type KeyboardEvent, type MouseEvent } from 'react';
import { collapseAllNested, defaultStyles } from 'react-json-view-lite';
import { JsonTreeView } from './json-tree-view';
import { pathStep } from '../lib/diff';
import { shownJson, shownText } from '../lib/json-shown';
import { CopyButton } from './copy-button';
import { announce } from './toast';

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

/**
 * Levels the JSON tree opens by itself; deeper ones open on a click, a level at a time. A sender
 * can nest thousands of levels in a few KB (`[[[[…]]]]`), and drawing them all at once overflows
 * the stack (React commits a tree recursively), which left the detail blank.
 */
const JSON_OPEN_LEVELS = 24;
const openNearTop = (level: number) => level < JSON_OPEN_LEVELS;

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
export function JsonTree({ value, big }: { value: object; big: boolean }) {
  const [picked, setPicked] = useState<Picked | null>(null);
  const shown = useMemo(() => shownJson(value), [value]);
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
            <code className="json-path">{shownText(picked.path)}</code>
            <CopyButton className="small" text={picked.path} label="Copy path" done="Copied the path" />
            <CopyButton className="small" text={() => (typeof picked.value === 'string' ? picked.value : JSON.stringify(picked.value, null, 2))} label="Copy value" done="Copied the value" />
          </>
        ) : (
          <span className="muted">Click a field to copy its path or value. Keyboard: ↑/↓ to a field, then Enter.</span>
        )}
      </div>
      <JsonTreeView data={shown} style={JSON_STYLE} shouldExpandNode={big ? collapseAllNested : openNearTop} />
    </div>
  );
}
