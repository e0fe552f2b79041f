/**
 * What a developer runs into watching webhooks in the dashboard day to day, in real Chromium on
 * both backends, by role and accessible name: a stranger's deeply nested JSON body still opens as a
 * tree; at 360 px the focus follows the request that opens and returns to its row; a short window
 * keeps room for the list's rows; Compare's links used from the keyboard keep the focus; a session
 * ended elsewhere takes the page watching an endpoint back to sign-in, and signing in brings it back.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { chromium as playwright } from 'playwright-core';
import { isFocused, openPage, signUpAccount, useChromium, CHROMIUM, CHROMIUM_ARGS, CHROMIUM_SKIP, createEndpoint, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}


describeBackends(
  'dashboard: everyday use',
  (h) => {
    test('a JSON body nested 2,000 deep (4 KB from any sender) opens as a tree, not a blank pane', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'deep');
      const depth = 2000;
      const deep = `${'['.repeat(depth)}${']'.repeat(depth)}`;
      await fetch(`${ep.url}/deep`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: deep });
      await fetch(`${ep.url}/shallow`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":{"b":{"c":[1,2,3]}}}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/deep / }).click();
        const detail = page.getByRole('article', { name: /\/deep$/ });
        await detail.waitFor();
        const tree = detail.getByRole('tree', { name: 'JSON view' });
        await tree.waitFor();
        // The levels near the top are open; deeper ones open on a click, one at a time.
        const expand = tree.getByRole('button', { name: /^Expand / });
        expect(await expand.count()).toBe(1);
        const open = await tree.getByRole('button', { name: /^Collapse / }).count();
        expect(open).toBeGreaterThan(10);
        expect(open).toBeLessThan(100);
        await expand.click();
        await tree.getByRole('button', { name: /^Collapse / }).nth(open).waitFor();
        // The other views of the same body still work, and so does the next request.
        await detail.getByRole('tab', { name: 'Raw' }).click();
        expect(await detail.getByRole('tabpanel', { name: 'Raw' }).textContent()).toBe(deep);
        await list.getByRole('link', { name: /^POST \/shallow / }).click();
        const shallow = page.getByRole('article', { name: /\/shallow$/ });
        // The view chosen (Raw) stays chosen from one request to the next.
        await shallow.getByRole('tab', { name: 'Pretty' }).click();
        await shallow.getByRole('tree', { name: 'JSON view' }).waitFor();
        // A document of ordinary depth opens in full.
        expect(await shallow.getByRole('button', { name: /^Expand / }).count()).toBe(0);
        expect(await shallow.getByRole('treeitem', { name: '3' }).count()).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('at 360 px the focus moves to the request opened from the keyboard, and back to its row', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'narrow');
      for (let i = 1; i <= 40; i++) await fetch(`${ep.url}/n${i}`, { method: 'POST', body: String(i) });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 360, height: 740 } });
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        const row = list.getByRole('link', { name: /^POST \/n33 / });
        await row.focus();
        await page.keyboard.press('Enter');
        const heading = page.getByRole('heading', { name: /\/w\/[a-z2-9]{12}\/n33$/ });
        await heading.waitFor();
        expect(await list.isVisible()).toBe(false);
        // Not dropped to the page: on the heading of what just opened, and Tab goes on from there.
        expect(await isFocused(heading)).toBe(true);
        await page.keyboard.press('Tab');
        expect(await isFocused(page.getByRole('button', { name: 'Copy as cURL' }))).toBe(true);
        // Back by keyboard: the focus is on the row that was open, in view, not at the top of the page.
        await page.keyboard.press('Shift+Tab');
        expect(await isFocused(page.getByRole('link', { name: '← All requests' }))).toBe(true);
        await page.keyboard.press('Enter');
        await list.waitFor();
        // The list draws its rows again a frame or two after it is shown (it is virtualised).
        expect(await eventually(() => isFocused(row), 2_000)).toBe(true);
        expect(await row.isVisible()).toBe(true);
        // The browser's Back button does the same.
        await page.keyboard.press('Enter');
        await heading.waitFor();
        expect(await isFocused(heading)).toBe(true);
        await page.goBack();
        await list.waitFor();
        // The list draws its rows again a frame or two after it is shown (it is virtualised).
        expect(await eventually(() => isFocused(row), 2_000)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('in a short window (a phone on its side) the list keeps room for its rows; the page scrolls to them', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe production payments with a rather long endpoint name');
      for (let i = 1; i <= 10; i++) await fetch(`${ep.url}/s${i}`, { method: 'POST', body: String(i) });
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 844, height: 390 } });
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        await list.getByRole('link', { name: /^POST \/s1 / }).waitFor();
        // What a person scrolling to the list sees: rows that are on screen and not clipped by the pane.
        await list.getByRole('link').first().evaluate((el) => el.scrollIntoView({ block: 'start' }));
        const shown = await list.getByRole('link').evaluateAll((links) =>
          links.filter((link) => {
            const box = link.getBoundingClientRect();
            const hit = link.ownerDocument.elementFromPoint(box.left + box.width / 2, box.top + box.height / 2);
            return hit !== null && link.contains(hit);
          }).length,
        );
        // Squeezed under the endpoint's header the list showed none.
        expect(shown).toBeGreaterThanOrEqual(3);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a session ended elsewhere takes the page watching an endpoint to sign-in, and back after signing in', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'watched');
      await fetch(`${ep.url}/before`, { method: 'POST', body: 'x' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/before / }).waitFor();
        // Logged out on another device: the session is gone.
        expect((await call(h.url, 'POST', '/api/auth/logout', { token: account.session, body: {} })).status).toBeLessThan(300);
        // Without touching the page, it says so the way every other view does: the sign-in screen.
        await page.getByRole('heading', { name: 'Sign in' }).waitFor({ timeout: 10_000 });
        expect(await page.getByRole('button', { name: 'Log out' }).count()).toBe(0);
        await page.getByLabel('Email').fill(account.email);
        await page.getByLabel('Password').fill('correct horse battery');
        await page.getByRole('button', { name: 'Sign in' }).click();
        // Back on the endpoint it was watching, live again, the focus on its title.
        await page.getByRole('heading', { name: 'watched' }).waitFor();
        await eventually(() => isFocused(page.getByRole('heading', { name: 'watched', level: 1 })));
        await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
        await fetch(`${ep.url}/after`, { method: 'POST', body: 'y' });
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/after / }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    test('on a plain-http address (a LAN name) Copy buttons and key c keep the focus where it was', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'on the lan');
      await fetch(`${ep.url}/lan?x=1`, { method: 'POST', body: 'hello' });
      // A name that is not loopback: no secure context, so the page copies the old way (execCommand).
      const browser = await playwright.launch({ executablePath: CHROMIUM, args: [...CHROMIUM_ARGS, '--host-resolver-rules=MAP hookcap-lan.test 127.0.0.1'] });
      try {
        const base = `http://hookcap-lan.test:${h.server.port}`;
        const { page, errors } = await openPage(browser, base, account);
        await openEndpoint(page, base, ep);
        expect(await page.evaluate('isSecureContext')).toBe(false);
        const toast = page.getByRole('status').filter({ hasText: /^Copied/ });
        const copyUrl = page.getByRole('button', { name: 'Copy URL' });
        await copyUrl.focus();
        await page.keyboard.press('Enter');
        await toast.filter({ hasText: 'Copied the receiver URL' }).waitFor();
        expect(await isFocused(copyUrl)).toBe(true);
        // What was copied is the URL: paste it into the search box.
        await page.keyboard.press('/');
        await page.keyboard.press('Control+V');
        expect(await page.getByRole('searchbox', { name: 'Search' }).inputValue()).toBe(ep.url);
        // Key c on the open request's row: the row keeps the focus, so j/k and Tab go on from it.
        const row = page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/lan\?x=1 / });
        await row.click();
        await page.getByRole('article', { name: /\/lan\?x=1$/ }).waitFor();
        await row.focus();
        await page.keyboard.press('c');
        await toast.filter({ hasText: 'Copied as cURL' }).waitFor();
        expect(await isFocused(row)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await browser.close();
      }
    });
    test('the body views are tabs a keyboard can use: one Tab stop, arrows, Home and End choose', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'tabs');
      await fetch(`${ep.url}/tabs`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/tabs / }).click();
        const detail = page.getByRole('article', { name: /\/tabs$/ });
        const tabs = detail.getByRole('tablist', { name: 'Body view' });
        const tab = (name: string) => tabs.getByRole('tab', { name });
        const selected = async () => (await tabs.getByRole('tab', { selected: true }).textContent()) ?? '';
        await tab('Pretty').focus();
        await page.keyboard.press('ArrowRight');
        expect(await selected()).toBe('Raw');
        expect(await isFocused(tab('Raw'))).toBe(true);
        expect(await detail.getByRole('tabpanel', { name: 'Raw' }).textContent()).toBe('{"a":1}');
        await page.keyboard.press('End');
        expect(await selected()).toBe('Hex');
        await detail.getByRole('region', { name: 'Hex view' }).waitFor();
        await page.keyboard.press('ArrowRight');
        expect(await selected()).toBe('Pretty');
        await page.keyboard.press('ArrowLeft');
        expect(await selected()).toBe('Hex');
        await page.keyboard.press('Home');
        expect(await selected()).toBe('Pretty');
        expect(await isFocused(tab('Pretty'))).toBe(true);
        // One stop in the Tab order: Tab leaves the tabs for the view itself.
        await page.keyboard.press('Tab');
        expect(await tab('Raw').evaluate((el) => el === el.ownerDocument.activeElement || el.parentElement?.contains(el.ownerDocument.activeElement))).toBe(false);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    test('Save, Create key and Refresh pressed from the keyboard keep the focus on the button', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'keyboard saves');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}/settings`);
        const mock = page.getByRole('region', { name: 'Mock response' });
        await mock.getByRole('textbox', { name: 'Status' }).fill('202');
        const save = mock.getByRole('button', { name: 'Save' });
        await save.focus();
        await page.keyboard.press('Enter');
        await mock.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
        expect(await isFocused(save)).toBe(true);
        expect((await fetch(ep.url, { method: 'POST' })).status).toBe(202);
        const off = mock.getByRole('button', { name: 'Use the default answer' });
        await off.focus();
        await page.keyboard.press('Enter');
        await mock.getByText('the default answer', { exact: true }).waitFor();
        expect(await isFocused(save)).toBe(true);

        await page.getByRole('link', { name: 'Account' }).click();
        const create = page.getByRole('button', { name: 'Create key' });
        await create.focus();
        await page.keyboard.press('Enter');
        // The key, shown once, takes the focus: its Copy key button, inside the region named for it.
        await page.getByRole('region', { name: 'New API key' }).waitFor();
        expect(await isFocused(page.getByRole('region', { name: 'New API key' }).getByRole('button', { name: 'Copy key' }))).toBe(true);
        const refresh = page.getByRole('region', { name: 'Usage' }).getByRole('button', { name: 'Refresh' });
        await refresh.focus();
        const asked = page.waitForResponse((r) => r.url().endsWith('/api/usage'));
        await page.keyboard.press('Enter');
        await asked;
        expect(await isFocused(refresh)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    test('a control that goes away hands the focus on: Rename (Save, Escape), N new requests, I have copied it', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'focus handed on');
      await fetch(`${ep.url}/first`, { method: 'POST', body: '1' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const rename = page.getByRole('button', { name: 'Rename' });
        await rename.focus();
        await page.keyboard.press('Enter');
        const name = page.getByRole('textbox', { name: 'Name' });
        expect(await isFocused(name)).toBe(true);
        await page.keyboard.press('Control+A');
        await page.keyboard.type('renamed by keyboard');
        await page.keyboard.press('Tab');
        expect(await isFocused(page.getByRole('button', { name: 'Save' }))).toBe(true);
        await page.keyboard.press('Enter');
        await page.getByRole('heading', { name: 'renamed by keyboard' }).waitFor();
        expect(await isFocused(rename)).toBe(true);
        // Escape leaves the form unchanged, and the focus on Rename.
        await page.keyboard.press('Enter');
        await page.keyboard.type(' and not this');
        await page.keyboard.press('Escape');
        await page.getByRole('heading', { name: 'renamed by keyboard' }).waitFor();
        expect(await name.count()).toBe(0);
        expect(await isFocused(rename)).toBe(true);

        // Paused, two captures held: "2 new requests" merges them and goes; the focus goes to Pause.
        await page.getByRole('button', { name: 'Pause' }).click();
        await fetch(`${ep.url}/held-1`, { method: 'POST', body: '2' });
        await fetch(`${ep.url}/held-2`, { method: 'POST', body: '3' });
        const held = page.getByRole('button', { name: '2 new requests' });
        await held.focus();
        await page.keyboard.press('Enter');
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/held-2 / }).waitFor();
        expect(await isFocused(page.getByRole('button', { name: 'Pause' }))).toBe(true);

        await page.getByRole('link', { name: 'Account' }).click();
        await page.getByRole('button', { name: 'Create key' }).click();
        await page.getByRole('region', { name: 'New API key' }).waitFor();
        expect(await isFocused(page.getByRole('button', { name: 'Copy key' }))).toBe(true);
        await page.keyboard.press('Tab');
        expect(await isFocused(page.getByRole('button', { name: 'I have copied it' }))).toBe(true);
        await page.keyboard.press('Enter');
        await page.getByRole('region', { name: 'New API key' }).waitFor({ state: 'detached' });
        expect(await isFocused(page.getByRole('textbox', { name: 'Key name' }))).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    test('Compare with previous, Select for comparison and Stop comparing used from the keyboard keep the focus on the comparison', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'compare keys');
      await fetch(`${ep.url}/older`, { method: 'POST', body: '{"n":1}' });
      await fetch(`${ep.url}/newer`, { method: 'POST', body: '{"n":2}' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/newer/ }).click();
        const detail = page.getByRole('article');
        await detail.getByRole('heading', { name: /\/newer$/ }).waitFor();
        // Each of these goes away once used: the focus fell to the page, and Tab started over at the top.
        const focusedText = () => page.evaluate('document.activeElement === document.body ? "" : (document.activeElement?.textContent ?? "")') as Promise<string>;
        await detail.getByRole('link', { name: 'Compare with previous' }).focus();
        await page.keyboard.press('Enter');
        await detail.getByRole('heading', { name: /^Compared with POST \/older/ }).waitFor();
        expect(await focusedText()).toContain('Compared with POST /older');
        // Tab goes on inside it: to the request compared with.
        await page.keyboard.press('Tab');
        expect(await isFocused(detail.getByRole('link', { name: /^POST \/older/ }))).toBe(true);

        await detail.getByRole('link', { name: 'Stop comparing' }).focus();
        await page.keyboard.press('Enter');
        await detail.getByRole('link', { name: 'Compare with previous' }).waitFor();
        expect(await isFocused(detail.getByRole('link', { name: 'Compare with previous' }))).toBe(true);

        await detail.getByRole('link', { name: 'Select for comparison' }).focus();
        await page.keyboard.press('Enter');
        await detail.getByText(/Selected for comparison/).waitFor();
        expect(await focusedText()).toContain('Selected for comparison');
        await page.keyboard.press('Tab');
        expect(await isFocused(detail.getByRole('link', { name: 'Stop comparing' }))).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('clearing captures with a request open closes it, instead of "request not found" beside the empty list', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'cleared');
      await fetch(`${ep.url}/one`, { method: 'POST', body: '1' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/one / }).click();
        await page.getByRole('article', { name: /\/one$/ }).waitFor();
        await page.getByRole('button', { name: 'Clear captures' }).click();
        await page.getByRole('dialog', { name: 'Clear all captured requests?' }).getByRole('button', { name: 'Clear' }).click();
        await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
        await page.waitForURL(`${h.url}/endpoints/${ep.slug}`);
        expect(await page.getByRole('article').count()).toBe(0);
        expect(await page.getByRole('alert').count()).toBe(0);
        // The next capture lists as usual, nothing open.
        await fetch(`${ep.url}/two`, { method: 'POST', body: '2' });
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/two / }).waitFor();
        expect(await page.getByRole('alert').count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
    test('typing in Search keeps the results on screen until the new ones arrive, and leaves no stale draft behind', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'typed search');
      for (let i = 0; i < 12; i++) await fetch(`${ep.url}/order-${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ order: `ord-${i}` }) });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        const list = page.getByRole('list', { name: 'Search results' });
        // Search reads the capture store, which trails the live list by up to SHIP_MAX_AGE_MS.
        await eventually(async () => {
          await page.goto(`${h.url}/search?q=ord`);
          await list.waitFor({ timeout: 3_000 });
          return (await list.getByRole('link').count()) === 12;
        }, 15_000);
        // Watch the page while typing: what the list area shows, at every change.
        await page.evaluate(`(() => {
          window.__shown = [];
          new MutationObserver(() => {
            const text = document.querySelector('.split-list')?.textContent ?? '';
            for (const w of ['Searching…', 'No request matches']) if (text.includes(w)) window.__shown.push(w);
          }).observe(document.body, { subtree: true, childList: true, characterData: true });
        })()`);
        const box = page.getByRole('searchbox', { name: 'Search' });
        await box.focus();
        await page.keyboard.press('End');
        await page.keyboard.type('-1', { delay: 80 });
        await page.getByRole('status').filter({ hasText: /^3 matching requests for “ord-1”$/ }).waitFor();
        await eventually(async () => (await list.getByRole('link').count()) === 3);
        await page.keyboard.press('Backspace', { delay: 80 });
        await page.keyboard.type('7', { delay: 80 });
        await page.getByRole('status').filter({ hasText: /^1 matching request for “ord-7”$/ }).waitFor();
        await eventually(async () => (await list.getByRole('link').count()) === 1);
        expect(await page.evaluate('window.__shown')).toEqual([]);
        expect(await box.inputValue()).toBe('ord-7');
        // Leaving the search page leaves an empty box, not a stale draft.
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await box.fill('ord-3');
        await page.keyboard.press('Enter');
        await page.waitForURL(/\/search\?q=ord-3&slug=/);
        await box.fill('ord-30');
        await page.waitForURL(/\/search\?q=ord-30&slug=/);
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
        await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
        expect(await box.inputValue()).toBe('');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
