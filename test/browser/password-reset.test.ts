/**
 * The password-reset flow in real Chromium on both backends, by role and accessible name: "Forgot
 * password?" on the sign-in page, the address form, the link from the mail the server really sent,
 * the new password asked twice (a mismatch is an error on its field, which gets the focus), and
 * the visitor signed in with the new password while every older session ends (and told which account,
 * and that its API keys were revoked); the used link then says so and offers a new one. A link for
 * another account than the signed-in one asks before switching. A second link opened in the same tab
 * (a fragment change, not a page load) is the one used.
 */
import { expect, test } from 'bun:test';
import type { Locator } from 'playwright-core';
import { fieldState, unnamedControls } from '../support/a11y';
import { CHROMIUM_SKIP, openPage, signUpAccount, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV } from '../behaviour/agent-support';
import { resetLink } from '../behaviour/password-reset-support';

const chromium = useChromium();

const focused = (l: Locator) => l.evaluate((el) => el === el.ownerDocument.activeElement);

describeBackends(
  'dashboard: password reset',
  (h) => {
    test('forgot password → mailed link → new password twice → signed in; older sessions end; the link works once', async () => {
      const account = await signUpAccount(h.url);
      for (const name of ['ci', 'laptop']) expect((await call(h.url, 'POST', '/api/api-keys', { token: account.session, body: { name } })).status).toBe(201);
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        await page.goto(`${h.url}/signin`);
        await page.getByRole('link', { name: 'Forgot password?' }).click();
        await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/forgot-password');
        const ask = page.getByRole('form', { name: 'Reset your password' });
        await ask.getByLabel('Email').fill(account.email);
        await ask.getByRole('button', { name: 'Send reset link' }).click();
        const sent = page.getByRole('status').filter({ hasText: 'If an account exists' });
        await sent.waitFor();
        expect(await sent.textContent()).toContain(account.email);
        expect(await focused(sent)).toBe(true);
        expect(await unnamedControls(page)).toEqual([]);

        const { link, token } = await resetLink(h.server, account.email);
        await page.goto(link);
        const form = page.getByRole('form', { name: 'Choose a new password' });
        await form.waitFor();
        // The token left the address bar (and back/forward history) as soon as the page read it.
        expect(page.url()).toBe(`${h.url}/reset-password`);
        expect(page.url()).not.toContain(token);
        // The page names the account the link belongs to.
        await page.getByText(`For the account ${account.email}.`).waitFor();

        const password = form.getByLabel('New password (at least 8 characters)');
        const again = form.getByLabel('Confirm new password');
        const submit = form.getByRole('button', { name: 'Set new password' });
        await password.fill('a new passphrase');
        await again.fill('a new passphrase!');
        await submit.click();
        await form.getByRole('alert').filter({ hasText: 'The two passwords differ' }).waitFor();
        expect(await fieldState(again)).toEqual({ invalid: true, description: 'The two passwords differ. Type the same password twice.' });
        expect(await focused(again)).toBe(true);
        expect(await unnamedControls(page)).toEqual([]);

        await again.fill('a new passphrase');
        await submit.click();
        // Said plainly, with the focus on it: which account is signed in, and that the keys are gone.
        const done = page.getByRole('status').filter({ hasText: 'Your new password is set' });
        await done.waitFor();
        expect(await focused(done)).toBe(true);
        expect(await done.textContent()).toContain(`Signed in as ${account.email}`);
        expect(await done.textContent()).toContain('Your 2 API keys were revoked; create new ones in Account settings.');
        expect(await done.getByRole('link', { name: 'Account settings' }).getAttribute('href')).toBe('/account');
        expect(await unnamedControls(page)).toEqual([]);
        // Signed in with the new password: the dashboard itself, at home.
        await done.getByRole('link', { name: 'Continue to the dashboard' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(401);
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'correct horse battery' } })).status).toBe(401);
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'a new passphrase' } })).status).toBe(200);
        const cookie = (await context.cookies()).find((c) => c.name === 'session');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: cookie?.value ?? '' })).body.email).toBe(account.email);

        // The same link again: refused before any form, said plainly, with the way to a new one.
        await page.goto(link);
        const refused = page.getByRole('alert').filter({ hasText: 'invalid or has expired' });
        await refused.waitFor();
        expect(await form.count()).toBe(0);
        await refused.getByRole('link', { name: 'Ask for a new link' }).click();
        await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a short password is refused on its field, and a page without a token says what to do', async () => {
      const account = await signUpAccount(h.url);
      await call(h.url, 'POST', '/api/auth/password-reset', { body: { email: account.email } });
      const { link } = await resetLink(h.server, account.email);
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        await page.goto(link);
        const form = page.getByRole('form', { name: 'Choose a new password' });
        const password = form.getByLabel('New password (at least 8 characters)');
        await password.fill('short');
        await form.getByLabel('Confirm new password').fill('short');
        await form.getByRole('button', { name: 'Set new password' }).click();
        await form.getByRole('alert').filter({ hasText: 'at least 8 characters' }).waitFor();
        expect((await fieldState(password)).invalid).toBe(true);
        expect(await focused(password)).toBe(true);

        await page.goto(`${h.url}/reset-password`);
        await page.getByRole('alert').filter({ hasText: 'needs the link from the password-reset mail' }).waitFor();
        await page.getByRole('link', { name: 'ask for a new link' }).click();
        await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a second link opened in the same tab (only the fragment changes, no page load) is the one used', async () => {
      const account = await signUpAccount(h.url);
      // Asked twice: the newer link replaces the first.
      for (let i = 0; i < 2; i++) await call(h.url, 'POST', '/api/auth/password-reset', { body: { email: account.email } });
      const first = await resetLink(h.server, account.email, 1);
      const second = await resetLink(h.server, account.email, 2);
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        await page.goto(first.link);
        await page.getByRole('alert').filter({ hasText: 'This link is invalid or has expired' }).waitFor();
        // The same document must read the new fragment: a page load would hide the bug.
        await page.evaluate('window.__samePage = true');
        await page.goto(second.link);
        const form = page.getByRole('form', { name: 'Choose a new password' });
        await form.waitFor();
        expect(await page.evaluate('window.__samePage')).toBe(true);
        expect(page.url()).toBe(`${h.url}/reset-password`);
        await form.getByLabel('New password (at least 8 characters)').fill('second link passphrase');
        await form.getByLabel('Confirm new password').fill('second link passphrase');
        await form.getByRole('button', { name: 'Set new password' }).click();
        await page.getByRole('status').filter({ hasText: 'Your new password is set' }).waitFor();
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'second link passphrase' } })).status).toBe(200);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a link for another account than the signed-in one asks before switching (Cancel keeps the session)', async () => {
      const victim = await signUpAccount(h.url);
      const other = await signUpAccount(h.url);
      // Someone mails a reset link of their own account, and the signed-in victim opens it.
      await call(h.url, 'POST', '/api/auth/password-reset', { body: { email: other.email } });
      const { link } = await resetLink(h.server, other.email);
      const { page, context, errors } = await openPage(chromium(), h.url, victim);
      const signedInAs = async () => (await call(h.url, 'GET', '/api/auth/me', { token: (await context.cookies()).find((c) => c.name === 'session')?.value ?? '' })).body.email;
      try {
        await page.goto(link);
        const prompt = page.getByRole('alert').filter({ hasText: `This browser is signed in as ${victim.email}` });
        await prompt.waitFor();
        expect(await prompt.textContent()).toContain(`this link sets the password of ${other.email}`);
        expect(await focused(prompt)).toBe(true);
        // Nothing to type a password into before the visitor has chosen.
        expect(await page.getByRole('form', { name: 'Choose a new password' }).count()).toBe(0);
        expect(await unnamedControls(page)).toEqual([]);
        await prompt.getByRole('button', { name: 'Cancel' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/');
        expect(await signedInAs()).toBe(victim.email);

        // Asked again, and this time the visitor means it: the form, then signed in as the link's account.
        await page.goto(link);
        await prompt.waitFor();
        await prompt.getByRole('button', { name: `Switch to ${other.email}` }).click();
        const form = page.getByRole('form', { name: 'Choose a new password' });
        await form.getByLabel('New password (at least 8 characters)').fill('switched passphrase');
        await form.getByLabel('Confirm new password').fill('switched passphrase');
        await form.getByRole('button', { name: 'Set new password' }).click();
        const done = page.getByRole('status').filter({ hasText: 'Your new password is set' });
        await done.waitFor();
        expect(await done.textContent()).toContain(`Signed in as ${other.email}`);
        expect(await done.textContent()).not.toContain('API key');
        expect(await signedInAs()).toBe(other.email);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a link for the signed-in account itself asks nothing', async () => {
      const account = await signUpAccount(h.url);
      await call(h.url, 'POST', '/api/auth/password-reset', { body: { email: account.email } });
      const { link } = await resetLink(h.server, account.email);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(link);
        await page.getByRole('form', { name: 'Choose a new password' }).waitFor();
        expect(await page.getByRole('button', { name: /^Switch to/ }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  { ...AGENT_ENV, RATE_LIMIT_RESET_EMAIL: '100000/600' },
  CHROMIUM_SKIP,
);
