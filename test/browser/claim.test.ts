/**
 * The claim ceremony as a person goes through it, in headless Chromium (Debian's, driven by
 * playwright-core): the claim link or the typed code, a detour through log-in or sign-up when not
 * signed in, the page naming the agent and what its key may do, and the confirm button.
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { CHROMIUM_SKIP, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, registerAnonymous, signUp, uniqueEmail } from '../behaviour/agent-support';

const browser = useChromium();

async function newPage(): Promise<Page> {
  const context = await browser().newContext();
  const page = await context.newPage();
  // Any script dialog would mean markup from client_name ran.
  page.on('dialog', (d) => {
    throw new Error(`unexpected dialog: ${d.message()}`);
  });
  return page;
}

describeBackends(
  'agent claim pages in a browser',
  (h) => {
    test('claim link: a visitor signs up on the way, sees the agent and its scopes, and confirms', async () => {
      const clientName = 'Deploy <img src=x onerror=alert(1)> bot';
      const reg = await registerAnonymous(h.url, clientName);
      const page = await newPage();
      try {
        await page.goto(reg.claim_url);
        expect(new URL(page.url()).pathname).toBe('/agent/login');
        const email = uniqueEmail('browser');
        await page.fill('#signup-email', email);
        await page.fill('#signup-password', 'correct horse battery');
        await Promise.all([page.waitForURL(/\/agent\/claim\?token=/), page.click('#signup button[type=submit]')]);

        expect(await page.textContent('#client-name')).toBe(clientName);
        expect(await page.locator('img').count()).toBe(0);
        const scopes = await page.textContent('#scopes');
        expect(scopes).toContain('webhooks:read');
        expect(scopes).toContain('webhooks:write');
        expect(await page.textContent('body')).toContain(email);
        expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('pending');

        await page.click('#confirm');
        await page.waitForSelector('#claimed');
        expect(await page.textContent('#claimed')).toContain(clientName);

        const poll = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
        expect(poll.body.status).toBe('claimed');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: reg.credential })).body.email).toBe(email);

        // The same link again: already claimed.
        await page.goto(reg.claim_url);
        expect(await page.getAttribute('[role=alert]', 'data-code')).toBe('previously_claimed');
      } finally {
        await page.context().close();
      }
    });

    test('claim code: a user logs in on the way, types the code loosely, and confirms', async () => {
      const reg = await registerAnonymous(h.url, 'code-typing agent');
      const human = await signUp(h.url);
      const page = await newPage();
      try {
        await page.goto(`${h.url}/agent/claim`);
        expect(new URL(page.url()).pathname).toBe('/agent/login');
        // A wrong password first: the page says so and stays.
        await page.fill('#login-email', human.email);
        await page.fill('#login-password', 'not the password');
        await page.click('#login button[type=submit]');
        await page.waitForSelector('[role=alert]');
        // The address stays typed in the form that was refused (the other form's stays empty).
        expect(await page.getByRole('form', { name: 'Sign in' }).getByRole('textbox', { name: 'Email' }).inputValue()).toBe(human.email);
        expect(await page.getByRole('form', { name: 'Create an account' }).getByRole('textbox', { name: 'Email' }).inputValue()).toBe('');
        await page.fill('#login-email', human.email);
        await page.fill('#login-password', 'correct horse battery');
        await Promise.all([page.waitForURL(/\/agent\/claim$/), page.click('#login button[type=submit]')]);

        // A code that matches nothing keeps the form, with a message.
        await page.fill('#code', 'BCDF-GHJK');
        await page.click('#code-form button[type=submit]');
        await page.waitForSelector('[role=alert]');
        expect(await page.locator('#code').count()).toBe(1);
        // The code as typed, to check it against the agent's ("Check it and try again").
        expect(await page.getByRole('textbox', { name: 'Code' }).inputValue()).toBe('BCDF-GHJK');

        await page.fill('#code', reg.user_code.toLowerCase().replace('-', ' '));
        await page.click('#code-form button[type=submit]');
        await page.waitForSelector('#confirm');
        expect(await page.textContent('#client-name')).toBe('code-typing agent');
        await page.click('#confirm');
        await page.waitForSelector('#claimed');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: reg.credential })).body.id).toBe(human.userId);
      } finally {
        await page.context().close();
      }
    });

    test('by keyboard, found by role and accessible name: the two forms of the log-in page are told apart', async () => {
      const clientName = 'Keyboard "agent" </strong><b>bold</b> & co';
      const reg = await registerAnonymous(h.url, clientName);
      const page = await newPage();
      try {
        await page.goto(reg.claim_url);
        // Both forms have an "Email" field: each form has a name, so a screen reader (and a test) can tell them apart.
        const signup = page.getByRole('form', { name: 'Create an account' });
        expect(await page.getByRole('form', { name: 'Sign in' }).getByRole('textbox', { name: 'Email' }).count()).toBe(1);
        await signup.getByRole('textbox', { name: 'Email' }).fill(uniqueEmail('keyboard'));
        const password = signup.getByRole('textbox', { name: /^Password/ });
        await password.fill('correct horse battery');
        await Promise.all([page.waitForURL(/\/agent\/claim\?token=/), password.press('Enter')]);

        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Connect an AI agent to your account');
        // client_name is shown as text, markup and all.
        expect(await page.getByText(clientName, { exact: true }).count()).toBe(1);
        expect(await page.locator('b').count()).toBe(0);
        // The confirm button is the first stop of the Tab key, and Enter presses it.
        await page.keyboard.press('Tab');
        const confirm = page.getByRole('button', { name: 'Confirm and connect' });
        expect(await confirm.evaluate((el) => el === el.ownerDocument.activeElement)).toBe(true);
        await Promise.all([page.waitForURL(/\/agent\/claim$/), page.keyboard.press('Enter')]);
        expect(await page.getByRole('status').textContent()).toContain(clientName);
        expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('claimed');
        // The page is not a dead end: the key it names is a link away, as is the dashboard.
        expect(await page.getByRole('link', { name: 'Go to your endpoints' }).getAttribute('href')).toBe('/');
        await page.getByRole('link', { name: 'your API keys' }).click();
        await page.getByRole('heading', { name: 'API keys', level: 2 }).waitFor();
      } finally {
        await page.context().close();
      }
    });

    test('pages cannot be framed, are not cached, and keep the claim token off other sites', async () => {
      const reg = await registerAnonymous(h.url);
      const human = await signUp(h.url);
      const r = await fetch(reg.claim_url, { headers: { cookie: `session=${human.session}` } });
      expect(r.status).toBe(200);
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('content-security-policy')).toContain("frame-ancestors 'none'");
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('referrer-policy')).toBe('same-origin');
    });

    test('a cross-site form post is refused, and log-in only ever redirects back to a claim page', async () => {
      const reg = await registerAnonymous(h.url);
      const human = await signUp(h.url);
      const forged = await fetch(`${h.url}/agent/claim`, {
        method: 'POST',
        headers: { cookie: `session=${human.session}`, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ claim_token: reg.claim_token }).toString(),
        redirect: 'manual',
      });
      expect(forged.status).toBe(400);
      expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('pending');

      const login = await fetch(`${h.url}/agent/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: human.email, password: 'correct horse battery', next: 'https://evil.example/' }).toString(),
        redirect: 'manual',
      });
      expect(login.status).toBe(303);
      expect(login.headers.get('location')).toBe('/agent/claim');
      const crossSiteLogin = await fetch(`${h.url}/agent/login`, {
        method: 'POST',
        headers: { origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ email: human.email, password: 'correct horse battery' }).toString(),
        redirect: 'manual',
      });
      expect(crossSiteLogin.status).toBe(403);
      expect(crossSiteLogin.headers.get('set-cookie')).toBeNull();
    });
  },
  AGENT_ENV,
  CHROMIUM_SKIP,
);
