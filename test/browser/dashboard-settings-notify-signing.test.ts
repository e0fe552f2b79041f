/**
 * The notification signing secret in the endpoint's settings, in real Chromium on both backends,
 * driven by role and accessible name: generated in the page, shown once with a copy button, it
 * signs the notifications a real receiver gets; Rotate replaces it (the old one stops verifying),
 * Remove turns signing off; after a reload the page knows only that a secret exists.
 */
import { afterAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { Locator } from 'playwright-core';
import { openSettings, openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint, type TestEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { startHookReceiver, uniquePath, type Received } from '../support/hook-receiver';
import { describeBackends } from '../support/suite';

const chromium = useChromium();
const receiver = startHookReceiver();
afterAll(() => receiver.stop());

/** The Standard Webhooks formula, written here from the spec (not the service's code). */
function verifies(secret: string, g: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${g.headers['webhook-id']}.${g.headers['webhook-timestamp']}.${g.body}`).digest('base64')}`;
  return (g.headers['webhook-signature'] ?? '').split(' ').includes(expected);
}

/** Sends one capture and returns the notification it caused (the n-th on `path`). */
async function notified(ep: TestEndpoint, path: string, n: number): Promise<Received> {
  await fetch(`${ep.url}/x`, { method: 'POST', body: `n${n}` });
  return eventually(async () => receiver.received(path)[n - 1], 8_000);
}

/** The secret a "New signing secret" region shows, after checking it says it is shown once. */
async function shownSecret(group: Locator): Promise<string> {
  const shown = group.getByRole('region', { name: 'New signing secret' });
  await shown.waitFor();
  expect(await shown.textContent()).toContain('It will not be shown again');
  const secret = (await shown.getByLabel('Notification signing secret').textContent()) ?? '';
  expect(secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
  return secret;
}

describeBackends(
  'dashboard: notification signing secret',
  (h) => {
    test('generate, copy, rotate and remove the signing secret; each is what signs the notifications', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'signed-notes');
      const path = uniquePath('dash-signed');
      expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: account.session, body: { notificationUrl: `${receiver.url}${path}` } })).status).toBe(200);
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      try {
        await openSettings(page, h.url, ep);
        const group = page.getByRole('region', { name: 'Notifications' }).getByRole('group', { name: 'Notification signing' });
        await group.getByText('Notifications are not signed.').waitFor();

        await group.getByRole('button', { name: 'Generate signing secret' }).click();
        const first = await shownSecret(group);
        await group.getByRole('button', { name: 'Copy secret' }).click();
        await page.getByRole('status').filter({ hasText: 'Copied the signing secret' }).waitFor();
        expect(await page.evaluate('navigator.clipboard.readText()')).toBe(first);
        await group.getByText('Notifications are signed').waitFor();
        const one = await notified(ep, path, 1);
        expect(verifies(first, one)).toBe(true);

        // Dismissed, it is gone from the page; a reload shows only that there is one.
        await group.getByRole('button', { name: 'I have copied it' }).click();
        await group.getByRole('region', { name: 'New signing secret' }).waitFor({ state: 'detached' });
        await page.reload();
        await group.getByText('Notifications are signed').waitFor();
        expect(await page.content()).not.toContain(first);
        expect(await group.getByRole('button', { name: 'Generate signing secret' }).count()).toBe(0);

        // Rotate asks first; the new secret signs, the old one no longer verifies.
        await group.getByRole('button', { name: 'Rotate secret' }).click();
        const ask = page.getByRole('dialog', { name: 'Rotate the signing secret?' });
        await ask.getByRole('button', { name: 'Rotate' }).click();
        const second = await shownSecret(group);
        expect(second).not.toBe(first);
        await ask.waitFor({ state: 'hidden' });
        const two = await notified(ep, path, 2);
        expect(verifies(second, two)).toBe(true);
        expect(verifies(first, two)).toBe(false);

        // Remove asks too; then notifications are unsigned and the page offers a new one.
        await group.getByRole('button', { name: 'Remove secret' }).click();
        await page.getByRole('dialog', { name: 'Remove the signing secret?' }).getByRole('button', { name: 'Remove' }).click();
        await group.getByText('Notifications are not signed.').waitFor();
        await group.getByRole('button', { name: 'Generate signing secret' }).waitFor();
        expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.notificationSigning).toBeNull();
        const three = await notified(ep, path, 3);
        expect(three.headers['webhook-signature']).toBeUndefined();
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  { OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}` },
  CHROMIUM_SKIP,
);
