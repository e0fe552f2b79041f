/**
 * Found walking through sign-in, the account, teams and the endpoints list as their users do, in
 * real Chromium on both backends, by role and accessible name: a double click runs an action once.
 */
import { expect, test } from 'bun:test';
import { AGENT_ENV } from '../behaviour/agent-support';
import { resetLink, resetLinks } from '../behaviour/password-reset-support';
import { TEAMS_ENV } from '../behaviour/teams-support';
import { CHROMIUM_SKIP, openPage, signUpAccount, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

/** Long enough for a second request, had one been sent, to have been answered. */
const settle = () => new Promise((r) => setTimeout(r, 1_000));

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
  },
  { ...TEAMS_ENV, ...AGENT_ENV },
  CHROMIUM_SKIP,
);
