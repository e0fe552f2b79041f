/**
 * Automated WCAG checks: axe-core (a devDependency, test-only; its script file is injected from
 * node_modules, nothing from a CDN) run on every dashboard view in real Chromium, in the light and
 * the dark colour scheme, at 1280 px and at 360 px (a phone), the Replay dialog with an answer and
 * with a refused target among them, a kept request (its row's badge, Keep pressed) too. Any violation fails the test, listed
 * with the rule and the elements.
 * The page's CSP allows no inline script, and Playwright's addScriptTag injects the file's text
 * inline, so the test's browser context bypasses the CSP (the app itself is unchanged).
 */
import { expect, test } from 'bun:test';
import { createRequire } from 'node:module';
import type { Page } from 'playwright-core';
import { createTeam, nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();
const AXE_SCRIPT = createRequire(import.meta.url).resolve('axe-core/axe.min.js');

interface Violation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: string[]; failureSummary?: string }[];
}

/**
 * axe's violations on the page as it is now, one line per rule and element. On a phone, also
 * WCAG 2.2's target size (2.5.8: a control at least 24 × 24 px, or that far from the next), a rule
 * axe leaves off by default.
 */
async function axeViolations(page: Page, phone: boolean): Promise<string[]> {
  await page.addScriptTag({ path: AXE_SCRIPT });
  const violations = await page.evaluate(async (phone) => {
    const g = globalThis as unknown as { axe: { run: (context: unknown, options: object) => Promise<{ violations: Violation[] }> }; document: unknown };
    const result = await g.axe.run(g.document, { resultTypes: ['violations'], rules: { 'target-size': { enabled: phone } } });
    return result.violations.map((v) => ({ id: v.id, impact: v.impact, help: v.help, nodes: v.nodes.map((n) => ({ target: n.target, failureSummary: n.failureSummary })) }));
  }, phone);
  return violations.flatMap((v) => v.nodes.map((n) => `${v.id} (${v.impact}): ${v.help} at ${n.target.join(' ')}: ${n.failureSummary ?? ''}`));
}

