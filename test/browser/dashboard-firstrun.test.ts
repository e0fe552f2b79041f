/**
 * A new developer's first minutes, in real Chromium on both backends, by role and accessible name:
 * from `/` to an account, the first endpoint, the curl command the page offers run in bash, the
 * request arriving live and opened, all from the keyboard (and, arriving while a confirmation is
 * open, said inside the dialog, where it is heard); the same at 375 px; and a GET sent with
 * a body, which this runtime cannot capture, explained instead of "No body."
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { statusesHeard } from '../support/a11y';
import { fitsNarrowScreen } from '../support/layout';
import { focusedName, isFocused, openPage, signUpAccount, useChromium, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/** What has the focus, for a failure's message. */

/** Presses Tab until `target` has the focus (at most `max` times); fails naming where the focus went. */
async function tabTo(page: Page, target: Locator, max = 12): Promise<void> {
  for (let i = 0; i < max; i++) {
    await page.keyboard.press('Tab');
    if (await isFocused(target)) return;
  }
  throw new Error(`Tab never reached the target; the focus is on ${await focusedName(page)}`);
}

/** WCAG contrast ratio of an element's text colour against its own background colour (both opaque). */
function contrast(l: Locator): Promise<number> {
  return l.evaluate((el) => {
    const style = el.ownerDocument.defaultView!.getComputedStyle(el);
    const lum = (css: string) => {
      const [r = 0, g = 0, b = 0] = (css.match(/\d+(\.\d+)?/g) ?? []).map(Number).map((v) => v / 255).map((v) => (v <= 0.03928 ? v / 12.92 : ((v + 0.055) / 1.055) ** 2.4));
      return 0.2126 * r + 0.7152 * g + 0.0722 * b;
    };
    const [a, b] = [lum(style.color), lum(style.backgroundColor)];
    return (Math.max(a, b) + 0.05) / (Math.min(a, b) + 0.05);
  });
}

function bash(command: string): string {
  const run = Bun.spawnSync(['bash', '-c', command]);
  if (run.exitCode !== 0) throw new Error(`bash failed (${run.exitCode}): ${run.stderr.toString()}`);
  return run.stdout.toString();
}

