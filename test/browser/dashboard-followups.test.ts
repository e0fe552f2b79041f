/**
 * Follow-ups to the dashboard's daily-use features, in real Chromium on both backends, by role and
 * accessible name: a shared endpoint whose team lapsed shows one state; the request's actions fit
 * one row at 1280 px, and the top bar one row down to 821 px; every JSON field is picked from the
 * keyboard; a short list holds still; the endpoints page filters.
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { createTeam, nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

async function send(ep: TestEndpoint, path: string, body = '{}'): Promise<void> {
  const r = await fetch(`${ep.url}${path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
  expect(r.status).toBeLessThan(300);
}

const top = async (l: Locator) => (await l.boundingBox())?.y ?? Number.NaN;

describeBackends(
  'dashboard: follow-ups',
  (h) => {
    test('a shared endpoint whose team subscription lapsed shows one state: paused, nothing else', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, owner, 'Lapsed prod');
      const team = await createTeam(h.url, owner.session, 'Lapsing crew');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 120 });
      const inv = await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.session, body: { email: member.email } });
      expect(inv.status).toBe(201);
      expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: member.session })).status).toBe(200);
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: ep.id } })).status).toBeLessThan(300);
      await setStripeSubscription(h.url, { teamId: team.id, type: 'customer.subscription.updated', status: 'past_due', seats: 5, created: nowSeconds() - 60, subscriptionId: `sub_${team.id}` });

      const { page, context, errors } = await openPage(chromium(), h.url, member);
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('heading', { name: 'Lapsed prod', level: 1 }).waitFor();
        const paused = page.getByRole('region', { name: 'Paused' });
        await paused.waitFor();
        expect(await paused.textContent()).toContain('The Teams subscription of Lapsing crew is not active');
        // Long enough for a stream the page had opened to end with "not found".
        await page.waitForTimeout(1500);
        expect(await page.getByText('no longer exists').count()).toBe(0);
        expect(await page.getByText('Waiting for the first request').count()).toBe(0);
        expect(await page.getByRole('status', { name: 'Stream status' }).count()).toBe(0);
        expect(await page.getByRole('link', { name: 'Settings' }).count()).toBe(0);
        expect(await page.getByText('Paused').count()).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test("at 1280 px the open request's eight actions (Replay, Keep and the two compare ones among them) sit on one row", async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'actions');
      await send(ep, '/first');
      // Latin-1 café: not UTF-8, so stored and copied as base64.
      expect((await fetch(`${ep.url}/latin1`, { method: 'POST', headers: { 'content-type': 'text/plain; charset=latin1' }, body: new Uint8Array([0x63, 0x61, 0x66, 0xe9]) })).status).toBeLessThan(300);
      await send(ep, '/second');
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 1280, height: 800 } });
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/second/ }).click();
        const detail = page.getByRole('article');
        await detail.getByRole('heading', { name: /\/second$/ }).waitFor();
        const actions = [
          detail.getByRole('button', { name: 'Copy as cURL' }),
          detail.getByRole('button', { name: 'Copy body' }),
          detail.getByRole('button', { name: 'Replay' }),
          detail.getByRole('button', { name: 'Keep', exact: true }),
          detail.getByRole('button', { name: 'Download HAR' }),
          detail.getByRole('button', { name: 'Download body' }),
          detail.getByRole('link', { name: 'Compare with previous' }),
          detail.getByRole('link', { name: 'Select for comparison' }),
        ];
        const tops = await Promise.all(actions.map(top));
        for (const t of tops) expect(Math.abs(t - (tops[0] ?? 0))).toBeLessThan(4);

        // A body that is not UTF-8 is copied as base64: said in the button's name and on hover, and
        // still one row (its visible "Copy body (base64)" had pushed the compare links to a second).
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/latin1/ }).click();
        await detail.getByRole('heading', { name: /\/latin1$/ }).waitFor();
        actions[1] = detail.getByRole('button', { name: 'Copy body (base64)', exact: true });
        expect(await actions[1].getAttribute('title')).toContain('base64');
        const binaryTops = await Promise.all(actions.map(top));
        for (const t of binaryTops) expect(Math.abs(t - (binaryTops[0] ?? 0))).toBeLessThan(4);
        // Kept, Keep shows its tick: still one row.
        await actions[3]!.click();
        await eventually(async () => (await actions[3]!.getAttribute('aria-pressed')) === 'true');
        const keptTops = await Promise.all(actions.map(top));
        for (const t of keptTops) expect(Math.abs(t - (keptTops[0] ?? 0))).toBeLessThan(4);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('between 820 and 960 px the top bar stays one row; Log out and the email stay there', async () => {
      const account = await signUpAccount(h.url);
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 1280, height: 700 } });
      try {
        await page.goto(`${h.url}/`);
        await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
        const banner = page.getByRole('banner');
        const height = async () => (await banner.boundingBox())?.height ?? Number.NaN;
        const wide = await height();
        for (const width of [850, 900, 960]) {
          await page.setViewportSize({ width, height: 700 });
          expect(Math.abs((await height()) - wide)).toBeLessThan(2);
          const logOut = banner.getByRole('button', { name: 'Log out' });
          expect(await logOut.isVisible()).toBe(true);
          expect(Math.abs((await top(logOut)) - (await top(banner.getByRole('link', { name: 'Teams' }))))).toBeLessThan(8);
        }
        // The email may be cut short on screen, but is whole as text and as its title.
        const who = banner.getByText(account.email);
        expect(await who.getAttribute('title')).toBe(account.email);
        await page.getByRole('button', { name: 'Log out' }).click();
        await page.getByRole('heading', { name: 'Sign in' }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('each toggle of the JSON tree is named by its path, open or closed', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'tree-names');
      await send(ep, '/event', JSON.stringify({ data: { object: { amount: 100, lines: [{ sku: 'a' }, { sku: 'b' }] } }, 'odd key': { x: 1 } }));
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/event/ }).click();
        const tree = page.getByRole('tree');
        await tree.waitFor();
        for (const name of ['Collapse the whole body', 'Collapse data', 'Collapse data.object', 'Collapse data.object.lines', 'Collapse data.object.lines[1]', 'Collapse ["odd key"]']) {
          await tree.getByRole('button', { name, exact: true }).waitFor();
        }
        // No toggle keeps the library's one name for all.
        expect(await tree.getByRole('button', { name: /JSON/ }).count()).toBe(0);
        await tree.getByRole('button', { name: 'Collapse data.object', exact: true }).click();
        await tree.getByRole('button', { name: 'Expand data.object', exact: true }).waitFor();
        expect(await tree.getByRole('button', { name: 'Collapse data.object.lines', exact: true }).count()).toBe(0);
        // From the keyboard too (the library's → opens); the fields drawn again are named again.
        await tree.getByRole('button', { name: 'Expand data.object', exact: true }).press('ArrowRight');
        await tree.getByRole('button', { name: 'Collapse data.object.lines[0]', exact: true }).waitFor();
        await tree.getByRole('button', { name: 'Collapse data.object', exact: true }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('every field of the JSON tree is picked from the keyboard, and its path announced', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'keyboard-pick');
      await send(ep, '/event', JSON.stringify({ data: { object: { amount: 100, lines: [{ sku: 'a' }, { sku: 'b' }] } } }));
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/event/ }).click();
        const tree = page.getByRole('tree');
        await tree.waitFor();
        const picked = page.getByRole('group', { name: 'Picked field' });
        // The tree's one Tab stop: its root.
        await tree.getByRole('button', { name: 'Collapse the whole body' }).focus();
        // root, data, object, amount (a plain number)
        for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
        await page.keyboard.press('Enter');
        await picked.getByText('data.object.amount', { exact: true }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Picked data.object.amount' }).waitFor();
        // lines, lines[0], its sku (a plain string); Space picks too.
        for (let i = 0; i < 3; i++) await page.keyboard.press('ArrowDown');
        await page.keyboard.press(' ');
        await picked.getByText('data.object.lines[0].sku', { exact: true }).waitFor();
        await page.keyboard.press('End');
        await page.keyboard.press('Enter');
        await picked.getByText('data.object.lines[1].sku', { exact: true }).waitFor();
        await page.keyboard.press('ArrowUp');
        await page.keyboard.press('Enter');
        await picked.getByText('data.object.lines[1]', { exact: true }).waitFor();
        // Still one Tab stop in the tree.
        expect(await tree.locator('[tabindex="0"]').count()).toBe(1);
        await page.keyboard.press('Home');
        await page.keyboard.press('Enter');
        await picked.getByText('(the whole body)', { exact: true }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a list shorter than its box holds the open row still while captures arrive', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'short');
      for (let i = 0; i < 3; i++) await send(ep, `/seed/${i}`);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        const row = list.getByRole('link', { name: /\/seed\/2\b/ });
        await row.click();
        await page.getByRole('heading', { name: /\/seed\/2$/ }).waitFor();
        const before = await top(row);
        for (let i = 0; i < 3; i++) await send(ep, `/more/${i}`);
        const newer = page.getByRole('button', { name: '↑ 3 newer requests' });
        await newer.waitFor();
        await eventually(async () => Math.abs((await top(row)) - before) < 1);
        await page.waitForTimeout(300);
        expect(Math.abs((await top(row)) - before)).toBeLessThan(1);
        expect(await row.getAttribute('aria-current')).toBe('true');

        await newer.click();
        await newer.waitFor({ state: 'detached' });
        // The newest is where the open row was: at the top.
        await eventually(async () => Math.abs((await top(list.getByRole('link', { name: /\/more\/2\b/ }))) - before) < 1);
        // Back at the top, the room made to hold still is gone: the list is as tall as its rows.
        await eventually(async () => (await list.evaluate((el) => el.getBoundingClientRect().height)) === 6 * 56);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('the endpoints page filters many endpoints by name and slug', async () => {
      const account = await signUpAccount(h.url);
      const names = ['Stripe prod', 'Stripe staging', 'GitHub app', 'Shopify', 'Twilio', 'Slack bot', 'Linear'];
      const made: TestEndpoint[] = [];
      for (const name of names) made.push(await createEndpoint(h.url, account, name));
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/`);
        const list = page.getByRole('list', { name: 'Your endpoints' });
        await list.getByRole('link', { name: 'Linear', exact: true }).waitFor();
        const listed = () => list.locator('.endpoint-name').allTextContents();
        const filter = page.getByRole('searchbox', { name: 'Filter endpoints' });
        await filter.fill('stripe');
        await eventually(async () => JSON.stringify((await listed()).sort()) === JSON.stringify(['Stripe prod', 'Stripe staging']));
        await filter.fill('STRIPE stag');
        await eventually(async () => JSON.stringify(await listed()) === JSON.stringify(['Stripe staging']));
        const twilio = made[4];
        if (!twilio) throw new Error('no endpoint');
        await filter.fill(twilio.slug);
        await eventually(async () => JSON.stringify(await listed()) === JSON.stringify(['Twilio']));
        await filter.fill('nothing-like-this');
        await page.getByText('No endpoint matches “nothing-like-this”.').waitFor();
        await filter.fill('');
        await eventually(async () => (await listed()).length === names.length);

        // A few endpoints need no filter.
        const few = await signUpAccount(h.url);
        await createEndpoint(h.url, few, 'Only one');
        const other = await openPage(chromium(), h.url, few);
        try {
          await other.page.goto(`${h.url}/`);
          await other.page.getByRole('list', { name: 'Your endpoints' }).getByRole('link', { name: 'Only one', exact: true }).waitFor();
          expect(await other.page.getByRole('searchbox', { name: 'Filter endpoints' }).count()).toBe(0);
        } finally {
          await other.context.close();
        }
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  TEAMS_ENV,
  CHROMIUM_SKIP,
);
