/**
 * What must stay readable however narrow the screen or long the text, in real Chromium on both
 * backends: the endpoint's slug in its header at 360 px (the host is cut instead), and a 100-character
 * API key name that neither squeezes the keys table's other columns nor pushes it past the screen,
 * and a phone's search page, whose filters leave the results most of the screen.
 */
import { expect, test } from 'bun:test';
import type { Locator } from 'playwright-core';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call } from '../support/client';
import { fitsNarrowScreen } from '../support/layout';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/**
 * Whether the last `chars` characters of the element's text are drawn whole: inside its content box
 * and clear of the ellipsis that a cut at the start puts there (one character wide).
 */
function tailShown(el: Locator, chars: number): Promise<{ cut: boolean; shown: boolean }> {
  return el.evaluate((code, n) => {
    const doc = code.ownerDocument;
    const text = code.textContent ?? '';
    const node = doc.createTreeWalker(code, 4 /* NodeFilter.SHOW_TEXT */).nextNode();
    const style = doc.defaultView?.getComputedStyle(code);
    if (!node || !style) return { cut: false, shown: false };
    const range = doc.createRange();
    range.setStart(node, text.length - n);
    range.setEnd(node, text.length);
    const tail = range.getBoundingClientRect();
    const box = code.getBoundingClientRect();
    const left = box.left + parseFloat(style.paddingLeft);
    const right = box.right - parseFloat(style.paddingRight);
    const cut = code.scrollWidth > code.clientWidth;
    // A cut draws "…" over the first character box at the left: the tail must begin after it.
    const ellipsis = cut ? tail.width / n : 0;
    return { cut, shown: tail.left >= left + ellipsis - 0.5 && tail.right <= right + 0.5 };
  }, chars);
}

/**
 * The keys table measured in one go: whether it stays within the screen (no sideways scrolling
 * of the page or of its box), and how many lines each cell's text takes (the distinct tops of its
 * text boxes): the key prefixes, the long and the short name, and every other cell's text (each
 * scope on its own, as the Scopes column may put one a line), and the first name's drawn width.
 */
function keysTableLayout(table: Locator) {
  return table.evaluate((t) => {
    const doc = t.ownerDocument;
    const lines = (el: typeof t | null) => {
      if (!el) return 0;
      const tops = new Set<number>();
      const walker = doc.createTreeWalker(el, 4 /* NodeFilter.SHOW_TEXT */);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const range = doc.createRange();
        range.selectNodeContents(node);
        for (const r of range.getClientRects()) if (r.width > 0) tops.add(Math.round(r.top));
      }
      return tops.size;
    };
    const rows = [...t.querySelectorAll('tbody tr')];
    const wrap = t.parentElement;
    return {
      right: Math.round(t.getBoundingClientRect().right) <= doc.documentElement.clientWidth,
      pageScrolls: doc.documentElement.scrollWidth > doc.documentElement.clientWidth,
      wrapScrolls: wrap !== null && wrap.scrollWidth > wrap.clientWidth,
      prefixLines: rows.map((r) => lines(r.querySelector('code'))),
      nameLines: rows.map((r) => lines(r.querySelector('th'))),
      otherCells: Object.fromEntries(
        [...t.querySelectorAll('td:not(.cell-words), thead th, .cell-words > span')]
          .filter((c) => c.getBoundingClientRect().width > 0 && (c.textContent ?? '').trim() !== 'Actions')
          .map((c) => [(c.textContent ?? '').trim(), lines(c)]),
      ),
      nameShown: Math.round(rows[0]?.querySelector('th')?.getBoundingClientRect().width ?? 0),
    };
  });
}

