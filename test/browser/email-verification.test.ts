/**
 * Confirming the address in real Chromium on both backends, by role and accessible name: sign up,
 * the Account page's notice and its "Resend verification email" (a second mail really sent), the
 * link from that mail (the token leaves the address bar), an explicit "Confirm my address", the
 * confirmation said, and the notice gone; the replaced first link is refused in words.
 */
import { expect, test } from 'bun:test';
import { unnamedControls } from '../support/a11y';
import { CHROMIUM_SKIP, openPage, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from '../behaviour/agent-support';
import { verificationLink } from '../behaviour/password-reset-support';

const chromium = useChromium();

describeBackends(
  'dashboard: confirming the address',
  (h) => {
    test('sign up → notice on Account → resend mails a second link → the link confirms → the notice is gone', async () => {
      const email = uniqueEmail('web-verify');
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        await page.goto(`${h.url}/signup`);
        const form = page.getByRole('form', { name: 'Create an account' });
        await form.getByLabel('Email').fill(email);
        await form.getByLabel('Password (at least 8 characters)').fill('correct horse battery');
        await form.getByRole('button', { name: 'Sign up' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        const first = await verificationLink(h.server, email);

        await page.goto(`${h.url}/account`);
        const notice = page.getByRole('region', { name: 'Confirm your address' });
        await notice.waitFor();
        expect(await notice.textContent()).toContain(`Your address ${email} is not confirmed yet.`);
        await notice.getByRole('button', { name: 'Resend verification email' }).click();
        await notice.getByRole('status').filter({ hasText: `A new link is on its way to ${email}.` }).waitFor();
        const second = await verificationLink(h.server, email, 2);
        expect(second.token).not.toBe(first.token);
        expect(await unnamedControls(page)).toEqual([]);

        // The replaced link is refused, in words, with the way to a new one.
        await page.goto(first.link);
        await page.getByRole('button', { name: 'Confirm my address' }).click();
        const refused = page.getByRole('alert').filter({ hasText: 'This confirmation link is invalid or has expired.' });
        await refused.waitFor();
        expect(await refused.getByRole('link', { name: 'Account page' }).getAttribute('href')).toBe('/account');

        // Opened in the same tab, only the fragment changes: the page must take the new token itself.
        await page.evaluate('window.__samePage = true');
        await page.goto(second.link);
        await page.getByRole('heading', { name: 'Confirm your address', level: 1 }).waitFor();
        expect(await page.evaluate('window.__samePage')).toBe(true);
        // The token left the address bar as soon as the page read it; nothing is confirmed before the press.
        expect(page.url()).toBe(`${h.url}/verify-email`);
        expect((await call(h.url, 'POST', '/api/auth/login', { body: { email, password: 'correct horse battery' } })).body.user.emailVerified).toBe(false);
        await page.getByRole('button', { name: 'Confirm my address' }).click();
        const done = page.getByRole('status').filter({ hasText: `Your address ${email} is confirmed.` });
        await done.waitFor();
        expect(await unnamedControls(page)).toEqual([]);
        await done.getByRole('link', { name: 'Continue to the dashboard' }).click();
        await page.getByRole('navigation', { name: 'Main' }).waitFor();
        await page.goto(`${h.url}/account`);
        await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
        await page.getByRole('region', { name: 'API keys' }).waitFor();
        expect(await page.getByRole('region', { name: 'Confirm your address' }).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  AGENT_ENV,
  CHROMIUM_SKIP,
);
