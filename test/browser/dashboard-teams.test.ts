/**
 * Teams in real Chromium on both backends, driven by role and accessible name. One browser
 * context per account: an invite sent by the owner in one is accepted by a second account in
 * another, whose endpoint list then holds the shared endpoint, marked shared and read-only. A 402
 * (no active Teams subscription) is explained in words with what to do. Subscriptions are set as
 * production sets them, by signed Stripe webhook deliveries (teams-support.ts).
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { createTeam, joinTeam, mailTo, nowSeconds, paidTeam, setStripeSubscription, TEAMS_ENV, verificationToken } from '../behaviour/teams-support';
import { unnamedControls } from '../support/a11y';
import { openPage, signUpAccount, type Account, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();



/** Creates a team from the Teams page and returns its id (from the page's URL). */
async function createTeamInPage(page: Page, base: string, name: string): Promise<string> {
  await page.goto(`${base}/`);
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Teams' }).click();
  await page.getByLabel('New team name').fill(name);
  await page.getByRole('button', { name: 'Create team' }).click();
  await page.getByRole('heading', { name, level: 1 }).waitFor();
  const id = /\/teams\/(team_[^/]+)$/.exec(new URL(page.url()).pathname)?.[1];
  if (!id) throw new Error(`no team id in ${page.url()}`);
  return id;
}

async function invite(base: string, owner: Account, teamId: string, email: string): Promise<string> {
  const r = await call(base, 'POST', `/api/teams/${teamId}/invite`, { token: owner.session, body: { email } });
  if (r.status !== 201) throw new Error(`invite: ${r.status} ${r.text}`);
  return r.body.id;
}