describeBackends(
  'dashboard: what fits',
  (h) => {
    test('at 360 px the endpoint header shows the whole slug (the host is cut), the full URL in the page, its title and Copy URL', async () => {
      const account = await signUpAccount(h.url);
      const plain = await createEndpoint(h.url, account, 'Stripe payments production');
      const expiring = (await call<{ slug: string; url: string }>(h.url, 'POST', '/api/endpoints', { token: account.session, body: { name: 'CI run', expiresIn: 7200 } })).body;
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 360, height: 740 }, permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        for (const ep of [plain, expiring]) {
          await page.goto(`${h.url}/endpoints/${ep.slug}`);
          const url = page.getByTitle(ep.url, { exact: true });
          await url.waitFor();
          await fitsNarrowScreen(page, ['Copy URL', 'More actions', 'Log out'], 360);
          // On screen: cut (the whole URL does not fit 360 px), but never into the slug.
          expect(await tailShown(url, ep.slug.length)).toEqual({ cut: true, shown: true });
          // In the page, to assistive technology and to Copy URL: the whole URL.
          expect(await url.textContent()).toBe(ep.url);
          await page.getByRole('button', { name: 'Copy URL' }).click();
          expect(await page.evaluate('navigator.clipboard.readText()')).toBe(ep.url);
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a 100-character unbroken key name is cut to one line, whole as the row header\'s name and tooltip; the table keeps its columns and fits at 360 and 1280 px', async () => {
      const account = await signUpAccount(h.url);
      const long = 'deploy-pipeline-'.padEnd(100, 'x');
      for (const name of [long, 'ci']) expect((await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name } })).status).toBe(201);
      for (const width of [360, 1280]) {
        const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width, height: 800 } });
        try {
          await page.goto(`${h.url}/account`);
          const table = page.getByRole('table', { name: 'Your API keys' });
          const name = table.getByRole('rowheader', { name: long, exact: true });
          await name.waitFor();
          // Measured in the page: the table within the screen and not scrolling sideways, each
          // other cell on one line (the key's prefix had been broken into four), the long name cut
          // to one line as tall as the short one's.
          const m = await keysTableLayout(table);
          expect(m).toMatchObject({ right: true, pageScrolls: false, wrapScrolls: false, prefixLines: [1, 1], nameLines: [1, 1] });
          expect(Object.entries(m.otherCells).filter(([, n]) => n !== 1)).toEqual([]);
          // Cut, not gone: a good part of the name still shows.
          expect(m.nameShown).toBeGreaterThanOrEqual(width === 360 ? 80 : 300);
          // Whole to assistive technology (the row header's name, above) and on hover.
          expect(await name.getByTitle(long, { exact: true }).count()).toBe(1);
          expect(await table.getByRole('button', { name: `Delete key ${long}` }).count()).toBe(1);
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
      }
    });

    test('on a 390 × 844 phone the search page\'s four filters sit two by two: the first result begins in the top third of the screen', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe production');
      for (let i = 0; i < 3; i++) await fetch(`${ep.url}/hook${i}`, { method: 'POST', body: '{"a":1}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 390, height: 844 } });
      try {
        await page.goto(`${h.url}/search?q=hook`);
        const results = page.getByRole('list', { name: 'Search results' });
        await results.getByRole('link', { name: /^POST \/hook0 / }).waitFor();
        await fitsNarrowScreen(page, ['Log out'], 390);
        // Measured without the unconfirmed address's one-line banner (its own line, checked in dashboard-polish).
        await page.getByRole('complementary', { name: 'Address not confirmed' }).getByRole('button', { name: 'Dismiss' }).click();
        const box = async (l: Locator) => (await l.boundingBox()) ?? { x: -1, y: -1, width: 0, height: 0 };
        const method = await box(page.getByLabel('Method'));
        const range = await box(page.getByLabel('Time range'));
        const endpoint = await box(page.getByLabel('Endpoint', { exact: true }));
        const header = await box(page.getByLabel('Header', { exact: true }));
        // Two by two: Method beside Time range, Endpoint beside Header, the second pair below.
        expect(Math.abs(method.y - range.y)).toBeLessThan(2);
        expect(Math.abs(endpoint.y - header.y)).toBeLessThan(2);
        expect(range.x).toBeGreaterThan(method.x + method.width);
        expect(endpoint.y).toBeGreaterThan(method.y + method.height);
        // One under another they took ~290 px and the first result began at ~370 px.
        const first = await box(results.getByRole('listitem').first());
        expect(first.y).toBeLessThan(844 / 3);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
