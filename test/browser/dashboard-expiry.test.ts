/**
 * An endpoint made with `expiresIn` (a CI run's) says in its header when it expires; one without
 * says nothing of the kind. Real Chromium on both backends, read by role and accessible name.
 */
import { expect, test } from 'bun:test';
import { openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

describeBackends(
  'dashboard: expiring endpoints',
  (h) => {
    test('the endpoint page shows "expires in 2h" with the exact time; an endpoint without expiry shows none', async () => {
      const account = await signUpAccount(h.url);
      const made = await call<{ slug: string; name: string; expiresAt: number }>(h.url, 'POST', '/api/endpoints', {
        token: account.session,
        body: { name: 'ci run 9', expiresIn: 7200 },
      });
      expect(made.status).toBe(201);
      const kept = await createEndpoint(h.url, account, 'kept');
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await page.goto(`${h.url}/endpoints/${made.body.slug}`);
        await page.getByRole('heading', { level: 1, name: 'ci run 9' }).waitFor();
        // Intl's narrow style, as every relative time on the page: "in 2h" in Chromium.
        const expiry = page.getByText(/^expires in 2 ?(h|hr\.)$/);
        await expiry.waitFor();
        const time = expiry.locator('time');
        expect(await time.getAttribute('datetime')).toBe(new Date(made.body.expiresAt).toISOString());
        expect(await time.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\.\d{3} UTC[+-]\d\d:\d\d$/);

        await page.goto(`${h.url}/endpoints/${kept.slug}`);
        await page.getByRole('heading', { level: 1, name: 'kept' }).waitFor();
        expect(await page.getByText(/^expires /).count()).toBe(0);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
