/**
 * Layout checks for browser tests: a page that fits a narrow screen, measured in the page itself.
 */
import { expect } from 'bun:test';
import type { Page } from 'playwright-core';

/**
 * Nothing on the page is wider than a narrow screen (`width`, 360 px) or scrolls sideways, and
 * every button named in `names` is on it. A text cut with an ellipsis (`text-overflow`, such as the
 * endpoint header's URL on a phone) is cut on purpose: neither a box to scroll nor, for what it
 * holds, something sticking out. Measured in the page in one go (one layout, one task): separate round trips
 * for the widths and for each button's box could each see a different render while queries are
 * still settling, and a button React replaced between finding it and measuring it has no box.
 * On failure the report names what sticks out.
 */
export async function fitsNarrowScreen(page: Page, names: string[], width = 360): Promise<void> {
  // Wait until every button to be measured is on the page before measuring.
  for (const name of names) await page.getByRole('button', { name, exact: true }).first().waitFor();
  const report = await page.evaluate(`(() => {
    const width = document.documentElement.clientWidth;
    const label = (el) => el.tagName.toLowerCase() + (typeof el.className === 'string' && el.className ? '.' + el.className.trim().split(/\\s+/).join('.') : '') + ' "' + (el.textContent || '').trim().slice(0, 40) + '"';
    const visible = (el) => { const r = el.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
    const sticking = [];
    const scrolling = [];
    const isCut = (el) => { const s = getComputedStyle(el); return (s.overflowX === 'hidden' || s.overflowX === 'clip') && s.textOverflow === 'ellipsis'; };
    const inCut = (el) => { for (let p = el.parentElement; p; p = p.parentElement) if (isCut(p)) return true; return false; };
    for (const el of document.body.querySelectorAll('*')) {
      if (el.closest('.offscreen') || !visible(el) || inCut(el)) continue;
      const r = el.getBoundingClientRect();
      if (r.left < -0.5 || r.right > width + 0.5) sticking.push(label(el) + ' spans ' + Math.round(r.left) + '..' + Math.round(r.right));
      const ox = getComputedStyle(el).overflowX;
      if (ox !== 'visible' && !isCut(el) && !/^(INPUT|TEXTAREA|SELECT)$/.test(el.tagName) && el.scrollWidth > el.clientWidth) scrolling.push(label(el) + ' scrolls ' + (el.scrollWidth - el.clientWidth) + ' px sideways');
    }
    const buttons = {};
    for (const name of ${JSON.stringify(names)}) {
      const found = [...document.querySelectorAll('button')].filter((b) => visible(b) && (b.getAttribute('aria-label') || b.textContent || '').trim() === name);
      buttons[name] = found.length === 0 ? 'missing' : found.every((b) => { const r = b.getBoundingClientRect(); return r.left >= 0 && r.right <= width; }) ? 'on screen' : 'off screen';
    }
    return { width, pageScrollWidth: document.documentElement.scrollWidth, sticking: sticking.slice(0, 8), scrolling, buttons };
  })()`);
  expect(report).toEqual({ width, pageScrollWidth: width, sticking: [], scrolling: [], buttons: Object.fromEntries(names.map((n) => [n, 'on screen'])) });
}
