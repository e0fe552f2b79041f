/**
 * Reading a request in full, from the fourth walkthrough, in real Chromium on both backends, by
 * role and accessible name: a request taller than the window scrolls in its own pane, the list's
 * toolbar and filter staying in sight; characters that hide or reorder text (U+202E, a zero-width
 * space) are shown escaped in the JSON tree and the Query and Form fields tables, as in the URL;
 * Copy body is off for a request without one. Then the two gaps it left: bidi controls flagged and
 * marked in the Raw view, and C1 controls and a UTF-8 U+202E escaped in the Headers table.
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { call, eventually } from '../support/client';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint, type TestEndpoint } from '../support/browser';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

/** Whether the element is wholly inside the window, where a person sees it. */
const inWindow = (l: Locator): Promise<boolean> =>
  l.evaluate((el) => {
    const box = el.getBoundingClientRect();
    return box.height > 0 && box.top >= 0 && box.bottom <= el.ownerDocument.documentElement.clientHeight;
  });

describeBackends(
  'dashboard: reading a request',
  (h) => {
    test('a request taller than the window scrolls in its own pane: the list, its toolbar and filter stay in sight', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'tall');
      for (let i = 1; i <= 3; i++) await fetch(`${ep.url}/short${i}`, { method: 'POST', body: String(i) });
      const headers: Record<string, string> = { 'content-type': 'text/plain' };
      for (let i = 1; i <= 80; i++) headers[`x-custom-header-${i}`] = `value number ${i}`;
      await fetch(`${ep.url}/many-headers`, { method: 'PUT', headers, body: 'many headers here' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^PUT \/many-headers / }).click();
        const last = page.getByRole('row', { name: /x-custom-header-80/ });
        await last.waitFor();
        // What the mouse wheel over the detail does: scroll it to its last header.
        await last.scrollIntoViewIfNeeded();
        expect(await inWindow(last)).toBe(true);
        // The detail scrolled, not the page: the page's own parts are where they were. The panes
        // used to grow to the request's full height (here ~2,900 px), so the page scrolled and took
        // the endpoint's title, the list's toolbar, its filter and its rows out of sight.
        expect(await inWindow(page.getByRole('heading', { level: 1, name: 'tall' }))).toBe(true);
        expect(await inWindow(page.getByRole('status', { name: 'Stream status' }))).toBe(true);
        expect(await inWindow(page.getByRole('searchbox', { name: 'Filter requests' }))).toBe(true);
        expect(await inWindow(list.getByRole('link', { name: /^PUT \/many-headers / }))).toBe(true);
        expect(await inWindow(list.getByRole('link', { name: /^POST \/short1 / }))).toBe(true);
        // And the list still scrolls within its pane: j moves on and the open row stays in sight.
        await page.keyboard.press('j');
        await page.getByRole('heading', { name: /\/short3/ }).waitFor();
        expect(await inWindow(page.getByRole('searchbox', { name: 'Filter requests' }))).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a right-to-left override or a zero-width space is shown escaped in the JSON tree and the Query and Form tables', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'hidden');
      // `‮fdp.exe` is drawn "exe.pdf"; `a​b` looks like "ab".
      const json = JSON.stringify({ invoice: '\u202Efdp.exe', ['ke\u202Ey']: 'v', zw: 'a\u200Bb', lines: 'one\ntwo' });
      await fetch(`${ep.url}/tree`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: json });
      await fetch(`${ep.url}/form?file=%E2%80%AEfdp.exe`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'file=%E2%80%AEfdp.exe&zw=a%E2%80%8Bb&note=plain+text' });
      // A JSON body that is one string: Pretty draws it without the tree.
      await fetch(`${ep.url}/scalar`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify('\u202Efdp.exe') });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/tree / }).click();
        const tree = page.getByRole('tree');
        await tree.waitFor();
        const text = (await tree.textContent()) ?? '';
        expect(text).toContain('"\\u202Efdp.exe"');
        expect(text).toContain('ke\\u202Ey');
        expect(text).toContain('"a\\u200Bb"');
        expect(text).not.toMatch(/[\u202E\u200B]/);
        // A line break hides nothing: it stays a line break.
        expect(text).toContain('one\ntwo');
        // Only the drawing: the picked field's path and value are the body's own.
        await tree.getByRole('treeitem', { name: /invoice/ }).click();
        await page.getByRole('button', { name: 'Copy value' }).click();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe('\u202Efdp.exe');
        await tree.getByRole('treeitem', { name: /^ke/ }).click();
        expect(await page.getByRole('group', { name: 'Picked field' }).textContent()).toContain('["ke\\u202Ey"]');
        await page.getByRole('button', { name: 'Copy path' }).click();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe('["ke\u202Ey"]');

        await list.getByRole('link', { name: /^POST \/form/ }).click();
        const query = page.getByRole('table', { name: 'Query parameters' });
        await query.waitFor();
        expect(await query.getByRole('row', { name: 'file %E2%80%AEfdp.exe' }).count()).toBe(1);
        const form = page.getByRole('table', { name: 'Form fields' });
        expect(await form.getByRole('row', { name: 'file %E2%80%AEfdp.exe' }).count()).toBe(1);
        expect(await form.getByRole('row', { name: 'zw a%E2%80%8Bb' }).count()).toBe(1);
        expect(await form.getByRole('row', { name: 'note plain text' }).count()).toBe(1);
        expect(await form.textContent()).not.toMatch(/[\u202E\u200B]/);

        await list.getByRole('link', { name: /^POST \/scalar/ }).click();
        const pretty = page.getByRole('tabpanel', { name: 'Pretty' });
        await pretty.getByText('fdp.exe').waitFor();
        expect(await pretty.textContent()).toBe('"\\u202Efdp.exe"');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a body with bidi controls is flagged above Raw, each drawn as a marker; Copy body still gives the bytes', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'bidi');
      // Drawn as received, `‮fdp.exe` reads "exe.pdf" and the isolate reorders the words after it.
      const body = 'invoice \u202Efdp.exe for \u2067isolated\u2069 and RLM\u200F here\nsecond line';
      await fetch(`${ep.url}/plain`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body });
      await fetch(`${ep.url}/json`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ file: '\u202Efdp.exe' }) });
      await fetch(`${ep.url}/clean`, { method: 'POST', headers: { 'content-type': 'text/plain' }, body: 'nothing hidden here' });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/plain / }).click();
        const note = page.getByRole('note', { name: 'Hidden bidirectional characters' });
        await note.waitFor();
        expect(await note.textContent()).toContain('can make its text read differently from its bytes');
        const raw = page.getByRole('tabpanel', { name: 'Raw' });
        // The warning, then the text.
        expect(await raw.textContent()).toEndWith('invoice ⟨U+202E⟩fdp.exe for ⟨U+2067⟩isolated⟨U+2069⟩ and RLM⟨U+200F⟩ here\nsecond line');
        expect(await raw.textContent()).not.toMatch(/[\u202E\u2067\u2069\u200F]/);
        // Only the drawing: Copy body gives the bytes as received.
        await page.getByRole('button', { name: 'Copy body' }).click();
        await page.getByRole('status').filter({ hasText: 'Copied the body' }).first().waitFor();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(body);

        // A JSON body's Raw tab too.
        await list.getByRole('link', { name: /^POST \/json / }).click();
        await page.getByRole('tree').waitFor();
        await page.getByRole('tab', { name: 'Raw' }).click();
        expect(await page.getByRole('tabpanel', { name: 'Raw' }).textContent()).toEndWith('{"file":"⟨U+202E⟩fdp.exe"}');
        expect(await note.count()).toBe(1);

        // A body without them is drawn as it is, with no warning.
        await list.getByRole('link', { name: /^POST \/clean / }).click();
        await page.getByRole('tabpanel', { name: 'Raw' }).filter({ hasText: 'nothing hidden here' }).waitFor();
        expect(await note.count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('header values with C1 controls or a UTF-8 right-to-left override are shown escaped as their bytes; Copy as cURL sends them as received', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'header-hidden');
      // Header values go out one byte per character: the UTF-8 bytes of U+202E, and a lone 0x85
      // (NEL, a C1 control in the Latin-1 reading; not UTF-8).
      const sent = { 'x-file': '\u00E2\u0080\u00AEfdp.exe', 'x-c1': 'a\u0085b\u0096c', 'x-plain': 'caf\u00C3\u00A9' };
      const answer = await fetch(`${ep.url}/hdr`, { method: 'POST', headers: sent, body: 'x' });
      const { id } = (await answer.json()) as { id: string };
      const stored = await eventually(async () => {
        const r = await call(h.url, 'GET', `/api/requests/${id}`, { token: account.session });
        return r.status === 200 ? (r.body as unknown as { headers: Record<string, string> }) : undefined;
      }, 10_000);
      expect(stored.headers['x-file']).toBe(sent['x-file']);
      expect(stored.headers['x-c1']).toBe(sent['x-c1']);
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/hdr / }).click();
        const table = page.getByRole('table', { name: 'Headers' });
        await table.waitFor();
        expect(await table.getByRole('row', { name: 'x-file %E2%80%AEfdp.exe' }).count()).toBe(1);
        expect(await table.getByRole('row', { name: 'x-c1 a%85b%96c' }).count()).toBe(1);
        expect(await table.getByRole('row', { name: 'x-plain café' }).count()).toBe(1);
        expect(await table.textContent()).not.toMatch(/[\u0080-\u009F\u202E]/);
        // Only the drawing: the replay carries the bytes that arrived.
        await page.getByRole('button', { name: 'Copy as cURL' }).click();
        await page.getByRole('status').filter({ hasText: 'Copied as cURL' }).first().waitFor();
        const curl = String(await page.evaluate('navigator.clipboard.readText()'));
        expect(curl).toContain('x-file: \\342\\200\\256fdp.exe');
        expect(curl).toContain('x-c1: a\\205b\\226c');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('comparing two requests shows a right-to-left override in the body differences escaped, as the tree does', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'compared');
      await fetch(`${ep.url}/first`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invoice: '\u202Efdp.exe', n: 1 }) });
      await fetch(`${ep.url}/second`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ invoice: 'plain.pdf', n: 1 }) });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/second / }).click();
        await page.getByRole('link', { name: 'Compare with previous' }).click();
        const body = page.getByRole('table', { name: 'Body differences' });
        await body.waitFor();
        const row = body.getByRole('row', { name: /^invoice / });
        expect(await row.textContent()).toContain('"\\u202Efdp.exe"');
        expect(await body.textContent()).not.toContain('\u202E');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a request without a body cannot be copied as one: Copy body is off, as Download body is', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'bodiless');
      await fetch(`${ep.url}/things/1`, { method: 'DELETE' });
      await fetch(`${ep.url}/with-body`, { method: 'POST', body: 'x' });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^DELETE \/things\/1 / }).click();
        await page.getByText('No body.').waitFor();
        await page.evaluate('navigator.clipboard.writeText("what the user had copied")');
        // It used to copy nothing over the clipboard and say "Copied the body".
        expect(await page.getByRole('button', { name: 'Copy body' }).isDisabled()).toBe(true);
        expect(await page.getByRole('button', { name: 'Download body' }).isDisabled()).toBe(true);
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe('what the user had copied');
        await list.getByRole('link', { name: /^POST \/with-body / }).click();
        await page.getByRole('heading', { name: /\/with-body$/ }).waitFor();
        await page.getByRole('button', { name: 'Copy body' }).click();
        await page.getByRole('status').filter({ hasText: 'Copied the body' }).first().waitFor();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe('x');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
