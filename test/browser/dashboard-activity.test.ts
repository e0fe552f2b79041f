/**
 * The home page's endpoint activity in real Chromium on both backends, by role and accessible
 * name: each endpoint row (own, and "Shared with you") says how many requests it holds and how
 * long ago the last came, or "No requests yet", the rows not waiting for it; Clear captures
 * brings a row back to that; the page reads it again when shown again and when its tab comes
 * back into view; the phone layout fits.
 */
import { expect, test } from 'bun:test';
import type { Locator, Page } from 'playwright-core';
import { joinTeam, paidTeam, TEAMS_ENV } from '../behaviour/teams-support';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium, type Account, type TestEndpoint } from '../support/browser';
import { call, eventually, newAccount } from '../support/client';
import { fitsNarrowScreen } from '../support/layout';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/** Sends `n` captures and waits until the endpoint's list holds `total`; the newest receivedAt. */
async function send(base: string, account: Account, ep: TestEndpoint, n: number, total = n): Promise<number> {
  for (let i = 0; i < n; i++) expect((await fetch(`${ep.url}/hook`, { method: 'POST', body: String(i) })).status).toBe(200);
  const list = await eventually(async () => {
    const r = await call<{ receivedAt: number }[]>(base, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session });
    return r.body.length === total ? r.body : null;
  }, 15_000);
  return Math.max(...list.map((c) => c.receivedAt));
}

/** The row of the endpoint named `name` in the list named `list`. */
const row = (page: Page, list: string, name: string): Locator =>
  page.getByRole('list', { name: list }).getByRole('listitem').filter({ has: page.getByRole('link', { name, exact: true }) });

/** The row's activity words, once they are in. */
async function activityOf(r: Locator): Promise<string> {
  const line = r.getByText(/^(\d+ requests? · latest |No requests yet$)/);
  await line.waitFor();
  return ((await line.textContent()) ?? '').trim();
}

/** n requests, the last under a minute ago (`relativeTime`, web/src/lib/format.ts: "just now", "12s ago"). */
const FRESH = (n: number) => new RegExp(`^${n} requests? · latest (just now|\\d+s ago)$`);

describeBackends(
  'dashboard: endpoint activity on the home page',
  (h) => {
    test('each row says how many requests and when the last came, or No requests yet; exact time on hover; Clear captures brings it to none', async () => {
      const owner = await signUpAccount(h.url);
      const alpha = await createEndpoint(h.url, owner, 'Alpha hooks');
      const beta = await createEndpoint(h.url, owner, 'Beta hooks');
      await createEndpoint(h.url, owner, 'Quiet hooks');
      const alphaLast = await send(h.url, owner, alpha, 3);
      await send(h.url, owner, beta, 1);
      const { page, context, errors } = await openPage(chromium(), h.url, owner);
      try {
        // The activity held back: the rows show without it, and its lines fill in once it comes.
        let release = () => {};
        const held = new Promise<void>((resolve) => (release = resolve));
        await page.route('**/api/endpoints/activity', async (route) => {
          await held;
          await route.continue();
        });
        await page.goto(`${h.url}/`);
        const a = row(page, 'Your endpoints', 'Alpha hooks');
        await a.getByRole('button', { name: 'Copy URL of Alpha hooks' }).waitFor();
        expect(await page.getByText(/^(\d+ requests? · latest |No requests yet$)/).count()).toBe(0);
        release();
        expect(await activityOf(a)).toMatch(FRESH(3));
        expect(await activityOf(row(page, 'Your endpoints', 'Beta hooks'))).toMatch(FRESH(1));
        expect(await activityOf(row(page, 'Your endpoints', 'Quiet hooks'))).toBe('No requests yet');
        // The relative time carries the exact one (hover, assistive technology).
        const when = a.getByText(/^3 requests · latest /).locator('time');
        expect(await when.getAttribute('datetime')).toBe(new Date(alphaLast).toISOString());
        expect(await when.getAttribute('title')).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2}\.\d{3} UTC/);

        // Not live: a new capture shows when the tab comes back into view.
        await send(h.url, owner, beta, 1, 2);
        expect(await activityOf(row(page, 'Your endpoints', 'Beta hooks'))).toMatch(FRESH(1));
        await page.evaluate("window.dispatchEvent(new Event('visibilitychange'))");
        await eventually(async () => FRESH(2).test(await activityOf(row(page, 'Your endpoints', 'Beta hooks'))));

        // Clear captures on Alpha's page; back home its row says none, at once and as read again.
        await a.getByRole('link', { name: 'Requests of Alpha hooks' }).click();
        await page.getByRole('button', { name: 'Clear captures' }).click();
        await page.getByRole('dialog', { name: 'Clear all captured requests?' }).getByRole('button', { name: 'Clear' }).click();
        await page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor();
        await page.getByRole('navigation', { name: 'Breadcrumb' }).getByRole('link', { name: 'Endpoints' }).click();
        expect(await activityOf(row(page, 'Your endpoints', 'Alpha hooks'))).toBe('No requests yet');
        await page.reload();
        expect(await activityOf(row(page, 'Your endpoints', 'Alpha hooks'))).toBe('No requests yet');
        expect(await activityOf(row(page, 'Your endpoints', 'Beta hooks'))).toMatch(FRESH(2));
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a shared endpoint\'s row says its activity too, and at 360 px the home page fits', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const shared = await createEndpoint(h.url, owner, 'Payments prod');
      await createEndpoint(h.url, member, 'My own hooks');
      await send(h.url, owner, shared, 2);
      const team = await paidTeam(h.url, owner, 5, 'Activity crew');
      await joinTeam(h.url, owner, team, member);
      const r = await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: shared.id } });
      expect(r.status).toBe(201);
      const { page, context, errors } = await openPage(chromium(), h.url, member, { viewport: { width: 360, height: 740 } });
      try {
        await page.goto(`${h.url}/`);
        expect(await activityOf(row(page, 'Shared with you', 'Payments prod'))).toMatch(FRESH(2));
        expect(await activityOf(row(page, 'Your endpoints', 'My own hooks'))).toBe('No requests yet');
        await fitsNarrowScreen(page, ['New endpoint', 'Log out'], 360);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  TEAMS_ENV,
  CHROMIUM_SKIP,
);
