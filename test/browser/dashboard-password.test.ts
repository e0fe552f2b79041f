/**
 * The account page's "Change password" form in real Chromium on both backends, driven by role and
 * accessible name: problems are announced under their field (which gets the focus), a wrong current
 * password and a too long new one are refused by the server and said in words, and success says so in a status region,
 * signs out the account's other sessions and keeps this one (POST /api/account/password).
 */
import { expect, test } from 'bun:test';
import type { Page } from 'playwright-core';
import { unnamedControls } from '../support/a11y';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();
const OLD = 'correct horse battery';
const NEW = 'a brand new passphrase';

const focused = (page: Page, label: string) => page.getByLabel(label, { exact: true }).evaluate((el) => el === el.ownerDocument.activeElement);

describeBackends('dashboard: change password', (h) => {
  test('errors are announced at their field; success is announced, other sessions end, this one stays', async () => {
    const account = await signUpAccount(h.url);
    const other = await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: OLD } });
    expect(other.status).toBe(200);
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await page.goto(`${h.url}/account`);
      const section = page.getByRole('region', { name: 'Change password' });
      await section.waitFor();
      const current = section.getByLabel('Current password', { exact: true });
      const next = section.getByLabel('New password (at least 8 characters)', { exact: true });
      const again = section.getByLabel('Confirm new password', { exact: true });
      const submit = section.getByRole('button', { name: 'Change password' });

      // Checked in the page first: nothing typed, then two different new passwords.
      await submit.click();
      await section.getByRole('alert').filter({ hasText: 'Type your current password.' }).waitFor();
      expect(await focused(page, 'Current password')).toBe(true);
      await current.fill(OLD);
      await next.fill(NEW);
      await again.fill(`${NEW}!`);
      await submit.click();
      await section.getByRole('alert').filter({ hasText: 'The two new passwords differ' }).waitFor();
      expect(await focused(page, 'Confirm new password')).toBe(true);
      expect(await again.getAttribute('aria-invalid')).toBe('true');

      // The server refuses a wrong current password: said under that field, the session stays.
      await current.fill('not my password');
      await again.fill(NEW);
      await submit.click();
      await section.getByRole('alert').filter({ hasText: 'This is not your current password.' }).waitFor();
      expect(await focused(page, 'Current password')).toBe(true);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: account.session })).status).toBe(200);
      expect(await unnamedControls(page)).toEqual([]);

      // The server's refusal of the new password is shown in its own words under that field: one
      // too long is not "too short".
      await current.fill(OLD);
      await next.fill('x'.repeat(1025));
      await again.fill('x'.repeat(1025));
      await submit.click();
      const tooLong = section.getByRole('alert').filter({ hasText: '1024' });
      await tooLong.waitFor();
      expect(await tooLong.textContent()).not.toContain('at least');
      expect(await focused(page, 'New password (at least 8 characters)')).toBe(true);
      expect(await next.getAttribute('aria-invalid')).toBe('true');

      await next.fill(NEW);
      await again.fill(NEW);
      await submit.click();
      await section.getByRole('status').filter({ hasText: 'Your password is changed. 1 other browser session was signed out.' }).waitFor();
      expect(await section.getByRole('alert').count()).toBe(0);
      expect([await current.inputValue(), await next.inputValue(), await again.inputValue()]).toEqual(['', '', '']);

      // The other session is over, this one goes on; the new password is the one that works.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: other.body.token })).status).toBe(401);
      await page.reload();
      await page.getByRole('heading', { name: 'Account', level: 1 }).waitFor();
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: NEW } })).status).toBe(200);
      expect((await call(h.url, 'POST', '/api/auth/login', { body: { email: account.email, password: OLD } })).status).toBe(401);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}, {}, CHROMIUM_SKIP);
