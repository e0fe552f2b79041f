/**
 * Found walking through sign-in, the account, teams and the endpoints list as their users do, in
 * real Chromium on both backends, by role and accessible name: a double click runs an action once;
 * making, joining, leaving or deleting a team leaves the focus on the heading of the page it leads to;
 * a team's Rename form hands the focus back when it closes; declining an invite or sharing the last
 * endpoint left to share does not drop it either; a refusal in the agent API's shape, and a string
 * over its length, are shown in words.
 */
import { expect, test } from 'bun:test';
import type { Locator } from 'playwright-core';
import { AGENT_ENV } from '../behaviour/agent-support';
import { fieldState } from '../support/a11y';
import { resetLink, resetLinks } from '../behaviour/password-reset-support';
import { nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { CHROMIUM_SKIP, createEndpoint, openPage, signUpAccount, useChromium } from '../support/browser';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/** Long enough for a second request, had one been sent, to have been answered. */
const settle = () => new Promise((r) => setTimeout(r, 1_000));

/** Waits until `l` has the keyboard focus (fails after 10 s). */
const focusedSoon = (l: Locator) => eventually(async () => (await l.evaluate((el) => el === el.ownerDocument.activeElement)) || null, 10_000);

describeBackends(
  'dashboard: the account walkthrough',
  (h) => {
    test('a double click creates one endpoint, one key, one team, deletes a key once and mails one reset link', async () => {
      const account = await signUpAccount(h.url);
      const count = async (path: string) => ((await call<unknown[]>(h.url, 'GET', path, { token: account.session })).body ?? []).length;
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        // The first endpoint, from the empty state: one is made and its page opens.
        await page.goto(`${h.url}/`);
        await page.getByRole('button', { name: 'New endpoint' }).dblclick();
        await page.getByRole('heading', { name: 'Untitled endpoint', level: 1 }).waitFor();
        await settle();
        expect(await count('/api/endpoints')).toBe(1);

        // A key: one made, and it is the one shown.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
        await page.getByLabel('Key name').fill('ci');
        await page.getByRole('button', { name: 'Create key' }).dblclick();
        await page.getByRole('region', { name: 'New API key' }).waitFor();
        await settle();
        expect(await count('/api/api-keys')).toBe(1);
        await page.getByRole('button', { name: 'I have copied it' }).click();

        // Deleting it: the confirmation's button pressed twice deletes it once, with no "not found".
        await page.getByRole('button', { name: 'Delete key ci' }).click();
        await page.getByRole('dialog').getByRole('button', { name: 'Delete key' }).dblclick();
        await page.getByText('No API keys yet.').waitFor();
        await settle();
        expect(await page.getByRole('alert').allTextContents()).toEqual([]);
        expect(await count('/api/api-keys')).toBe(0);

        // A team.
        await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
        await page.getByLabel('New team name').fill('Ops');
        await page.getByRole('button', { name: 'Create team' }).dblclick();
        await page.getByRole('heading', { name: 'Ops', level: 1 }).waitFor();
        await settle();
        expect(await count('/api/teams')).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }

      // A second reset mail would void the first one's link.
      const visitor = await openPage(chromium(), h.url, null);
      try {
        await visitor.page.goto(`${h.url}/forgot-password`);
        await visitor.page.getByLabel('Email').fill(account.email);
        await visitor.page.getByRole('button', { name: 'Send reset link' }).dblclick();
        await visitor.page.getByRole('status').filter({ hasText: 'If an account exists' }).waitFor();
        await resetLink(h.server, account.email);
        await settle();
        expect(resetLinks(h.server, account.email)).toHaveLength(1);
        expect(visitor.errors).toEqual([]);
      } finally {
        await visitor.context.close();
      }
    }, 90_000);

    test('making, joining, leaving and deleting a team from the keyboard leave the focus on the next page’s heading', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const o = await openPage(chromium(), h.url, owner);
      const m = await openPage(chromium(), h.url, member);
      try {
        // Made: the team's page, its name focused (the Create team button went with the Teams page).
        await o.page.goto(`${h.url}/teams`);
        await o.page.getByLabel('New team name').fill('Ops');
        await o.page.getByLabel('New team name').press('Enter');
        await focusedSoon(o.page.getByRole('heading', { name: 'Ops', level: 1 }));
        const teamId = decodeURIComponent(new URL(o.page.url()).pathname.split('/').at(-1) ?? '');
        await setStripeSubscription(h.url, { teamId, seats: 5, created: nowSeconds() - 60 });
        expect((await call(h.url, 'POST', `/api/teams/${teamId}/invite`, { token: owner.session, body: { email: member.email } })).status).toBe(201);

        // Joined: Accept (pressed with Enter) opens the team, its name focused.
        await m.page.goto(`${h.url}/teams`);
        await m.page.getByRole('button', { name: 'Accept the invite to Ops' }).press('Enter');
        await focusedSoon(m.page.getByRole('heading', { name: 'Ops', level: 1 }));

        // Left: back on Teams, its heading focused, and what happened said.
        await m.page.getByRole('button', { name: 'Leave team' }).press('Enter');
        await m.page.getByRole('dialog').getByRole('button', { name: 'Leave' }).press('Enter');
        await focusedSoon(m.page.getByRole('heading', { name: 'Teams', level: 1 }));
        await m.page.getByRole('status').filter({ hasText: 'You left Ops.' }).waitFor();

        // Deleted: likewise.
        await o.page.getByRole('button', { name: 'Delete team' }).press('Enter');
        await o.page.getByRole('dialog').getByRole('button', { name: 'Delete' }).press('Enter');
        await focusedSoon(o.page.getByRole('heading', { name: 'Teams', level: 1 }));
        await o.page.getByRole('status').filter({ hasText: 'Deleted the team Ops.' }).waitFor();
        expect([...o.errors, ...m.errors]).toEqual([]);
      } finally {
        await o.context.close();
        await m.context.close();
      }
    });

    test('renaming a team from the keyboard: Escape cancels, and Save, Cancel or Escape hand the focus back to Rename team', async () => {
      const owner = await signUpAccount(h.url);
      const team = await call<{ id: string }>(h.url, 'POST', '/api/teams', { token: owner.session, body: { name: 'Ops' } });
      const { page, context, errors } = await openPage(chromium(), h.url, owner);
      try {
        await page.goto(`${h.url}/teams/${team.body.id}`);
        const rename = page.getByRole('button', { name: 'Rename team' });
        const field = page.getByRole('textbox', { name: 'Team name' });
        await rename.press('Enter');
        await focusedSoon(field);
        await page.keyboard.press('Escape');
        await focusedSoon(rename);
        await rename.press('Enter');
        await page.getByRole('button', { name: 'Cancel' }).press('Enter');
        await focusedSoon(rename);
        await rename.press('Enter');
        await field.fill('Ops crew');
        await field.press('Enter');
        await page.getByRole('heading', { name: 'Ops crew', level: 1 }).waitFor();
        await focusedSoon(rename);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('declining invites and sharing the last endpoint from the keyboard leave the focus in place, not at the top', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      await createEndpoint(h.url, owner, 'Only one');
      const teams: Record<string, string> = {};
      for (const name of ['Alpha', 'Beta']) {
        const team = await call<{ id: string }>(h.url, 'POST', '/api/teams', { token: owner.session, body: { name } });
        teams[name] = team.body.id;
        await setStripeSubscription(h.url, { teamId: team.body.id, seats: 5, created: nowSeconds() - 60 });
        expect((await call(h.url, 'POST', `/api/teams/${team.body.id}/invite`, { token: owner.session, body: { email: member.email } })).status).toBe(201);
      }
      const o = await openPage(chromium(), h.url, owner);
      const m = await openPage(chromium(), h.url, member);
      try {
        // Declined: the next invite's Accept, then, with none left, Your teams.
        await m.page.goto(`${h.url}/teams`);
        const invites = m.page.getByRole('list', { name: 'Invites for you' });
        const first = invites.getByRole('listitem').first();
        const other = (await first.textContent())?.startsWith('Alpha') ? 'Beta' : 'Alpha';
        await first.getByRole('button', { name: /^Decline/ }).press('Enter');
        await focusedSoon(m.page.getByRole('button', { name: `Accept the invite to ${other}` }));
        await m.page.getByRole('button', { name: `Decline the invite to ${other}` }).press('Enter');
        await focusedSoon(m.page.getByRole('heading', { name: 'Your teams', level: 2 }));

        // Shared: the Share form goes with the last endpoint to share; the focus goes to its Unshare.
        await o.page.goto(`${h.url}/teams/${teams.Alpha}`);
        await o.page.getByRole('button', { name: 'Share', exact: true }).press('Enter');
        await focusedSoon(o.page.getByRole('button', { name: 'Unshare Only one' }));
        expect([...o.errors, ...m.errors]).toEqual([]);
      } finally {
        await o.context.close();
        await m.context.close();
      }
    });

    test('at the API-key limit, Create key says why in words, not with the code too_many_keys', async () => {
      const account = await signUpAccount(h.url);
      for (let i = 0; i < 25; i++) expect((await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name: `k${i}` } })).status).toBe(201);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/account`);
        await page.getByLabel('Key name').fill('one more');
        await page.getByRole('button', { name: 'Create key' }).click();
        const refusal = page.getByRole('region', { name: 'API keys' }).getByRole('alert');
        await refusal.waitFor();
        expect(await refusal.textContent()).toBe('the account already holds 25 API keys; delete one first');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a password or address over the API’s length is refused in words, not TypeBox’s', async () => {
      const account = await signUpAccount(h.url);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/account`);
        const form = page.getByRole('form', { name: 'Change password' });
        const next = form.getByLabel('New password (at least 8 characters)');
        await form.getByLabel('Current password').fill('correct horse battery');
        await next.fill('y'.repeat(1025));
        await form.getByLabel('Confirm new password').fill('y'.repeat(1025));
        await form.getByRole('button', { name: 'Change password' }).click();
        await form.getByRole('alert').waitFor();
        expect(await fieldState(next)).toEqual({ invalid: true, description: 'Must be at most 1024 characters' });
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
      const visitor = await openPage(chromium(), h.url, null);
      try {
        await visitor.page.goto(`${h.url}/signup`);
        await visitor.page.getByLabel('Email').fill(`${'x'.repeat(250)}@example.com`);
        await visitor.page.getByLabel('Password (at least 8 characters)').fill('correct horse battery');
        await visitor.page.getByRole('button', { name: 'Sign up' }).click();
        const refusal = visitor.page.getByRole('alert');
        await refusal.waitFor();
        expect(await refusal.textContent()).toBe('email: must be at most 254 characters');
        expect(visitor.errors).toEqual([]);
      } finally {
        await visitor.context.close();
      }
    });
  },
  { ...TEAMS_ENV, ...AGENT_ENV },
  CHROMIUM_SKIP,
);
