/**
 * An auditor's findings in real Chromium, on both backends, by role and accessible name: endpoints
 * of the same name told apart by their slug wherever a list names them; an unsigned request badged
 * apart from a forged one; the banner of an unconfirmed address on every signed-in page; the live
 * filter's `method:`/`header:` words understood by search (and a hint for the rest); and wording
 * (the subscription's status said once, "1 byte", the mock status's range said once, an empty
 * rename refused in the dashboard's words, no `/` hint on a touch screen).
 */
import { expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { Page } from 'playwright-core';
import { SMTP_SINK_URL, USE_SMTP } from '../behaviour/agent-support';
import { verificationLink } from '../behaviour/password-reset-support';
import { createTeam, nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { fieldState } from '../support/a11y';
import { fitsNarrowScreen } from '../support/layout';
import { CHROMIUM_SKIP, createEndpoint, openPage, openSettings, signUpAccount, useChromium, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

async function openEndpoint(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/endpoints/${ep.slug}`);
  await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
}

const optionTexts = (page: Page, label: string) => page.getByLabel(label, { exact: true }).locator('option').allTextContents();

describeBackends(
  'dashboard: polish',
  (h) => {
    test('endpoints of the same name carry their slug in Switch endpoint, Search’s Endpoint select and a team’s lists; a unique name stays bare', async () => {
      const account = await signUpAccount(h.url);
      const a = await createEndpoint(h.url, account, 'Untitled endpoint');
      const b = await createEndpoint(h.url, account, 'Untitled endpoint');
      const stripe = await createEndpoint(h.url, account, 'Stripe');
      const team = await createTeam(h.url, account.session, 'Crew');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 3, created: nowSeconds() - 60 });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, stripe);
        await page.getByRole('button', { name: 'Switch endpoint' }).click();
        const others = page.getByRole('list', { name: 'Other endpoints' }).getByRole('link');
        await others.first().waitFor();
        expect((await others.allTextContents()).sort()).toEqual([`Untitled endpoint · ${a.slug}`, `Untitled endpoint · ${b.slug}`].sort());
        await others.filter({ hasText: b.slug }).click();
        await page.getByRole('heading', { level: 1, name: 'Untitled endpoint' }).waitFor();
        expect(new URL(page.url()).pathname).toBe(`/endpoints/${b.slug}`);
        await page.getByRole('button', { name: 'Switch endpoint' }).click();
        await others.first().waitFor();
        expect((await others.allTextContents()).sort()).toEqual(['Stripe', `Untitled endpoint · ${a.slug}`].sort());

        await page.goto(`${h.url}/search`);
        await eventually(async () => (await optionTexts(page, 'Endpoint')).length === 4);
        expect((await optionTexts(page, 'Endpoint')).sort()).toEqual(['All endpoints', 'Stripe', `Untitled endpoint · ${a.slug}`, `Untitled endpoint · ${b.slug}`].sort());

        expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: account.session, body: { endpointId: a.id } })).status).toBeLessThan(300);
        await page.goto(`${h.url}/teams/${team.id}`);
        const shared = page.getByRole('list', { name: 'Shared endpoints' });
        await shared.getByRole('link', { name: `Untitled endpoint · ${a.slug}` }).waitFor();
        await shared.getByRole('button', { name: `Unshare Untitled endpoint · ${a.slug}` }).waitFor();
        expect((await optionTexts(page, 'Endpoint to share')).sort()).toEqual(['Stripe', `Untitled endpoint · ${b.slug}`].sort());
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('on an endpoint verifying Stripe signatures, a request with no signature is "unsigned" (warning colour, the missing header on hover), a forged one "bad signature"', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'signed');
      expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: account.session, body: { signing: { provider: 'stripe', secret: 'whsec_polish_0123456789' } } })).status).toBe(200);
      const body = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.succeeded' });
      await fetch(`${ep.url}/forged`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': `t=${nowSeconds()},v1=${createHmac('sha256', 'wrong').update(body).digest('hex')}` }, body });
      await fetch(`${ep.url}/plain`, { method: 'POST', headers: { 'content-type': 'application/json' }, body });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        const list = page.getByRole('list', { name: 'Requests' });
        const forged = list.getByRole('link', { name: /\/forged/ });
        const plain = list.getByRole('link', { name: /\/plain/ });
        await plain.waitFor();
        await forged.waitFor();
        expect(await forged.getByText('bad signature', { exact: true }).count()).toBe(1);
        expect(await plain.getByText('bad signature', { exact: true }).count()).toBe(0);
        const unsigned = plain.getByText('unsigned', { exact: true });
        expect(await unsigned.getAttribute('title')).toContain('no stripe-signature header');
        const colour = (l: typeof unsigned) => l.evaluate((el) => el.ownerDocument.defaultView!.getComputedStyle(el).color);
        expect(await colour(unsigned)).not.toBe(await colour(forged.getByText('bad signature', { exact: true })));
        // The live filter's words follow the badges.
        await page.getByRole('searchbox', { name: 'Filter requests' }).fill('no-signature');
        await eventually(async () => (await list.getByRole('link').count()) === 1);
        expect(await plain.isVisible()).toBe(true);
        // The detail says what happened in words.
        await plain.click();
        await page.getByRole('article').getByText('no stripe-signature header sent, nothing to verify', { exact: false }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('an unconfirmed address: a banner on the signed-in pages (not Account), linking to Account, dismissed for the session; none once confirmed', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'bannered');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        const banner = page.getByRole('complementary', { name: 'Address not confirmed' });
        await page.goto(`${h.url}/`);
        await banner.waitFor();
        expect(await banner.textContent()).toContain('an AI agent that proves your mailbox can take this account over');
        await openEndpoint(page, h.url, ep);
        expect(await banner.isVisible()).toBe(true);
        await banner.getByRole('link', { name: 'Confirm your address' }).click();
        await page.getByRole('region', { name: 'Confirm your address' }).waitFor();
        expect(await banner.count()).toBe(0); // Account says it in full, with Resend
        await page.goto(`${h.url}/teams`);
        await banner.waitFor();
        await banner.getByRole('button', { name: 'Dismiss' }).click();
        expect(await banner.count()).toBe(0);
        await page.reload();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        expect(await banner.count()).toBe(0);
        const other = await context.newPage(); // a new tab is a new session: it is back
        await other.setViewportSize({ width: 390, height: 844 });
        await other.goto(`${h.url}/`);
        const phoneBanner = other.getByRole('complementary', { name: 'Address not confirmed' });
        await phoneBanner.waitFor();
        // On a phone it is one short line (the first words and the link), so the list stays high.
        expect((await phoneBanner.boundingBox())?.height).toBeLessThan(32);
        expect(await phoneBanner.getByRole('link', { name: 'Confirm your address' }).isVisible()).toBe(true);
        await fitsNarrowScreen(other, ['Dismiss', 'Log out'], 390);
        await other.close();

        const { token } = await verificationLink(h.server, account.email);
        expect((await call(h.url, 'POST', '/api/auth/verify-email', { body: { token } })).status).toBe(200);
        const fresh = await context.newPage();
        await fresh.goto(`${h.url}/`);
        await fresh.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
        expect(await fresh.getByRole('complementary', { name: 'Address not confirmed' }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('search takes the live filter’s method: and header: words into its filters on Enter, and says which syntax it takes for event: and the rest', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'searched');
      const charge = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.succeeded' });
      await fetch(`${ep.url}/stripe`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-test': 'yes' }, body: charge });
      await fetch(`${ep.url}/charge-get`, { method: 'GET' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openEndpoint(page, h.url, ep);
        await page.keyboard.press('/');
        const box = page.getByRole('searchbox', { name: 'Search' });
        await box.fill('method:post charge');
        await box.press('Enter');
        await page.waitForURL(/\/search\?/);
        let params = new URL(page.url()).searchParams;
        expect([params.get('q'), params.get('method'), params.get('slug')]).toEqual(['charge', 'POST', ep.slug]);
        expect(await page.getByLabel('Method', { exact: true }).inputValue()).toBe('POST');
        expect(await box.inputValue()).toBe('charge');
        const results = page.getByRole('list', { name: 'Search results' }).getByRole('link');
        await eventually(async () => (await results.count()) === 1);
        await page.getByRole('status').filter({ hasText: '1 matching request for “charge”' }).waitFor();

        // On the search page itself, Enter moves header: likewise.
        await box.fill('header:x-test:yes');
        await box.press('Enter');
        await eventually(async () => new URL(page.url()).searchParams.get('header') === 'x-test:yes');
        params = new URL(page.url()).searchParams;
        expect([params.get('q'), params.get('method')]).toEqual([null, 'POST']);
        expect(await page.getByLabel('Header', { exact: true }).inputValue()).toBe('x-test:yes');
        await eventually(async () => (await results.count()) === 1);

        // event: is not search's: a hint says what search takes, with the search for the event's name as text.
        await page.goto(`${h.url}/search?q=${encodeURIComponent('event:charge.succeeded')}`);
        const hint = page.getByText('as plain text', { exact: false });
        await hint.waitFor();
        expect(await hint.textContent()).toContain('method:post');
        await page.getByRole('link', { name: 'search for “charge.succeeded”' }).click();
        await eventually(async () => new URL(page.url()).searchParams.get('q') === 'charge.succeeded');
        await eventually(async () => (await results.count()) === 1);
        expect(await hint.count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('wording: the subscription’s status said once, "1 byte", the mock status’s range said once, an empty rename in the dashboard’s words, no key hint on a touch screen', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'worded');
      const team = await createTeam(h.url, account.session, 'Worded crew');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 3, created: nowSeconds() - 60 });
      await fetch(`${ep.url}/one`, { method: 'POST', body: 'a' });
      await fetch(`${ep.url}/two`, { method: 'POST', body: 'bb' });
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/teams/${team.id}`);
        const status = page.getByRole('region', { name: 'Subscription' }).locator('dd').first();
        await status.getByText('active', { exact: true }).waitFor();
        expect((await status.textContent())?.trim()).toBe('active');

        await openEndpoint(page, h.url, ep);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/two/ }).click();
        await page.getByRole('link', { name: 'Compare with previous' }).click();
        const size = page.getByRole('row', { name: /^Size/ });
        await size.waitFor();
        expect(await size.textContent()).toContain('1 byte');
        expect(await size.textContent()).not.toContain('1 bytes');

        await page.getByRole('button', { name: 'Rename' }).click();
        const name = page.getByRole('textbox', { name: 'Name' });
        await name.fill('  ');
        await name.press('Enter');
        await page.getByRole('alert').filter({ hasText: 'Enter a name for the endpoint.' }).waitFor();
        expect(await fieldState(name)).toEqual({ invalid: true, description: 'Enter a name for the endpoint.' });
        expect(await page.getByText('name must not be empty').count()).toBe(0);
        await name.press('Escape');

        await openSettings(page, h.url, ep);
        const statusField = page.getByRole('textbox', { name: 'Status' });
        await statusField.fill('99');
        await page.getByRole('region', { name: 'Mock response' }).getByRole('button', { name: 'Save' }).click();
        await eventually(async () => (await fieldState(statusField)).invalid);
        expect((await fieldState(statusField)).description).toBe('Enter a status code from 200 to 599.');
        expect(await page.getByText('200 to 599.', { exact: true }).count()).toBe(0);
        expect(await page.getByRole('textbox', { name: 'Search' }).or(page.getByRole('searchbox', { name: 'Search' })).getAttribute('placeholder')).toContain('/');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
      const phone = await openPage(chromium(), h.url, account, { viewport: { width: 390, height: 844 }, isMobile: true, hasTouch: true });
      try {
        await phone.page.goto(`${h.url}/`);
        const box = phone.page.getByRole('searchbox', { name: 'Search' });
        await box.waitFor();
        expect(await box.getAttribute('placeholder')).toBe('Search requests');
        expect(phone.errors).toEqual([]);
      } finally {
        await phone.context.close();
      }
    });
  },
  // Mail goes to the SMTP sink when the server backend is under test (the banner's test confirms an address by its link).
  { ...TEAMS_ENV, ...(USE_SMTP ? { SMTP_URL: SMTP_SINK_URL } : {}) },
  CHROMIUM_SKIP,
);
