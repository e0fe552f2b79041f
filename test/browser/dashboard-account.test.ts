/**
 * The account page in real Chromium on both backends, driven by role and accessible name: an API
 * key created in the page works against the API and stops working once deleted there; the raw key
 * is shown once; the usage meter shows what GET /api/usage says; deleting the account needs the
 * email typed and ends the session, the endpoints and their URLs.
 */
import { expect, test } from 'bun:test';
import { unnamedControls } from '../support/a11y';
import { fitsNarrowScreen } from '../support/layout';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP } from '../support/browser';
import { createTeam, nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

describeBackends('dashboard: account', (h) => {
  test('an API key created in the page is usable, shown once, and stops working when deleted there', async () => {
    const account = await signUpAccount(h.url);
    const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
    try {
      await page.goto(`${h.url}/`);
      await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Account' }).click();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      await page.getByLabel('Key name').fill('CI runner');
      await page.getByRole('button', { name: 'Create key' }).click();

      const shown = page.getByRole('region', { name: 'New API key' });
      await shown.waitFor();
      expect(await shown.textContent()).toContain('It will not be shown again');
      const key = (await shown.getByLabel('API key CI runner').textContent()) ?? '';
      expect(key).toMatch(/^svc_[A-Za-z0-9_-]{20,}$/);
      await shown.getByRole('button', { name: 'Copy key' }).click();
      await page.getByRole('status').filter({ hasText: 'Copied the API key' }).waitFor();
      expect(await page.evaluate('navigator.clipboard.readText()')).toBe(key);

      // The key works: the API answers it as this account.
      const me = await call(h.url, 'GET', '/api/auth/me', { token: key });
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(account.email);
      expect((await call(h.url, 'POST', '/api/endpoints', { token: key, body: { name: 'by key' } })).status).toBe(201);

      // Listed by name and prefix; once dismissed, the raw key is gone from the page for good.
      const table = page.getByRole('table', { name: 'Your API keys' });
      const row = table.getByRole('row', { name: /CI runner/ });
      expect(await row.textContent()).toContain(`${key.slice(0, 12)}…`);
      await shown.getByRole('button', { name: 'I have copied it' }).click();
      await shown.waitFor({ state: 'detached' });
      await page.reload();
      await table.waitFor();
      expect(await page.content()).not.toContain(key);

      // Delete, with a confirmation; cancelling first keeps it.
      await row.getByRole('button', { name: 'Delete key CI runner' }).click();
      const dialog = page.getByRole('dialog', { name: 'Delete the key CI runner?' });
      await dialog.getByRole('button', { name: 'Cancel' }).click();
      expect((await call(h.url, 'GET', '/api/auth/me', { token: key })).status).toBe(200);
      await row.getByRole('button', { name: 'Delete key CI runner' }).click();
      await dialog.getByRole('button', { name: 'Delete key' }).click();
      await row.waitFor({ state: 'detached' });
      expect((await call(h.url, 'GET', '/api/auth/me', { token: key })).status).toBe(401);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: key })).status).toBe(401);
      // The session the page runs on is untouched.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(200);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('the usage meter shows used / limit, plan and period end', async () => {
    const account = await signUpAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: account.session, body: { name: 'counted' } })).body;
    for (let i = 0; i < 7; i++) expect((await fetch(`${ep.url}/n${i}`, { method: 'POST', body: String(i) })).status).toBe(200);
    // Receivers flush their counts every USAGE_FLUSH_MS (1 s).
    const usage = await eventually(async () => {
      const u = (await call(h.url, 'GET', '/api/usage', { token: account.session })).body;
      return u.used === 7 ? u : null;
    }, 15_000);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/account`);
      const section = page.getByRole('region', { name: 'Usage' });
      await section.getByText('captures used').waitFor();
      expect(await section.locator('.usage-numbers').textContent()).toBe(`7 of ${usage.limit.toLocaleString('en')} captures used (<1%)`);
      expect(usage.limit).toBe(100_000);
      const meter = section.getByRole('meter', { name: 'Captures used this month' });
      expect(await meter.getAttribute('value')).toBe('7');
      expect(await meter.getAttribute('max')).toBe('100000');
      const facts = (await section.locator('dl').textContent()) ?? '';
      expect(facts).toContain('Planfree');
      expect(facts).toContain(`Remaining${(100_000 - 7).toLocaleString('en')}`);
      // periodEnd is the first day of next month (UTC).
      const now = new Date();
      const next = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() + 1, 1));
      expect(usage.periodEnd).toBe(next.getTime());
      expect(facts).toContain(`Resets${new Intl.DateTimeFormat('en', { dateStyle: 'long', timeZone: 'UTC' }).format(next)}`);
      expect(await section.locator('time').getAttribute('datetime')).toBe(next.toISOString());

      // More captures, then Refresh: the numbers follow.
      await fetch(`${ep.url}/more`, { method: 'POST' });
      await eventually(async () => (await call(h.url, 'GET', '/api/usage', { token: account.session })).body.used === 8, 15_000);
      await section.getByRole('button', { name: 'Refresh' }).click();
      await section.getByText('8 of 100,000 captures used').waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('delete account names the teams it owns and who loses access; teams it only belongs to are not named', async () => {
    const account = await signUpAccount(h.url);
    const members = [await signUpAccount(h.url), await signUpAccount(h.url)];
    const other = await signUpAccount(h.url);
    const crew = await createTeam(h.url, account.session, 'Ops crew');
    await createTeam(h.url, account.session, 'Just me');
    const theirs = await createTeam(h.url, other.session, 'Not mine');
    for (const team of [crew, theirs]) await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60, subscriptionId: `sub_${team.id}` });
    const join = async (owner: typeof account, teamId: string, member: typeof account) => {
      const inv = await call(h.url, 'POST', `/api/teams/${teamId}/invite`, { token: owner.session, body: { email: member.email } });
      expect(inv.status).toBe(201);
      expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: member.session })).status).toBe(200);
    };
    for (const m of members) await join(account, crew.id, m);
    await join(other, theirs.id, account);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/account`);
      const section = page.getByRole('region', { name: 'Delete account' });
      await section.getByText('The 2 teams you own are deleted too, and their members lose access to the endpoints shared there:').waitFor();
      const listed = section.getByRole('list', { name: 'Teams deleted with your account' }).getByRole('listitem');
      await listed.filter({ hasText: 'Ops crew: you and 2 members' }).waitFor();
      await listed.filter({ hasText: 'Just me: only you' }).waitFor();
      expect(await listed.count()).toBe(2);
      expect(await section.getByText('Not mine').count()).toBe(0);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('delete account: only with the email typed; then signed out and everything gone', async () => {
    const account = await signUpAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: account.session, body: { name: 'goes too' } })).body;
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/account`);
      const section = page.getByRole('region', { name: 'Delete account' });
      const confirm = section.getByLabel(/^Type your email address/);
      const button = section.getByRole('button', { name: 'Delete account' });
      await confirm.waitFor();
      expect(await button.isDisabled()).toBe(true);
      // No teams owned: none named.
      expect(await section.getByRole('list').count()).toBe(0);
      await confirm.fill('someone-else@example.com');
      expect(await button.isDisabled()).toBe(true);
      await confirm.press('Enter');
      expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(200);

      await confirm.fill(account.email);
      expect(await button.isDisabled()).toBe(false);
      await button.click();
      await page.getByRole('heading', { name: 'Sign in' }).waitFor();
      // The sign-in screen says why it is there: the deletion went through.
      await page.getByRole('status').filter({ hasText: `Your account ${account.email} is deleted, with its endpoints, captured requests and API keys.` }).waitFor();
      expect(new URL(page.url()).pathname).toBe('/');
      expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(401);
      expect((await fetch(`${ep.url}/after`, { method: 'POST' })).status).toBe(404);
      // Signing in again is refused: the account is gone.
      const again = await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'correct horse battery' } });
      expect(again.status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  /**
   * A dark 360 px page signed in with a long address (shown unbroken in several places) and an
   * endpoint with a long name. One test per page, so a failure names the page.
   */
  async function narrowPage() {
    const email = `averylongaddressforanarrowscreen${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
    const signUp = await call(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
    expect(signUp.status).toBe(201);
    const account = { email, session: signUp.body.token };
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: account.session, body: { name: 'a rather long endpoint name for a narrow phone screen' } })).body;
    const opened = await openPage(chromium(), h.url, account, { colorScheme: 'dark', viewport: { width: 360, height: 740 } });
    return { ...opened, ep };
  }

  test('settings at 360 px in the dark theme: nothing sideways, buttons on screen, every control named', async () => {
    const { page, context, errors, ep } = await narrowPage();
    try {
      await page.goto(`${h.url}/endpoints/${ep.slug}/settings`);
      await page.getByRole('heading', { name: 'Mock response' }).waitFor();
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 19, 24)');
      const mock = page.getByRole('region', { name: 'Mock response' });
      await mock.getByLabel('Headers').fill('set-cookie: x=y');
      await mock.getByRole('button', { name: 'Save' }).click();
      await mock.locator('.field-error').waitFor();
      await fitsNarrowScreen(page, ['Save', 'Send test']);
      expect(await unnamedControls(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('account at 360 px in the dark theme: nothing sideways, buttons on screen, every control named', async () => {
    const { page, context, errors } = await narrowPage();
    try {
      await page.goto(`${h.url}/account`);
      expect(await page.evaluate('getComputedStyle(document.body).backgroundColor')).toBe('rgb(17, 19, 24)');
      await page.getByRole('button', { name: 'Create key' }).click();
      await page.getByRole('region', { name: 'New API key' }).waitFor();
      await page.getByRole('meter', { name: 'Captures used this month' }).waitFor();
      await fitsNarrowScreen(page, ['Create key', 'Copy key', 'Delete account', 'Refresh']);
      await page.getByRole('button', { name: 'I have copied it' }).click();
      await page.getByRole('table', { name: 'Your API keys' }).waitFor();
      await fitsNarrowScreen(page, ['Create key', 'Delete account']);
      expect(await unnamedControls(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('teams at 360 px in the dark theme: nothing sideways, buttons on screen, every control named', async () => {
    const { page, context, errors } = await narrowPage();
    try {
      await page.goto(`${h.url}/teams`);
      await page.getByLabel('New team name').fill('A team with quite a long name indeed');
      await page.getByRole('button', { name: 'Create team' }).click();
      await page.getByRole('region', { name: 'Members' }).waitFor();
      await page.getByLabel('Email address to invite').fill('someone@example.com');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Teams subscription' }).first().waitFor();
      await fitsNarrowScreen(page, ['Invite', 'Share', 'Delete team', 'Rename team']);
      expect(await unnamedControls(page)).toEqual([]);
      await page.getByRole('link', { name: 'Teams', exact: true }).first().click();
      await page.getByRole('list', { name: 'Your teams' }).waitFor();
      await fitsNarrowScreen(page, ['Create team']);
      expect(await unnamedControls(page)).toEqual([]);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}, TEAMS_ENV, CHROMIUM_SKIP);
