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
