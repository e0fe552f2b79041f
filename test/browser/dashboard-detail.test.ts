/**
 * The parts of the list and the detail the main dashboard test does not reach, in real Chromium on
 * both backends, by role and accessible name: each row's time (exact on hover), size, sender ip and
 * signature status; form-encoded and multipart bodies as tables; Copy body and Copy URL; a very long
 * URL cut to three lines; a search result cutting its endpoint name before the sender ip; a narrow
 * list's row keeping its path beside a long event and the signature badge; no layout shift while
 * captures stream in; the tab's title naming the open request; long header and query values folded
 * with Show all; an unknown endpoint or request shown as a message, not a blank page; the app and
 * /docs fetch nothing from another origin.
 */
import { expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();



async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

describeBackends('dashboard: rows and detail', (h) => {
  test('rows show time (exact on hover), size, ip and the signature status; the detail agrees', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'signed rows');
    const secret = 'gh-secret-for-rows-0123456789';
    const set = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: account.session, body: { signing: { provider: 'github', secret } } });
    expect(set.status).toBe(200);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      const good = JSON.stringify({ action: 'opened', number: 7 });
      const sig = `sha256=${createHmac('sha256', secret).update(good).digest('hex')}`;
      await fetch(`${ep.url}/good`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': sig }, body: good });
      await fetch(`${ep.url}/bad`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, body: good });

      const list = page.getByRole('list', { name: 'Requests' });
      const goodRow = list.getByRole('link', { name: /\/good/ });
      const badRow = list.getByRole('link', { name: /\/bad/ });
      await goodRow.waitFor();
      await badRow.waitFor();
      // The list API trails the live stream by up to SHIP_MAX_AGE_MS on the server backend.
      const goodCapture = await eventually(async () => {
        const captures = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session })).body as { id: string; path: string; size: number; ip: string; receivedAt: number }[];
        return captures.find((c) => c.path === '/good');
      });

      expect(await goodRow.getByText('signed ✓').count()).toBe(1);
      expect(await badRow.getByText('bad signature').count()).toBe(1);
      expect(await badRow.getByText('bad signature').getAttribute('title')).toContain('mismatch');
      const goodText = (await goodRow.textContent()) ?? '';
      expect(goodText).toContain(`${goodCapture.size} B`);
      expect(goodText).toContain(goodCapture.ip);
      expect(goodText).toContain('pull_request.opened');
      expect(await goodRow.getByRole('img', { name: 'github' }).count()).toBe(1);
      // Relative time in the row, the exact time (with milliseconds) on hover and in `datetime`.
      const time = goodRow.locator('time');
      expect(await time.textContent()).toMatch(/just now|\d+s ago/);
      expect(await time.getAttribute('datetime')).toBe(new Date(goodCapture.receivedAt).toISOString());
      expect(await time.getAttribute('title')).toMatch(/\d{2}:\d{2}:\d{2}\.\d{3}/);

      await badRow.click();
      const detail = page.getByRole('article');
      await detail.getByRole('heading', { name: /\/bad/ }).waitFor();
      const facts = (await detail.locator('dl.facts').textContent()) ?? '';
      expect(facts).toContain('not verified: mismatch');
      expect(facts).toContain('(github)');
      expect(facts).toContain(goodCapture.ip);
      await goodRow.click();
      await detail.getByRole('heading', { name: /\/good/ }).waitFor();
      const goodFacts = (await detail.locator('dl.facts').textContent()) ?? '';
      expect(goodFacts).toContain(`ID${goodCapture.id}`);
      expect(goodFacts).toContain(`Size${goodCapture.size} B`);
      expect(goodFacts).toContain('signed ✓ verified (github)');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('form-encoded and multipart bodies read as tables; Copy body and Copy URL copy exactly', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'forms');
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await openEndpoint(page, h.url, ep);
      const form = 'Body=Hello+w%C3%B6rld&From=%2B15550001111&tag=a&tag=b&empty=';
      await fetch(`${ep.url}/sms`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });
      await page.getByRole('link', { name: /\/sms/ }).click();
      const detail = page.getByRole('article');
      await detail.getByRole('tab', { name: 'Pretty', selected: true }).waitFor();
      const table = detail.getByRole('tabpanel').getByRole('table', { name: 'Form fields' });
      const rows = (await table.locator('tbody tr').allTextContents()).map((r) => r.trim());
      expect(rows).toEqual(['BodyHello wörld', 'From+15550001111', 'taga', 'tagb', 'empty']);
      await detail.getByRole('tab', { name: 'Raw' }).click();
      expect(await detail.getByRole('tabpanel').textContent()).toBe(form);
      await detail.getByRole('button', { name: 'Copy body' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied the body' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(form);

      const multipart = new FormData();
      multipart.append('title', 'Quarterly report');
      multipart.append('file', new Blob([new Uint8Array([1, 2, 3, 4])], { type: 'application/pdf' }), 'report.pdf');
      await fetch(`${ep.url}/upload`, { method: 'POST', body: multipart });
      await page.getByRole('link', { name: /\/upload/ }).click();
      await detail.getByRole('heading', { name: /\/upload/ }).waitFor();
      // The body view stays on the tab last chosen (Raw); Pretty shows the parts.
      await detail.getByRole('tab', { name: 'Pretty' }).click();
      const parts = detail.getByRole('tabpanel').getByRole('table', { name: 'Form fields' });
      await parts.waitFor();
      expect((await parts.locator('tbody tr').allTextContents()).map((r) => r.trim())).toEqual(['titleQuarterly report', 'filefile report.pdf (application/pdf, 4 B)']);

      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
      await page.getByRole('button', { name: 'Copy URL of forms' }).click();
      await page.getByRole('status').filter({ hasText: /Copied/ }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(ep.url);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a form with a binary file part still reads as a table; text in a declared charset reads as text', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'inbound');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      // An inbound-mail post: a text field and an attachment whose bytes are not UTF-8, so the
      // capture is stored as base64.
      const mail = new FormData();
      mail.append('subject', 'Hello from the mail gateway');
      mail.append('attachment1', new Blob([new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0xff, 0xfe, 0x00, 0x01])], { type: 'image/png' }), 'tiny.png');
      await fetch(`${ep.url}/inbound`, { method: 'POST', body: mail });
      const detail = page.getByRole('article');
      await page.getByRole('link', { name: /\/inbound/ }).click();
      await detail.getByRole('heading', { name: /\/inbound/ }).waitFor();
      await detail.getByRole('tab', { name: 'Pretty', selected: true }).waitFor();
      expect(await detail.getByRole('tab').allTextContents()).toEqual(['Pretty', 'Hex', 'Base64']);
      const parts = detail.getByRole('tabpanel').getByRole('table', { name: 'Form fields' });
      await parts.waitFor();
      expect((await parts.locator('tbody tr').allTextContents()).map((r) => r.trim())).toEqual(['subjectHello from the mail gateway', 'attachment1file tiny.png (image/png, 8 B)']);

      // 'café' and 'Ñ' in ISO-8859-1: one byte each, not UTF-8.
      const xml = Buffer.from('<note>café Ñ</note>', 'latin1');
      await fetch(`${ep.url}/latin`, { method: 'POST', headers: { 'content-type': 'text/xml; charset=ISO-8859-1' }, body: xml });
      await page.getByRole('link', { name: /\/latin/ }).click();
      await detail.getByRole('heading', { name: /\/latin/ }).waitFor();
      expect(await detail.getByRole('tab').allTextContents()).toEqual(['Raw', 'Hex', 'Base64']);
      await detail.getByRole('tab', { name: 'Raw' }).click();
      expect(await detail.getByRole('tabpanel').textContent()).toBe('<note>café Ñ</note>');
      expect(await detail.getByText('ISO-8859-1 text (as its Content-Type declares), kept byte for byte').count()).toBe(1);
      await detail.getByRole('tab', { name: 'Hex' }).click();
      expect(await detail.getByRole('tabpanel').textContent()).toContain('66 e9 20 d1');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('no layout shift while captures stream in, with a request open', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'steady');
    await fetch(`${ep.url}/first`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":0}' });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await context.addInitScript(`(() => {
        window.__shifts = [];
        new PerformanceObserver((list) => {
          for (const e of list.getEntries()) window.__shifts.push({ value: e.value, nodes: (e.sources || []).map((s) => s.node && s.node.nodeName + '.' + (s.node.className || '')) });
        }).observe({ type: 'layout-shift', buffered: true });
      })()`);
      await openEndpoint(page, h.url, ep);
      await page.getByRole('link', { name: /\/first/ }).click();
      await page.getByRole('article').getByRole('heading', { name: /\/first/ }).waitFor();
      // What loading the page shifted is not this test's business: only what streaming does. (Every
      // shift is counted, also those the browser would excuse as following an input.)
      await page.waitForTimeout(300);
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      await page.evaluate('window.__shifts = []');
      const heading = page.getByRole('heading', { name: 'steady' });
      const before = await heading.boundingBox();
      for (let i = 0; i < 40; i++) {
        await fetch(`${ep.url}/stream/${i}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify({ i, pad: 'x'.repeat(i * 7) }) });
        if (i % 10 === 9) await new Promise((r) => setTimeout(r, 150));
      }
      await page.locator('.list-count').filter({ hasText: /^41 requests$/ }).waitFor();
      await page.evaluate('new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r)))');
      const shifts = (await page.evaluate('window.__shifts')) as { value: number; nodes: string[] }[];
      expect(shifts).toEqual([]);
      expect(await heading.boundingBox()).toEqual(before);
      // The open request stays the one on screen.
      expect(await page.getByRole('article').getByRole('heading', { name: /\/first/ }).count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('in a narrow list a row keeps its path in sight beside a long event and the signature badge; the detail shows the event whole', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'narrow rows');
    const set = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: account.session, body: { signing: { provider: 'github', secret: 'gh-secret-for-narrow-rows-0123' } } });
    expect(set.status).toBe(200);
    const body = JSON.stringify({ action: 'created', comment: { id: 1 } });
    await fetch(`${ep.url}/webhooks/github`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-github-event': 'pull_request_review_comment', 'x-github-delivery': crypto.randomUUID(), 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` }, body });
    // From 821 px the list (20rem) sits beside the open request.
    const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 830, height: 700 } });
    try {
      await openEndpoint(page, h.url, ep);
      const row = page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/webhooks\/github/ });
      await row.click();
      await page.getByRole('article').getByRole('heading', { name: /\/webhooks\/github$/ }).waitFor();
      // The tags took all the room they wanted and the path was cut to "/…" or to nothing.
      const pathShown = await row.getByText('/webhooks/github', { exact: true }).evaluate((el) => el.clientWidth);
      expect(pathShown).toBeGreaterThan(40);
      const badge = await row.getByText('bad signature', { exact: true }).evaluate((el) => {
        const link = el.closest('a');
        return { whole: el.scrollWidth <= el.clientWidth, inside: link !== null && el.getBoundingClientRect().right <= link.getBoundingClientRect().right };
      });
      expect(badge).toEqual({ whole: true, inside: true });
      // The event gives way, with the whole of it on hover; the detail, with room, shows it whole (it was cut at 12rem there too).
      expect(await row.getByText('pull_request_review_comment.created').getAttribute('title')).toBe('pull_request_review_comment.created');
      const inDetail = page.getByRole('article').getByText('pull_request_review_comment.created', { exact: true });
      expect(await inDetail.evaluate((el) => el.scrollWidth <= el.clientWidth)).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('in search results a long endpoint name is cut, never the sender ip', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'Stripe production payments with a rather long endpoint name to test wrapping');
    await fetch(`${ep.url}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"type":"charge.succeeded"}' });
    const ip = await eventually(async () => {
      const r = await call(h.url, 'GET', `/api/search/requests?slug=${ep.slug}`, { token: account.session });
      return (r.body as { ip: string }[])[0]?.ip;
    });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/search?q=webhooks`);
      const row = page.getByRole('list', { name: 'Search results' }).getByRole('link', { name: /\/webhooks\/stripe/ });
      await row.waitFor();
      const cut = async (text: string) => row.getByText(text, { exact: true }).evaluate((el) => el.scrollWidth > el.clientWidth);
      expect(await cut(ip)).toBe(false);
      expect(await cut('Stripe production payments with a rather long endpoint name to test wrapping')).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a URL of thousands of characters is cut to a few lines, with Show full URL; the actions stay in sight', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'long urls');
    const query = Array.from({ length: 40 }, (_, i) => `param${i}=${'abcdefghij'.repeat(5)}`).join('&');
    await fetch(`${ep.url}/deep/${'x'.repeat(300)}?${query}`, { method: 'POST', body: 'long' });
    await fetch(`${ep.url}/short`, { method: 'POST', body: 'short' });
    // A phone, where the URL alone took more than the screen.
    const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 390, height: 844 } });
    try {
      await openEndpoint(page, h.url, ep);
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/deep\// }).click();
      const detail = page.getByRole('article');
      // The heading (what a screen reader reads) keeps the whole URL.
      await detail.getByRole('heading', { name: /param39=(abcdefghij){5}$/ }).waitFor();
      const toggle = detail.getByRole('button', { name: 'Show full URL' });
      expect(await toggle.getAttribute('aria-expanded')).toBe('false');
      const copyCurl = await detail.getByRole('button', { name: 'Copy as cURL' }).boundingBox();
      expect(copyCurl).not.toBeNull();
      expect((copyCurl?.y ?? Infinity) + (copyCurl?.height ?? 0)).toBeLessThan(844);
      // The way back to the list stays in sight although the heading took the focus.
      const back = await page.getByRole('link', { name: /All requests/ }).boundingBox();
      expect(back?.y ?? -1).toBeGreaterThanOrEqual(0);

      const heading = detail.getByRole('heading', { name: /\/deep\// });
      const cut = (await heading.boundingBox())?.height ?? 0;
      await toggle.click();
      const less = detail.getByRole('button', { name: 'Show less' });
      expect(await less.getAttribute('aria-expanded')).toBe('true');
      expect((await heading.boundingBox())?.height ?? 0).toBeGreaterThan(cut * 3);
      await less.click();
      expect(await detail.getByRole('button', { name: 'Show full URL' }).getAttribute('aria-expanded')).toBe('false');

      // A URL that fits has nothing to unfold.
      await page.getByRole('link', { name: /All requests/ }).click();
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/short/ }).click();
      await detail.getByRole('heading', { name: /\/short$/ }).waitFor();
      expect(await detail.getByRole('button', { name: 'Show full URL' }).count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test("the tab's title names the open request, cut short, with a sender's hidden characters escaped", async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'titled');
    await fetch(`${ep.url}/orders/42`, { method: 'POST', body: 'a' });
    // A right-to-left override in the path would reverse the rest of the tab's title if kept raw.
    const long = `/evil%E2%80%AE${'x'.repeat(300)}`;
    await fetch(`${ep.url}${long}`, { method: 'PUT', body: 'b' });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      expect(await page.title()).toBe('titled · hookcap');
      const list = page.getByRole('list', { name: 'Requests' });
      await list.getByRole('link', { name: /^POST \/orders\/42 / }).click();
      await page.getByRole('heading', { name: /\/orders\/42$/ }).waitFor();
      await eventually(async () => (await page.title()) === 'POST /orders/42 · titled · hookcap');
      const orderUrl = page.url();

      await list.getByRole('link', { name: /^PUT \/evil/ }).click();
      await page.getByRole('heading', { name: /\/evil/ }).waitFor();
      await eventually(async () => (await page.title()).startsWith('PUT /evil%E2%80%AExxx'));
      const title = await page.title();
      expect(title).toEndWith('x… · titled · hookcap');
      expect(title.length).toBeLessThan(80);
      expect(title).not.toContain('\u202e');

      // Back to the list: the endpoint alone; a link to the request, opened afresh, names it again.
      await page.goBack();
      await page.goBack();
      await eventually(async () => (await page.title()) === 'titled · hookcap');
      await page.goto(orderUrl);
      await page.getByRole('heading', { name: /\/orders\/42$/ }).waitFor();
      await eventually(async () => (await page.title()) === 'POST /orders/42 · titled · hookcap');
      // The same request opened from search.
      const id = new URL(orderUrl).pathname.split('/').pop() ?? '';
      await page.goto(`${h.url}/search/requests/${id}`);
      await page.getByRole('heading', { name: /\/orders\/42$/ }).waitFor();
      await eventually(async () => (await page.title()) === 'POST /orders/42 · Search · hookcap');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a 3,000-character header or query value is folded to a few lines, each with its own Show all', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'long values');
    const header = `tok_${'a'.repeat(3000)}`;
    const param = `q_${'b'.repeat(1000)}`;
    await fetch(`${ep.url}/long?token=${param}&short=1`, { method: 'POST', headers: { 'x-long': header, 'x-other-long': `o_${'c'.repeat(500)}`, 'x-short': 'yes' }, body: 'x' });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openEndpoint(page, h.url, ep);
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/long/ }).click();
      const detail = page.getByRole('article', { name: /\/long/ });
      const headers = detail.getByRole('table', { name: 'Headers' });
      await headers.waitFor();
      const height = async (text: string) => (await headers.getByRole('cell').filter({ hasText: text }).boundingBox())?.height ?? Number.NaN;
      const folded = await height(header);
      // Four lines and the toggle, where the whole value takes 40 or more.
      expect(folded).toBeLessThan(150);
      const more = headers.getByRole('button', { name: 'Show all of x-long' });
      expect(await more.getAttribute('aria-expanded')).toBe('false');
      // Every long value has its own toggle; a short one has none.
      expect(await headers.getByRole('button', { name: 'Show all of x-other-long' }).count()).toBe(1);
      expect(await headers.getByRole('button', { name: /of x-short$/ }).count()).toBe(0);
      await more.click();
      const less = headers.getByRole('button', { name: 'Show less of x-long' });
      expect(await less.getAttribute('aria-expanded')).toBe('true');
      expect(await height(header)).toBeGreaterThan(folded * 4);
      // The other value stays folded; the whole text was there all along.
      expect(await headers.getByRole('button', { name: 'Show all of x-other-long' }).getAttribute('aria-expanded')).toBe('false');
      expect(await headers.getByRole('cell').filter({ hasText: header }).textContent()).toContain(header);
      await less.click();
      await eventually(async () => (await height(header)) < 150);
      // The query parameters' table folds the same way.
      const query = detail.getByRole('table', { name: 'Query parameters' });
      expect(await query.getByRole('button', { name: 'Show all of token' }).getAttribute('aria-expanded')).toBe('false');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('an unknown endpoint or request is a readable message, never a blank page', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'known');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/endpoints/zzzzzzzzzzzz`);
      await page.getByRole('alert').filter({ hasText: 'This endpoint does not exist, or it is not yours.' }).waitFor();
      expect(await page.getByRole('link', { name: 'Back to your endpoints' }).count()).toBe(1);
      await page.goto(`${h.url}/endpoints/${ep.slug}/requests/req_doesnotexist`);
      const alert = page.getByRole('alert');
      await alert.waitFor();
      expect(((await alert.textContent()) ?? '').length).toBeGreaterThan(5);
      expect(await alert.textContent()).not.toMatch(/^\s*\{/);
      await page.goto(`${h.url}/teams/a/b`);
      await page.getByRole('heading', { name: 'Page not found' }).waitFor();
      expect(await page.getByRole('link', { name: 'Go to your endpoints' }).count()).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
  test('the app and /docs load nothing from another origin and run with no network beyond this one', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'offline');
    await fetch(`${ep.url}/hello`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"a":1}' });
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    const origin = new URL(h.url).origin;
    const elsewhere: string[] = [];
    // Any request to another origin is recorded and refused, as on a machine with no internet.
    await context.route(
      (url) => url.origin !== origin,
      (route) => {
        elsewhere.push(route.request().url());
        return route.abort('internetdisconnected');
      },
    );
    // The page's CSP stops such a request before it reaches the network; Chromium says so on the console.
    const refused: string[] = [];
    page.on('console', (m) => {
      if (/Content Security Policy/i.test(m.text())) refused.push(m.text());
    });
    try {
      await openEndpoint(page, h.url, ep);
      await page.getByRole('link', { name: /\/hello/ }).click();
      await page.getByRole('article').getByRole('tab', { name: 'Pretty', selected: true }).waitFor();
      await page.goto(`${h.url}/docs`);
      // Swagger UI drew the spec: its title and an operation of ours.
      await page.getByRole('heading', { name: /hookcap API/ }).first().waitFor();
      await page.getByText('/api/endpoints', { exact: true }).first().waitFor();
      expect(elsewhere).toEqual([]);
      expect(refused).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}, {}, CHROMIUM_SKIP);
