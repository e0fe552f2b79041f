/**
 * The password-reset flow in real Chromium on both backends, by role and accessible name: "Forgot
 * password?" on the sign-in page, the address form, the link from the mail the server really sent,
 * the new password asked twice (a mismatch is an error on its field, which gets the focus), and
 * the visitor signed in with the new password while every older session ends; the used link then
 * says so and offers a new one.
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
        // The token left the address bar (and history) as soon as the page read it.
        expect(page.url()).toBe(`${h.url}/reset-password`);
        expect(page.url()).not.toContain(token);

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
        // Signed in with the new password: the dashboard itself, at home.
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        await page.getByRole('status').filter({ hasText: 'Your new password is set' }).waitFor();
        expect(new URL(page.url()).pathname).toBe('/');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(401);
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'correct horse battery' } })).status).toBe(401);
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: 'a new passphrase' } })).status).toBe(200);
        const cookie = (await context.cookies()).find((c) => c.name === 'session');
        expect((await call(h.url, 'GET', '/api/auth/me', { token: cookie?.value ?? '' })).body.email).toBe(account.email);

        // The same link again: refused, said plainly, with the way to a new one (and the focus on it).
        await page.goto(link);
        await form.waitFor();
        await password.fill('another passphrase');
        await again.fill('another passphrase');
        await submit.click();
        const refused = form.getByRole('alert').filter({ hasText: 'invalid or has expired' });
        await refused.waitFor();
        expect(await focused(refused)).toBe(true);
        await refused.getByRole('link', { name: 'Ask for a new link' }).click();
        await page.getByRole('heading', { name: 'Reset your password', level: 1 }).waitFor();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a short password is refused on its field, and a page without a token says what to do', async () => {
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        await page.goto(`${h.url}/reset-password#token=rst_${'A'.repeat(43)}`);
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
  },
  AGENT_ENV,
  CHROMIUM_SKIP,
);