describeBackends(
  'dashboard: teams',
  (h) => {
    test('an invite sent in one browser is accepted in another; the shared endpoint is listed there as shared and read-only', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, owner, 'Payments prod');
      const o = await openPage(chromium(), h.url, owner);
      const m = await openPage(chromium(), h.url, member);
      try {
        const teamId = await createTeamInPage(o.page, h.url, 'Ops crew');
        await setStripeSubscription(h.url, { teamId, seats: 5, created: nowSeconds() - 60 });
        await o.page.reload();
        const subscription = o.page.getByRole('region', { name: 'Subscription' });
        expect(await subscription.locator('dl').textContent()).toContain('active');
        expect(await subscription.locator('dl').textContent()).toContain('1 of 5 taken: 1 member (the owner included). 4 free.');

        // Share an endpoint, then invite the second account.
        const shared = o.page.getByRole('region', { name: 'Shared endpoints' });
        await shared.getByLabel('Endpoint to share').selectOption({ label: 'Payments prod' });
        await shared.getByRole('button', { name: 'Share' }).click();
        await shared.getByRole('list', { name: 'Shared endpoints' }).getByRole('link', { name: 'Payments prod' }).waitFor();
        const members = o.page.getByRole('region', { name: 'Members' });
        await members.getByLabel('Email address to invite').fill(member.email);
        await members.getByRole('button', { name: 'Invite', exact: true }).click();
        await members.getByRole('list', { name: 'Pending invites' }).getByText(member.email).waitFor();

        // The second account, in its own browser context.
        await m.page.goto(`${h.url}/teams`);
        const invites = m.page.getByRole('list', { name: 'Invites for you' });
        expect(await invites.textContent()).toContain(`${owner.email} invited you`);
        // An invite lasts INVITE_TTL_DAYS (7): a time to come, not "just now".
        expect(await invites.textContent()).toContain('Expires in 7d.');
        await invites.getByRole('button', { name: 'Accept the invite to Ops crew' }).click();
        await m.page.getByRole('heading', { name: 'Ops crew', level: 1 }).waitFor();
        await m.page.getByText(`You are its member; its owner is ${owner.email}.`).waitFor();
        // Members see no owner controls.
        expect(await m.page.getByRole('button', { name: 'Rename team' }).count()).toBe(0);
        expect(await m.page.getByLabel('Email address to invite').count()).toBe(0);

        await m.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
        const list = m.page.getByRole('list', { name: 'Shared with you' });
        const card = list.getByRole('listitem').filter({ hasText: 'Payments prod' });
        await card.waitFor();
        const text = (await card.textContent()) ?? '';
        expect(text).toContain('shared');
        expect(text).toContain('read-only');
        expect(text).toContain(`Shared by ${owner.email} through Ops crew`);
        expect(text).toContain(ep.url);
        expect(await unnamedControls(m.page)).toEqual([]);

        // Its page: requests arrive live; no rename, clear or delete.
        await card.getByRole('link', { name: 'Payments prod', exact: true }).click();
        await m.page.getByRole('heading', { name: 'Payments prod', level: 1 }).waitFor();
        await m.page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
        await fetch(`${ep.url}/for-the-team`, { method: 'POST', body: 'hello team' });
        await m.page.getByRole('link', { name: /\/for-the-team/ }).waitFor();
        for (const name of ['Rename', 'Clear captures', 'Delete endpoint']) expect(await m.page.getByRole('button', { name }).count()).toBe(0);

        // Search finds it too, named, with its own URL in the detail. Search reads the capture
        // store, which trails the live stream by up to SHIP_MAX_AGE_MS on the server backend.
        await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?q=${encodeURIComponent('hello team')}`, { token: member.session })).body.count === 1);
        await m.page.goto(`${h.url}/search?q=${encodeURIComponent('hello team')}`);
        const found = m.page.getByRole('list', { name: 'Search results' }).getByRole('link', { name: /\/for-the-team/ });
        await found.filter({ hasText: 'Payments prod' }).waitFor();
        await found.click();
        await m.page.getByRole('article').getByText(`${ep.url}/for-the-team`).waitFor();
        expect(await m.page.getByLabel('Endpoint').locator('option').allTextContents()).toContain('Payments prod');
        await m.page.goBack();
        await m.page.goBack();
        await m.page.getByRole('heading', { name: 'Payments prod', level: 1 }).waitFor();

        // Its settings: read-only, nothing to save or send.
        await m.page.getByRole('link', { name: 'Settings', exact: true }).click();
        await m.page.getByRole('heading', { name: 'Shared with you: read-only' }).waitFor();
        expect(await m.page.getByRole('button', { name: 'Save' }).count()).toBe(0);
        expect(await m.page.getByRole('button', { name: 'Send test' }).count()).toBe(0);

        // The owner sees the new member.
        await o.page.reload();
        await o.page.getByRole('list', { name: 'Members' }).getByText(member.email).waitFor();
        expect(await unnamedControls(o.page)).toEqual([]);

        // The member leaves (after a confirmation); the shared endpoint leaves their list.
        await m.page.goto(`${h.url}/teams/${teamId}`);
        await m.page.getByRole('button', { name: 'Leave team' }).click();
        await m.page.getByRole('dialog', { name: 'Leave Ops crew?' }).getByRole('button', { name: 'Leave' }).click();
        await m.page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
        await m.page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Endpoints' }).click();
        await m.page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();
        await eventually(async () => (await m.page.getByRole('list', { name: 'Shared with you' }).count()) === 0);
        expect(o.errors).toEqual([]);
        expect(m.errors).toEqual([]);
      } finally {
        await o.context.close();
        await m.context.close();
      }
    });

    test('a member watching a shared endpoint is removed: the live list stops and says why; the team page and a withdrawn invite explain themselves', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const memberId = (await call(h.url, 'GET', '/api/auth/me', { token: member.session })).body.id;
      const ep = await createEndpoint(h.url, owner, 'Billing hooks');
      const team = await createTeam(h.url, owner.session, 'Night shift');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60 });
      await call(h.url, 'POST', `/api/invites/${await invite(h.url, owner, team.id, member.email)}/accept`, { token: member.session });
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: ep.id } })).status).toBe(201);
      const m = await openPage(chromium(), h.url, member);
      try {
        await m.page.goto(`${h.url}/endpoints/${ep.slug}`);
        await m.page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
        await fetch(`${ep.url}/before-removal`, { method: 'POST', body: 'seen' });
        await m.page.getByRole('link', { name: /\/before-removal/ }).waitFor();

        // Removed while watching: the stream ends with its reason, and the page says it in words.
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/members/${memberId}`, { token: owner.session })).status).toBe(204);
        const why = 'You can no longer read this endpoint: your team access to it ended';
        await m.page.getByText(why).waitFor({ timeout: 5_000 });
        await m.page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Stream ended' }).waitFor();
        // The list's next read gets a 404; the reason already given stays (it says more).
        await m.page.waitForTimeout(3_500);
        expect(await m.page.getByText(why).count()).toBe(1);
        expect(await m.page.getByText('This endpoint no longer exists').count()).toBe(0);
        // What was captured before stays on screen.
        expect(await m.page.getByRole('link', { name: /\/before-removal/ }).count()).toBe(1);

        // The team's page: not a bare "team not found".
        await m.page.goto(`${h.url}/teams/${team.id}`);
        const alert = m.page.getByRole('alert').filter({ hasText: 'You are not a member of this team.' });
        await alert.waitFor();
        expect(await alert.textContent()).toContain('you left it or were removed from it');
        await alert.getByRole('link', { name: 'Your teams' }).click();
        await m.page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();

        // Invited again, but the owner withdraws it while the page is open: Accept is refused, and
        // the refusal stays on screen after the invite leaves the list.
        // Invites are per address: signed in as the member, the owner's own page lists none and says why.
        await m.page.getByText(`No invites for ${member.email}. An invite shows only to the account with the address it was sent to`).waitFor();
        const again = await invite(h.url, owner, team.id, member.email);
        await m.page.reload();
        const accept = m.page.getByRole('button', { name: 'Accept the invite to Night shift' });
        await accept.waitFor();
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${again}`, { token: owner.session })).status).toBe(204);
        await accept.click();
        const refused = m.page.getByRole('region', { name: 'Invites for you' }).getByRole('alert');
        // First under the invite's row; once the list is read again the row is gone, and the
        // refusal stays above the list, naming the invite.
        await refused.filter({ hasText: `the invite to Night shift from ${owner.email}` }).waitFor();
        expect(await accept.count()).toBe(0);
        expect(await refused.count()).toBe(1);
        expect(await refused.textContent()).toContain("the team's owner withdrew this invite; ask them to invite you again");
        expect(await m.page.getByRole('heading', { name: 'Teams', level: 1 }).count()).toBe(1);
        expect(m.errors).toEqual([]);
      } finally {
        await m.context.close();
      }
    });

    test('someone without an account follows the invite mail\'s link, creates an account from there, and lands on the invite', async () => {
      const owner = await signUpAccount(h.url);
      const team = await createTeam(h.url, owner.session, 'Newcomers');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60 });
      const email = `newcomer${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
      await invite(h.url, owner, team.id, email);
      const link = /(http:\/\/\S+\/teams)\b/.exec(mailTo(h.server.dataDir, email)[0]?.text ?? '')?.[1];
      expect(link).toBe(`${h.url}/teams`);
      const p = await openPage(chromium(), h.url, null);
      try {
        await p.page.goto(link ?? '');
        await p.page.getByRole('heading', { name: 'Sign in', level: 1 }).waitFor();
        await p.page.getByRole('link', { name: 'Create an account' }).click();
        await p.page.getByRole('heading', { name: 'Create an account', level: 1 }).waitFor();
        await p.page.getByLabel('Email').fill(email);
        await p.page.getByLabel('Password (at least 8 characters)').fill('correct horse battery');
        await p.page.getByRole('button', { name: 'Sign up' }).click();
        // Where the mail sent them, not the home page.
        await p.page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
        expect(new URL(p.page.url()).pathname).toBe('/teams');
        await p.page.getByRole('button', { name: 'Accept the invite to Newcomers' }).click();
        await p.page.getByRole('heading', { name: 'Newcomers', level: 1 }).waitFor();
        expect(p.errors).toEqual([]);
      } finally {
        await p.context.close();
      }
    });

    test('past TEAM_LIMIT owned teams, the create form says so in words and creates nothing', async () => {
      const owner = await signUpAccount(h.url);
      for (const name of ['First', 'Second']) await createTeam(h.url, owner.session, name);
      const o = await openPage(chromium(), h.url, owner);
      try {
        await o.page.goto(`${h.url}/teams`);
        await o.page.getByRole('list', { name: 'Your teams' }).getByRole('link', { name: 'Second' }).waitFor();
        await o.page.getByLabel('New team name').fill('Third');
        await o.page.getByRole('button', { name: 'Create team' }).click();
        const told = o.page.getByRole('alert').filter({ hasText: 'the most one account may own' });
        await told.waitFor();
        expect(await told.textContent()).toBe('You already own 2 teams, the most one account may own. Delete a team you no longer need (on its page), then create this one.');
        // Still on the Teams page, with the two teams.
        expect(new URL(o.page.url()).pathname).toBe('/teams');
        expect((await call(h.url, 'GET', '/api/teams', { token: owner.session })).body.length).toBe(2);
        expect(o.errors).toEqual([]);
      } finally {
        await o.context.close();
      }
    });

    test('a 402 is explained in plain words with what to do, for the owner and for an invitee', async () => {
      const owner = await signUpAccount(h.url);
      const invitee = await signUpAccount(h.url);
      await createEndpoint(h.url, owner, 'Unshareable');
      const o = await openPage(chromium(), h.url, owner);
      const i = await openPage(chromium(), h.url, invitee);
      try {
        const teamId = await createTeamInPage(o.page, h.url, 'Unpaid');
        const subscription = o.page.getByRole('region', { name: 'Subscription' });
        expect(await subscription.textContent()).toContain('not active');
        // No subscription, no seats: said as such, not as "0: 1 taken" (the owner takes one).
        const seats = subscription.getByRole('definition').filter({ hasText: 'None yet' });
        expect(await seats.textContent()).toBe('None yet. Each member takes one, the owner included (1 so far).');

        const members = o.page.getByRole('region', { name: 'Members' });
        await members.getByLabel('Email address to invite').fill(invitee.email);
        await members.getByRole('button', { name: 'Invite', exact: true }).click();
        const explained = members.getByRole('alert').filter({ hasText: 'Teams subscription' });
        await explained.waitFor();
        const words = (await explained.textContent()) ?? '';
        expect(words).toContain("This team's Teams subscription is not active.");
        expect(words).toContain('Inviting someone needs an active Teams subscription (12 USD per seat per month).');
        expect(words).toContain('What to do: start or renew the subscription.');
        // Words, not the raw error.
        expect(words).not.toContain('402');
        expect(words).not.toContain('payment_required');

        const shared = o.page.getByRole('region', { name: 'Shared endpoints' });
        await shared.getByRole('button', { name: 'Share' }).click();
        await shared.getByRole('alert').filter({ hasText: 'Sharing an endpoint needs an active Teams subscription' }).waitFor();

        // An invitee whose invite was sent while the team was paid, accepting after it lapsed.
        await setStripeSubscription(h.url, { teamId, seats: 3, created: nowSeconds() - 120, subscriptionId: `sub_${teamId}` });
        await invite(h.url, owner, teamId, invitee.email);
        await setStripeSubscription(h.url, { teamId, type: 'customer.subscription.updated', status: 'past_due', seats: 3, created: nowSeconds() - 60, subscriptionId: `sub_${teamId}` });
        await i.page.goto(`${h.url}/teams`);
        await i.page.getByRole('button', { name: 'Accept the invite to Unpaid' }).click();
        const told = i.page.getByRole('alert').filter({ hasText: 'Teams subscription' });
        await told.waitFor();
        expect(await told.textContent()).toContain(`What to do: ask the team's owner (${owner.email}) to renew the subscription, then try again.`);
        // Nothing happened: still invited, not a member.
        expect((await call(h.url, 'GET', '/api/invites', { token: invitee.session })).body.length).toBe(1);
        // The owner's page: a lapsed subscription does not "renew"; it has a period end.
        await o.page.reload();
        const facts = subscription.getByRole('term');
        await subscription.getByText('past_due').waitFor();
        expect(await facts.allTextContents()).toEqual(['Status', 'Seats', 'Price', 'Period ends']);
        expect((await call(h.url, 'GET', '/api/teams', { token: invitee.session })).body).toEqual([]);

        // A full team says so too: every seat taken.
        await setStripeSubscription(h.url, { teamId, type: 'customer.subscription.updated', status: 'active', seats: 2, created: nowSeconds() - 30, subscriptionId: `sub_${teamId}` });
        await o.page.reload();
        await subscription.getByRole('term').filter({ hasText: 'Renews' }).waitFor();
        await members.getByLabel('Email address to invite').fill(`third-${Date.now()}@example.com`);
        await members.getByRole('button', { name: 'Invite', exact: true }).click();
        await members.getByRole('alert').filter({ hasText: "Every seat of this team's Teams subscription is taken." }).waitFor();
        expect(o.errors).toEqual([]);
        expect(i.errors).toEqual([]);
      } finally {
        await o.context.close();
        await i.context.close();
      }
    });

    test('rename, withdraw an invite, decline one, remove a member, unshare and delete the team', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const decliner = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, owner, 'Orders');
      const team = await createTeam(h.url, owner.session, 'Before');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 10, created: nowSeconds() - 60 });
      const accepted = await invite(h.url, owner, team.id, member.email);
      expect((await call(h.url, 'POST', `/api/invites/${accepted}/accept`, { token: member.session })).status).toBe(200);
      await invite(h.url, owner, team.id, decliner.email);
      await invite(h.url, owner, team.id, 'nobody-yet@example.com');
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: ep.id } })).status).toBe(201);

      const o = await openPage(chromium(), h.url, owner);
      const d = await openPage(chromium(), h.url, decliner);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        await o.page.getByRole('button', { name: 'Rename team' }).click();
        await o.page.getByLabel('Team name').fill('After');
        await o.page.getByRole('button', { name: 'Save' }).click();
        await o.page.getByRole('heading', { name: 'After', level: 1 }).waitFor();
        expect((await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.session })).body.name).toBe('After');

        // The invitee declines in their own browser.
        await d.page.goto(`${h.url}/teams`);
        await d.page.getByRole('button', { name: 'Decline the invite to After' }).click();
        await eventually(async () => (await d.page.getByRole('list', { name: 'Invites for you' }).count()) === 0);
        expect((await call(h.url, 'GET', '/api/invites', { token: decliner.session })).body).toEqual([]);

        await o.page.reload();
        const pending = o.page.getByRole('list', { name: 'Pending invites' });
        await pending.getByText('nobody-yet@example.com').waitFor();
        expect(await pending.textContent()).not.toContain(decliner.email);
        await o.page.getByRole('button', { name: 'Withdraw the invite to nobody-yet@example.com' }).click();
        await pending.waitFor({ state: 'detached' });

        const memberList = o.page.getByRole('list', { name: 'Members' });
        await memberList.getByRole('button', { name: `Remove ${member.email}` }).click();
        await o.page.getByRole('dialog', { name: `Remove ${member.email} from After?` }).getByRole('button', { name: 'Remove' }).click();
        await memberList.getByText(member.email).waitFor({ state: 'detached' });
        expect((await call(h.url, 'GET', `/api/teams/${team.id}/members`, { token: owner.session })).body.members.map((x) => x.email)).toEqual([owner.email]);

        await o.page.getByRole('button', { name: 'Unshare Orders' }).click();
        await o.page.getByText('No endpoint is shared with this team yet.').waitFor();
        expect((await call(h.url, 'GET', `/api/teams/${team.id}/endpoints`, { token: owner.session })).body).toEqual([]);

        await o.page.getByRole('button', { name: 'Delete team' }).click();
        await o.page.getByRole('dialog', { name: 'Delete After?' }).getByRole('button', { name: 'Delete' }).click();
        await o.page.getByRole('heading', { name: 'Teams', level: 1 }).waitFor();
        await o.page.getByText('You are not in any team yet.').waitFor();
        expect((await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.session })).status).toBe(404);
        expect(o.errors).toEqual([]);
        expect(d.errors).toEqual([]);
      } finally {
        await o.context.close();
        await d.context.close();
      }
    });

    test("the owner's page, back in view, shows an invite accepted elsewhere as a member without a reload", async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Watchers');
      const inviteId = await invite(h.url, owner, team.id, member.email);
      const o = await openPage(chromium(), h.url, owner);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        const pending = o.page.getByRole('list', { name: 'Pending invites' });
        await pending.getByText(member.email).waitFor();
        // Accepted elsewhere while the owner looks at another tab; no stream tells this page.
        expect((await call(h.url, 'POST', `/api/invites/${inviteId}/accept`, { token: member.session })).status).toBe(200);
        // The tab comes back into view (what the browser fires when its tab is shown again).
        await o.page.evaluate("document.dispatchEvent(new Event('visibilitychange', { bubbles: true }))");
        const members = o.page.getByRole('list', { name: 'Members' });
        expect(await eventually(async () => (await members.getByText(member.email).count()) === 1, 3_000).catch(() => false)).toBe(true);
        expect(await pending.count()).toBe(0);
        expect(o.errors).toEqual([]);
      } finally {
        await o.context.close();
      }
    });

    test('an endpoint shared with me while my home page is open is listed when the tab comes back into view, at most every 30 s, the list kept meanwhile', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Sharers');
      await joinTeam(h.url, owner, team, member);
      const invoices = await createEndpoint(h.url, owner, 'Invoices');
      const refunds = await createEndpoint(h.url, owner, 'Refunds');
      await createEndpoint(h.url, member, 'Mine');
      const share = async (endpointId: string) =>
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId } })).status).toBe(201);
      await share(invoices.id);
      const m = await openPage(chromium(), h.url, member);
      const teamReads: string[] = [];
      m.page.on('request', (r) => {
        const path = new URL(r.url()).pathname;
        if (path.startsWith('/api/teams')) teamReads.push(path);
      });
      // The tab comes back into view (as the owner's page test does), then a request of our own:
      // any read the return started was sent before it, so an empty list of reads means none.
      const backInView = async () => {
        await m.page.evaluate("document.dispatchEvent(new Event('visibilitychange', { bubbles: true }))");
        await m.page.evaluate("fetch('/healthz').then((r) => r.status)");
      };
      try {
        // The page's clock, moved by hand: 30 s pass without the test waiting them.
        await m.page.clock.install();
        await m.page.goto(`${h.url}/`);
        const list = m.page.getByRole('list', { name: 'Shared with you' });
        await list.getByRole('link', { name: 'Invoices', exact: true }).waitFor();
        // Any moment the list leaves the page (a flicker while it is read again) is recorded.
        await m.page.evaluate(`(() => {
          window.sharedListLeft = false;
          new MutationObserver(() => {
            if (!document.querySelector('ul[aria-label="Shared with you"] a')) window.sharedListLeft = true;
          }).observe(document.body, { childList: true, subtree: true });
        })()`);

        // Shared elsewhere while the page is open. 15 s on (past the 10 s the cache counts as
        // fresh, before the 30 s), a return asks nothing.
        await share(refunds.id);
        teamReads.length = 0;
        await m.page.clock.fastForward(15_000);
        await backInView();
        expect(teamReads).toEqual([]);

        // 31 s on, a return reads the teams (1 + 2 × teams requests) and lists Refunds, no reload.
        await m.page.clock.fastForward(16_000);
        await backInView();
        await list.getByRole('link', { name: 'Refunds', exact: true }).waitFor({ timeout: 5_000 });
        expect(teamReads.sort()).toEqual(['/api/teams', `/api/teams/${team.id}`, `/api/teams/${team.id}/endpoints`]);
        expect(await m.page.evaluate('window.sharedListLeft')).toBe(false);

        // A read that fails shows its error above the list it had, not in its place.
        await m.page.route('**/api/teams**', (route) => route.abort('connectionrefused'));
        await m.page.clock.fastForward(31_000);
        await backInView();
        await m.page.getByRole('region', { name: 'Shared with you' }).getByRole('alert').filter({ hasText: 'Cannot reach the server' }).waitFor({ timeout: 15_000 });
        expect(await list.getByRole('link', { name: /^(Invoices|Refunds)$/ }).allTextContents()).toEqual(['Refunds', 'Invoices']);
        expect(await m.page.evaluate('window.sharedListLeft')).toBe(false);
        await m.page.unroute('**/api/teams**');

        // Away from the list (my own endpoint's page), a return reads nothing about teams.
        await m.page.getByRole('link', { name: 'Requests of Mine' }).click();
        await m.page.getByRole('heading', { name: 'Mine', level: 1 }).waitFor();
        teamReads.length = 0;
        await m.page.clock.fastForward(31_000);
        await backInView();
        expect(teamReads).toEqual([]);
        expect(m.errors).toEqual([]);
      } finally {
        await m.context.close();
      }
      // The failed read is retried twice (1 s, then 2 s) before its error shows.
    }, 30_000);

    test("a member removed elsewhere who clicks Leave team is told they are no longer in the team, not a bare 'team not found'; back in it, the page is whole again", async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Revolving');
      await joinTeam(h.url, owner, team, member);
      await createEndpoint(h.url, member, 'Member hooks');
      const m = await openPage(chromium(), h.url, member);
      try {
        await m.page.goto(`${h.url}/teams/${team.id}`);
        const leaving = m.page.getByRole('region', { name: 'Leave team' });
        await leaving.getByRole('button', { name: 'Leave team' }).waitFor();
        // Removed by the owner elsewhere; the page has not read that again, so Leave is refused (404).
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/members/${member.userId}`, { token: owner.key })).status).toBe(204);
        await leaving.getByRole('button', { name: 'Leave team' }).click();
        await m.page.getByRole('dialog', { name: 'Leave Revolving?' }).getByRole('button', { name: 'Leave' }).click();
        // The refusal makes the page read the team again: it says why, in its own words.
        await m.page.getByRole('alert').filter({ hasText: 'You are not a member of this team.' }).waitFor();
        expect(await m.page.getByText('team not found').count()).toBe(0);
        expect(await m.page.getByRole('region', { name: 'Leave team' }).count()).toBe(0);

        // Invited back and accepted elsewhere: the page, read again, is the team's once more.
        await joinTeam(h.url, owner, team, member);
        await m.page.reload();
        const shared = m.page.getByRole('region', { name: 'Shared endpoints' });
        await shared.getByLabel('Endpoint to share').selectOption({ label: 'Member hooks' });
        await shared.getByRole('button', { name: 'Share', exact: true }).click();
        await shared.getByRole('list', { name: 'Shared endpoints' }).getByRole('link', { name: 'Member hooks' }).waitFor();
        expect(m.errors).toEqual([]);
      } finally {
        await m.context.close();
      }
    });

    test("an invite's refusal goes once the owner shares an endpoint on the same page, and a share's once an invite is sent", async () => {
      const owner = await signUpAccount(h.url);
      await createEndpoint(h.url, owner, 'Billing');
      const shipping = await createEndpoint(h.url, owner, 'Shipping');
      const team = await createTeam(h.url, owner.session, 'Tidy');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60 });
      const o = await openPage(chromium(), h.url, owner);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        const members = o.page.getByRole('region', { name: 'Members' });
        const inviteField = members.getByLabel('Email address to invite');
        await inviteField.fill('not-an-address');
        await members.getByRole('button', { name: 'Invite', exact: true }).click();
        const refusal = members.getByRole('alert');
        await refusal.waitFor();
        expect(await inviteField.getAttribute('aria-invalid')).toBe('true');

        const shared = o.page.getByRole('region', { name: 'Shared endpoints' });
        await shared.getByLabel('Endpoint to share').selectOption({ label: 'Billing' });
        await shared.getByRole('button', { name: 'Share' }).click();
        await shared.getByRole('list', { name: 'Shared endpoints' }).getByRole('link', { name: 'Billing' }).waitFor();
        // Left in place, it would read as the share's outcome.
        expect(await eventually(async () => (await refusal.count()) === 0, 2_000).catch(() => false)).toBe(true);
        expect(await inviteField.getAttribute('aria-invalid')).toBeNull();

        // The other way round: the share refused (the endpoint went meanwhile), then an invite sent.
        expect((await call(h.url, 'DELETE', `/api/endpoints/${shipping.slug}`, { token: owner.session })).status).toBe(204);
        await shared.getByRole('button', { name: 'Share', exact: true }).click();
        const shareRefusal = shared.getByRole('alert');
        await shareRefusal.waitFor();
        await inviteField.fill('colleague@example.com');
        await members.getByRole('button', { name: 'Invite', exact: true }).click();
        await members.getByRole('list', { name: 'Pending invites' }).getByText('colleague@example.com').waitFor();
        expect(await eventually(async () => (await shareRefusal.count()) === 0, 2_000).catch(() => false)).toBe(true);
        expect(o.errors).toEqual([]);
      } finally {
        await o.context.close();
      }
    });

    test('the refusals of Rename team (also gone when it is opened again), the confirmed-members switch, Remove, Withdraw and Unshare go once a later change to the team succeeds', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Refused');
      // The member's address is unproven: turning the switch on is refused (409).
      await joinTeam(h.url, owner, team, member);
      const inviteId = await invite(h.url, owner, team.id, 'later@example.com');
      const orders = await createEndpoint(h.url, owner, 'Orders');
      await createEndpoint(h.url, owner, 'Billing');
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: orders.id } })).status).toBe(201);
      const o = await openPage(chromium(), h.url, owner);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        const members = o.page.getByRole('region', { name: 'Members' });
        const shared = o.page.getByRole('region', { name: 'Shared endpoints' });
        await members.getByRole('list', { name: 'Pending invites' }).getByText('later@example.com').waitFor();

        await members.getByRole('checkbox', { name: 'Only members with a confirmed address' }).click();
        await members.getByRole('alert').filter({ hasText: 'Not turned on' }).waitFor();

        // Meanwhile, elsewhere: the member leaves, the invite is withdrawn, Orders is unshared.
        // The page has not read that again, so its Remove, Withdraw and Unshare are each refused.
        expect((await call(h.url, 'POST', `/api/teams/${team.id}/leave`, { token: member.key })).status).toBe(204);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/invites/${inviteId}`, { token: owner.key })).status).toBe(204);
        expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/endpoints/${orders.id}`, { token: owner.key })).status).toBe(204);
        await members.getByRole('button', { name: `Remove ${member.email}` }).click();
        await o.page.getByRole('dialog', { name: `Remove ${member.email} from Refused?` }).getByRole('button', { name: 'Remove' }).click();
        await eventually(async () => (await members.getByRole('alert').count()) === 2);
        await members.getByRole('button', { name: 'Withdraw the invite to later@example.com' }).click();
        await eventually(async () => (await members.getByRole('alert').count()) === 3);
        await shared.getByRole('button', { name: 'Unshare Orders' }).click();
        await shared.getByRole('alert').waitFor();

        const renameRefused = o.page.getByRole('alert').filter({ hasText: 'Must not be empty' });
        await o.page.getByRole('button', { name: 'Rename team' }).click();
        await o.page.getByLabel('Team name').fill(' ');
        await o.page.getByRole('button', { name: 'Save' }).click();
        await renameRefused.waitFor();
        // Cancelled and opened again, the form is about the team's name, not the blank one refused.
        await o.page.getByRole('button', { name: 'Cancel' }).click();
        await o.page.getByRole('button', { name: 'Rename team' }).click();
        expect(await o.page.getByLabel('Team name').inputValue()).toBe('Refused');
        expect(await renameRefused.count()).toBe(0);
        await o.page.getByLabel('Team name').fill(' ');
        await o.page.getByRole('button', { name: 'Save' }).click();
        await renameRefused.waitFor();
        const left = async () => (await o.page.getByRole('alert').allTextContents()).filter((t) => t.trim() !== '');
        expect(await left()).toHaveLength(5);

        // A later change succeeds (Billing shared): the five refusals would read as its outcome.
        await shared.getByLabel('Endpoint to share').selectOption({ label: 'Billing' });
        await shared.getByRole('button', { name: 'Share', exact: true }).click();
        await shared.getByRole('list', { name: 'Shared endpoints' }).getByRole('link', { name: 'Billing' }).waitFor();
        await eventually(async () => (await left()).length === 0, 3_000).catch(() => undefined);
        expect(await left()).toEqual([]);
        expect(await o.page.getByLabel('Team name').getAttribute('aria-invalid')).toBeNull();
        expect(o.errors).toEqual([]);
      } finally {
        await o.context.close();
      }
    });

    test('the member list marks a member whose address is not confirmed', async () => {
      const owner = await newAccount(h.url);
      const proven = await newAccount(h.url);
      const unproven = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Proofs');
      await joinTeam(h.url, owner, team, proven);
      await joinTeam(h.url, owner, team, unproven);
      const token = await verificationToken(h.server.dataDir, proven.email);
      expect((await call(h.url, 'POST', '/api/auth/verify-email', { body: { token } })).status).toBe(200);
      const o = await openPage(chromium(), h.url, owner);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        const list = o.page.getByRole('list', { name: 'Members' });
        const row = (email: string) => list.getByRole('listitem').filter({ hasText: email });
        await row(unproven.email).getByText('address not confirmed').waitFor();
        expect(await row(proven.email).getByText('address not confirmed').count()).toBe(0);
        expect(await row(owner.email).getByText('address not confirmed').count()).toBe(1);
        expect(o.errors).toEqual([]);
      } finally {
        await o.context.close();
      }
    });

    test('the owner takes only members with a confirmed address: the switch saves, a 409 names who is unproven, a refused accept says what to do', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const invitee = await newAccount(h.url);
      const team = await paidTeam(h.url, owner, 5, 'Gatekept');
      await joinTeam(h.url, owner, team, member);
      const setting = async () => (await call(h.url, 'GET', `/api/teams/${team.id}`, { token: owner.key })).body.confirmedMembersOnly;
      const o = await openPage(chromium(), h.url, owner);
      const i = await openPage(chromium(), h.url, invitee);
      try {
        await o.page.goto(`${h.url}/teams/${team.id}`);
        const members = o.page.getByRole('region', { name: 'Members' });
        const box = members.getByRole('checkbox', { name: 'Only members with a confirmed address' });
        expect(await box.isChecked()).toBe(false);
        // A member whose address is unproven: refused, named, and the box stays off.
        await box.click();
        const refused = members.getByRole('alert').filter({ hasText: 'Not turned on' });
        await refused.waitFor();
        expect(await refused.textContent()).toContain(`Not turned on: 1 member has not confirmed their address (${member.email}); remove them, or ask them to confirm it`);
        expect(await box.isChecked()).toBe(false);
        expect(await setting()).toBe(false);

        await members.getByRole('button', { name: `Remove ${member.email}` }).click();
        await o.page.getByRole('dialog', { name: `Remove ${member.email} from Gatekept?` }).getByRole('button', { name: 'Remove' }).click();
        await members.getByRole('list', { name: 'Members' }).getByText(member.email).waitFor({ state: 'detached' });
        await box.click();
        await eventually(async () => (await setting()) === true);
        await o.page.reload();
        expect(await box.isChecked()).toBe(true);
        expect(await members.getByRole('alert').count()).toBe(0);

        // The invitee, address unproven, is refused in words and stays invited.
        const inviteId = (await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email: invitee.email } })).body.id;
        await i.page.goto(`${h.url}/teams`);
        await i.page.getByRole('button', { name: 'Accept the invite to Gatekept' }).click();
        const told = i.page.getByRole('alert').filter({ hasText: 'confirmed address' });
        await told.waitFor();
        const words = (await told.textContent()) ?? '';
        expect(words).toContain('This team takes only members with a confirmed address, and yours is not confirmed yet.');
        expect(words).toContain('What to do: open the link we mailed you when you signed up, or send a new one with Resend verification email on the Account page; then accept again.');
        expect(words).not.toContain('address_not_confirmed');
        expect(words).not.toContain('403');
        expect(await told.getByRole('link', { name: 'Account page' }).getAttribute('href')).toBe('/account');
        expect((await call(h.url, 'GET', '/api/invites', { token: invitee.key })).body.map((x) => x.id)).toEqual([inviteId]);

        // Confirmed with the sign-up's link, the same button now joins.
        const token = await verificationToken(h.server.dataDir, invitee.email);
        expect((await call(h.url, 'POST', '/api/auth/verify-email', { body: { token } })).status).toBe(200);
        await i.page.getByRole('button', { name: 'Accept the invite to Gatekept' }).click();
        await i.page.getByRole('heading', { name: 'Gatekept', level: 1 }).waitFor();
        // A member sees the setting, not the switch.
        await i.page.getByRole('region', { name: 'Members' }).getByText('Only members with a confirmed address can join this team.').waitFor();
        expect(await i.page.getByRole('checkbox').count()).toBe(0);
        expect(o.errors).toEqual([]);
        expect(i.errors).toEqual([]);
      } finally {
        await o.context.close();
        await i.context.close();
      }
    });
  },
  // Two owned teams at most, so the cap is met in two calls (one team per account elsewhere here).
  { ...TEAMS_ENV, TEAM_LIMIT: '2' },
  CHROMIUM_SKIP,
);