describeBackends('dashboard: first run', (h) => {
  test('keyboard only: sign up, the first endpoint, its curl command run in bash, the request arriving and opened', async () => {
    const { page, context, errors } = await openPage(chromium(), h.url, null, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await page.goto(`${h.url}/`);
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      await tabTo(page, page.getByRole('link', { name: 'Create an account' }));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      // The form swapped in place: the focus starts it (not on the link now saying "Sign in", where
      // the next Enter would swap it back).
      expect(await eventually(() => isFocused(page.getByLabel('Email')), 2_000).catch(() => false), await focusedName(page)).toBe(true);
      await page.keyboard.type(`first${Date.now()}@example.com`);
      await page.keyboard.press('Tab');
      await page.keyboard.type('correct horse battery');
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Endpoints' }).waitFor();

      await tabTo(page, page.getByRole('button', { name: 'New endpoint' }));
      await page.keyboard.press('Enter');
      await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
      // The button went with the home page: the focus is on the new endpoint's title, and the next Tab copies its URL.
      const title = page.getByRole('heading', { level: 1, name: 'Untitled endpoint' });
      expect(await eventually(() => isFocused(title), 2_000).catch(() => false), await focusedName(page)).toBe(true);
      await page.keyboard.press('Tab');
      expect(await isFocused(page.getByRole('button', { name: 'Copy URL' })), await focusedName(page)).toBe(true);

      // The page says how to send the first request: its command, copied and run as is.
      await tabTo(page, page.getByRole('button', { name: 'Copy command' }));
      await page.keyboard.press('Enter');
      await page.getByRole('status').filter({ hasText: 'Copied the curl command' }).waitFor();
      const command = String(await page.evaluate('navigator.clipboard.readText()'));
      expect(command).toStartWith('curl ');
      expect(JSON.parse(bash(command)).ok).toBe(true);

      // It arrives live: said in the status region, and the focus (on Copy command, gone with the
      // hint) moves to its row, so Enter opens it.
      const row = page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/ / });
      await row.waitFor();
      await page.getByRole('status').filter({ hasText: 'First request received: POST /' }).waitFor();
      expect(await eventually(() => isFocused(row), 2_000).catch(() => false), await focusedName(page)).toBe(true);
      await page.keyboard.press('Enter');
      const detail = page.getByRole('article', { name: /\/w\/[a-z2-9]{12}$/ });
      await detail.getByRole('tree', { name: 'JSON view' }).getByText('"world"').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the first request arriving while a confirmation is open is said inside the dialog (the page behind it is inert)', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'mid-delete');
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}`);
      await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
      // With no dialog open, the page's own status region is the one heard.
      await page.getByRole('button', { name: 'Copy command' }).click();
      expect(await eventually(async () => (await statusesHeard(page)).includes('Copied the curl command'), 3_000).catch(() => false)).toBe(true);
      await page.getByRole('button', { name: 'Delete endpoint' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete mid-delete?' });
      await dialog.waitFor();
      expect(await statusesHeard(page)).not.toContain('First request received: POST /late');

      // Someone about to delete the endpoint should know a request just came. It is listed behind
      // the dialog; the page's own status region says it too, but inert, so unheard: what counts is
      // what Chromium tells a screen reader, and a status region in the dialog, seen.
      expect((await fetch(`${ep.url}/late`, { method: 'POST' })).status).toBe(200);
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/late / }).waitFor();
      const heard = await eventually(async () => (await statusesHeard(page)).includes('First request received: POST /late'), 3_000).catch(() => false);
      expect(heard, `status regions heard: ${JSON.stringify(await statusesHeard(page))}`).toBe(true);
      await dialog.getByRole('status').filter({ hasText: 'First request received: POST /late' }).waitFor({ timeout: 2_000 });

      // Cancelled: the endpoint and its request are still there.
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      await dialog.waitFor({ state: 'hidden' });
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('with two endpoints, each card\'s links name their endpoint (no two links called "Requests")', async () => {
    const account = await signUpAccount(h.url);
    await createEndpoint(h.url, account, 'Stripe');
    await createEndpoint(h.url, account, 'GitHub');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/`);
      const cards = page.getByRole('list', { name: 'Your endpoints' });
      await cards.getByRole('link', { name: 'Requests of Stripe' }).waitFor();
      await cards.getByRole('link', { name: 'Requests of GitHub' }).click();
      await page.getByRole('heading', { level: 1, name: 'GitHub' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a failed sign-in does not leave its error on the sign-up form', async () => {
    const { page, context, errors } = await openPage(chromium(), h.url, null);
    try {
      await page.goto(`${h.url}/`);
      await page.getByLabel('Email').fill(`nobody${Date.now()}@example.com`);
      await page.getByLabel('Password').fill('not the password');
      await page.getByRole('button', { name: 'Sign in' }).click();
      const alert = page.getByRole('alert');
      await alert.waitFor();
      await page.getByRole('link', { name: 'Create an account' }).click();
      await page.getByRole('heading', { name: 'Create an account' }).waitFor();
      expect(await alert.count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('at 375 px the first endpoint fits, and its curl command wraps between words, not inside the URL', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'phone');
    const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 375, height: 740 } });
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}`);
      await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
      await fitsNarrowScreen(page, ['Copy URL', 'Copy command', 'Log out'], 375);
      // The lines the command is drawn on: the URL (with its quotes) sits on one of them.
      const lines = (await page.evaluate(`(() => {
        const text = document.querySelector('.curl-line code').firstChild;
        const s = text.textContent;
        const from = s.indexOf("'http");
        const to = s.indexOf("'", from + 1) + 1;
        const r = document.createRange();
        r.setStart(text, from);
        r.setEnd(text, to);
        return new Set([...r.getClientRects()].map((b) => Math.round(b.top))).size;
      })()`)) as number;
      expect(lines).toBe(1);
      // Every line of the wrapped command starts at one left edge (code's inline padding had put
      // the first 4 px right of the others).
      const lefts = (await page.evaluate(`(() => {
        const r = document.createRange();
        r.selectNodeContents(document.querySelector('.curl-line code'));
        const byTop = new Map();
        for (const b of r.getClientRects()) if (b.width > 0) byTop.set(Math.round(b.top), Math.min(byTop.get(Math.round(b.top)) ?? Infinity, b.left));
        return [...byTop.values()].map((l) => Math.round(l));
      })()`)) as number[];
      expect(lefts.length).toBeGreaterThan(1);
      expect(new Set(lefts).size).toBe(1);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('on a wide screen the empty endpoint offers nothing to select: the pane beside the hint says what will show there, until the first request; the command is readable', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'wide');
    const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 1280, height: 800 } });
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}`);
      await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
      // The command reads at the size of code elsewhere (.85 of the text around it), not smaller.
      const px = (l: Locator) => l.evaluate((el) => parseFloat(el.ownerDocument.defaultView?.getComputedStyle(el).fontSize ?? ''));
      const command = page.getByText(/^curl -X POST /);
      const around = page.getByText(/^Send any HTTP request to this endpoint/);
      expect((await px(command)) / (await px(around))).toBeGreaterThanOrEqual(0.84);
      const pane = page.locator('.split-detail');
      await pane.getByText('Each request opens here in full').waitFor();
      expect(await pane.getByText('No terminal at hand? Send test in this endpoint\'s Settings sends one from the dashboard.').isVisible()).toBe(true);
      expect(await page.getByText('Select a request to see it in full').count()).toBe(0);
      // Once there is something to select, the pane says how.
      await fetch(`${ep.url}/hello`, { method: 'POST', body: '{}' });
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/hello / }).waitFor();
      await pane.getByText('Select a request to see it in full').waitFor();
      expect(await pane.getByText('Each request opens here in full').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a mock response set in Settings: the request it answered says what the sender got', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'mocked');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}/settings`);
      await page.getByLabel('Status').fill('503');
      await page.getByRole('button', { name: 'Save' }).first().click();
      await page.getByText('a mock response with status 503').waitFor();
      expect((await fetch(`${ep.url}/retry-me`, { method: 'POST', body: '{}' })).status).toBe(503);
      await page.getByRole('link', { name: '← Requests' }).click();
      await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /^POST \/retry-me / }).click();
      const detail = page.getByRole('article', { name: /\/retry-me$/ });
      const answered = detail.getByRole('term').filter({ hasText: /^Answered$/ });
      await answered.waitFor();
      expect(await answered.evaluate((el) => el.nextElementSibling?.textContent)).toBe('503');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('a GET sent with a body, which this runtime cannot capture, says so instead of "No body."', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'pings');
    // As an Elasticsearch-style client or a provider's verification ping sends it.
    bash(`curl -s -X GET -H 'content-type: application/json' --data '{"q":"x"}' '${ep.url}/ping'`);
    await fetch(`${ep.url}/plain`);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}`);
      const list = page.getByRole('list', { name: 'Requests' });
      await list.getByRole('link', { name: /^GET \/ping / }).click();
      const detail = page.getByRole('article', { name: /\/ping$/ });
      await detail.waitFor();
      const notice = detail.getByText("This GET request declared a body of 9 bytes (content-length: 9); hookcap's runtime does not receive bodies of GET requests, so none was captured.");
      await notice.waitFor();
      // Readable: its text against its background meets WCAG AA (4.5:1), as every notice's does.
      expect(await contrast(notice)).toBeGreaterThanOrEqual(4.5);
      expect(await detail.getByText('No body.').count()).toBe(0);
      // A GET without a body is just that.
      await list.getByRole('link', { name: /^GET \/plain / }).click();
      await page.getByRole('article', { name: /\/plain$/ }).getByText('No body.').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
});
