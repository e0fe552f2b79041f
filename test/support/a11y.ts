/**
 * What the page tells assistive technology, for browser tests: a form field's invalid state and
 * description (its error and hint, by aria-describedby), which is also what proves an error is
 * shown next to that field; and the controls Chromium finds no accessible name for.
 */
import type { Locator, Page } from 'playwright-core';

export async function fieldState(field: Locator): Promise<{ invalid: boolean; description: string }> {
  return field.evaluate((el) => {
    const ids = (el.getAttribute('aria-describedby') ?? '').split(/\s+/).filter(Boolean);
    const description = ids.map((id: string) => el.ownerDocument.getElementById(id)?.textContent ?? '').join(' ');
    return { invalid: el.getAttribute('aria-invalid') === 'true', description };
  });
}

/** Controls without an accessible name, from Chromium's own accessibility tree. */
export async function unnamedControls(page: Page): Promise<string[]> {
  const tree = await page.locator('body').ariaSnapshot();
  return tree.split('\n').filter((line) => /^\s*- (button|link|textbox|searchbox|combobox|tab|checkbox|radio|listbox|spinbutton|meter)\b(?! ")/.test(line));
}

/**
 * The text of every status region Chromium's accessibility tree exposes, so what a screen reader
 * is told, not only what the DOM holds: a region behind a modal dialog is inert, and Chromium
 * ignores it (and whatever it says) while Playwright's role queries still find it.
 */
export async function statusesHeard(page: Page): Promise<string[]> {
  const cdp = await page.context().newCDPSession(page);
  try {
    const { nodes } = await cdp.send('Accessibility.getFullAXTree');
    type AXNode = (typeof nodes)[number];
    const byId = new Map(nodes.map((n) => [n.nodeId, n]));
    const text = (n: AXNode | undefined): string => {
      if (!n || n.ignored) return '';
      if (n.role?.value === 'StaticText') return String(n.name?.value ?? '');
      return (n.childIds ?? []).map((id) => text(byId.get(id))).join('');
    };
    return nodes.filter((n) => !n.ignored && n.role?.value === 'status').map(text);
  } finally {
    await cdp.detach();
  }
}
