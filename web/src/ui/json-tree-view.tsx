/**
 * react-json-view-lite's JsonView, with each object/array toggle named after its field: "Expand
 * data.object", "Collapse items[2]", not the library's one "expand JSON" for every toggle, which a
 * screen reader cannot tell apart. The library takes only two fixed labels (style.ariaLables), so
 * the names are written onto its toggles after each render, from the value and each item's place
 * among its siblings (the tree draws entries in the value's own order), like the picked path.
 */
import { useLayoutEffect, useRef } from 'react';
import { JsonView, type Props } from 'react-json-view-lite';
import { pathStep } from '../lib/diff';

/** The name given to the top level's toggle ("Collapse the whole body"). */
const ROOT_NAME = 'the whole body';

/** Writes "Expand <path>" / "Collapse <path>" on every toggle shown, where it differs. */
function nameToggles(box: HTMLElement, data: unknown): void {
  const root = box.querySelector('[role=tree] > [role=treeitem]');
  if (!root) return;
  const stack: [Element, unknown, string][] = [[root, data, '']];
  for (let next = stack.pop(); next; next = stack.pop()) {
    const [item, value, path] = next;
    if (value === null || typeof value !== 'object') continue;
    const toggle = item.querySelector(':scope > [role=button]');
    if (toggle) {
      const name = `${toggle.getAttribute('aria-expanded') === 'true' ? 'Collapse' : 'Expand'} ${path || ROOT_NAME}`;
      if (toggle.getAttribute('aria-label') !== name) toggle.setAttribute('aria-label', name);
    }
    const children = item.querySelectorAll(':scope > [role=group] > [role=treeitem]');
    const keys = Array.isArray(value) ? null : Object.keys(value);
    children.forEach((child, index) => {
      const key = keys ? keys[index] : index;
      if (key === undefined) return;
      stack.push([child, (value as Record<string, unknown>)[key], path + pathStep(key, path === '')]);
    });
  }
}

/** JsonView, same props; its toggles named by path. */
export function JsonTreeView(props: Props) {
  const box = useRef<HTMLDivElement>(null);
  const { data } = props;
  useLayoutEffect(() => {
    const el = box.current;
    if (!el) return;
    nameToggles(el, data);
    // The library redraws a toggle's label on every open and close, and draws new ones as levels open.
    const watch = new MutationObserver(() => nameToggles(el, data));
    watch.observe(el, { subtree: true, childList: true, attributes: true, attributeFilter: ['aria-label', 'aria-expanded'] });
    return () => watch.disconnect();
  }, [data]);
  return (
    <div ref={box}>
      <JsonView {...props} />
    </div>
  );
}