describeBackends(
  'dashboard: axe',
  (h) => {
    for (const [scheme, width] of [['light', 1280], ['dark', 1280], ['light', 360], ['dark', 360]] as const) {
      test(`every view has no axe violation (${scheme}, ${width} px)`, async () => {
        const viewport = { width, height: width === 360 ? 740 : 800 };
        const account = await signUpAccount(h.url);
        const ep = await createEndpoint(h.url, account, 'Stripe prod');
        await createEndpoint(h.url, account, 'GitHub app');
        const signed = JSON.stringify({ id: 'evt_1', object: 'event', type: 'charge.succeeded', data: { object: { amount: 100, lines: [{ sku: 'a' }] } } });
        const waiting = await createEndpoint(h.url, account, 'Quiet one');
        await fetch(`${ep.url}/form`, { method: 'PUT', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'a=1&b=2' });
        const stripe = (await (await fetch(`${ep.url}/stripe?x=1`, { method: 'POST', headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=00' }, body: signed })).json()) as { id: string };
        // Kept: its row carries the kept badge and its detail (two requests compared) Keep pressed.
        // A pin needs the capture in the capture store, which lags the receiver.
        await eventually(async () => (await call(h.url, 'POST', `/api/requests/${stripe.id}/pin`, { token: account.session })).status === 200, 10_000);
        const team = await createTeam(h.url, account.session, 'Ops crew');
        await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60 });
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: account.session, body: { endpointId: ep.id } })).status).toBeLessThan(300);

        // An endpoint shared with the account by a team whose subscription then lapsed: the home
        // page's "Shared with you" card and the endpoint's own page both say "Paused".
        const other = await signUpAccount(h.url);
        const lapsed = await createEndpoint(h.url, other, 'Lapsed feed');
        const lapsing = await createTeam(h.url, other.session, 'Lapsed crew');
        await setStripeSubscription(h.url, { teamId: lapsing.id, seats: 5, created: nowSeconds() - 120 });
        const inv = await call(h.url, 'POST', `/api/teams/${lapsing.id}/invite`, { token: other.session, body: { email: account.email } });
        expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: account.session })).status).toBe(200);
        expect((await call(h.url, 'POST', `/api/teams/${lapsing.id}/endpoints`, { token: other.session, body: { endpointId: lapsed.id } })).status).toBeLessThan(300);
        await setStripeSubscription(h.url, { teamId: lapsing.id, type: 'customer.subscription.updated', status: 'past_due', seats: 5, created: nowSeconds() - 60, subscriptionId: `sub_${lapsing.id}` });

        const found: Record<string, string[]> = {};
        const signedOut = await openPage(chromium(), h.url, null, { colorScheme: scheme, viewport, bypassCSP: true });
        try {
          await signedOut.page.goto(`${h.url}/`);
          await signedOut.page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
          found['sign-in'] = await axeViolations(signedOut.page, width === 360);
        } finally {
          await signedOut.context.close();
        }

        const { page, context, errors } = await openPage(chromium(), h.url, account, { colorScheme: scheme, viewport, bypassCSP: true });
        /** The Stripe event's Replay dialog, sent to `url` (the server's own receiver is on 127.0.0.1, in OUTBOUND_ALLOW). */
        const replay = async (url: string, shown: () => Promise<unknown>) => {
          await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/stripe/ }).click();
          await page.getByRole('article').getByRole('button', { name: 'Replay' }).click();
          const dialog = page.getByRole('dialog', { name: 'Replay request' });
          await dialog.getByRole('textbox', { name: 'Target URL' }).fill(url);
          await dialog.getByRole('textbox', { name: 'Header changes' }).fill('x-debug: 1');
          await dialog.getByRole('checkbox', { name: 'Edit the body' }).check();
          await dialog.getByRole('button', { name: 'Send' }).click();
          await shown();
        };
        try {
          const views: [string, string, () => Promise<unknown>][] = [
            [
              'endpoints',
              '/',
              async () => {
                await page.getByRole('list', { name: 'Your endpoints' }).getByRole('link', { name: 'GitHub app', exact: true }).waitFor();
                await page.getByRole('list', { name: 'Shared with you' }).getByText('Paused:').waitFor();
              },
            ],
            ['a shared endpoint, paused', `/endpoints/${lapsed.slug}`, () => page.getByRole('region', { name: 'Paused' }).waitFor()],
            [
              'endpoint with a request open',
              `/endpoints/${ep.slug}`,
              async () => {
                await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
                await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/stripe/ }).click();
                await page.getByRole('tree').waitFor();
                // A field picked from the keyboard: its highlight and the focus ring are checked too.
                await page.getByRole('tree').getByRole('button', { name: 'Collapse the whole body' }).first().focus();
                await page.keyboard.press('ArrowDown');
                await page.keyboard.press('Enter');
                await page.getByRole('group', { name: 'Picked field' }).getByRole('button', { name: 'Copy path' }).waitFor();
              },
            ],
            [
              'two requests compared',
              `/endpoints/${ep.slug}`,
              async () => {
                await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/stripe/ }).click();
                await page.getByRole('link', { name: 'Compare with previous' }).click();
                await page.getByRole('region', { name: /^Compared with PUT \/form/ }).waitFor();
              },
            ],
            ['endpoint waiting for its first request', `/endpoints/${waiting.slug}`, () => page.getByRole('heading', { name: 'Waiting for the first request' }).waitFor()],
            ['settings', `/endpoints/${ep.slug}/settings`, () => page.getByRole('heading', { name: 'Mock response' }).waitFor()],
            ['search', '/search?q=stripe', () => page.getByRole('list', { name: 'Search results' }).getByRole('link').first().waitFor()],
            ['account', '/account', () => page.getByRole('heading', { name: 'API keys' }).waitFor()],
            ['teams', '/teams', () => page.getByRole('link', { name: 'Ops crew' }).first().waitFor()],
            ['team', `/teams/${team.id}`, () => page.getByRole('heading', { name: 'Ops crew', level: 1 }).waitFor()],
            // Last: the replay lands in the endpoint as one more capture.
            ['replay: the target answered', `/endpoints/${ep.slug}`, () => replay(`${ep.url}/replayed`, () => page.getByRole('heading', { name: 'Answer: 200 OK' }).waitFor())],
            ['replay: a private target, the CLI command', `/endpoints/${ep.slug}`, () => replay('http://10.0.0.1/hook', () => page.getByRole('region', { name: 'Send it from your machine' }).waitFor())],
          ];
          for (const [name, path, ready] of views) {
            await page.goto(`${h.url}${path}`);
            await ready();
            found[name] = await axeViolations(page, width === 360);
          }
          expect(errors).toEqual([]);
        } finally {
          await context.close();
        }
        const failing = Object.fromEntries(Object.entries(found).filter(([, v]) => v.length > 0));
        expect(failing).toEqual({});
        // Thirteen views, each loaded and checked by axe in Chromium: over 60 s on CI at a load
        // average of 20, and a timed-out test's Chromium is killed under the next test's feet.
      }, 180_000);
    }
  },
  { ...TEAMS_ENV, OUTBOUND_ALLOW: '127.0.0.1' },
  CHROMIUM_SKIP,
);
