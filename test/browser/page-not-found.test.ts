/**
 * A person who types a wrong address: the server answers the dashboard's page with status 404
 * (src/http/route-miss.ts) and the app says "Page not found", in the tab's title too, with a link
 * home whose page then takes the focus. Signed out, the same view, leading to the sign-in form.
 */
import { expect, test } from 'bun:test';
import { CHROMIUM_SKIP, isFocused, openPage, signUpAccount, useChromium } from '../support/browser';
import { eventually } from '../support/client';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

describeBackends(
  'dashboard: an address that is no page',
  (h) => {
    test('signed in: 404, "Page not found" by role and in the title, and the link home leads to the endpoints', async () => {
      const account = await signUpAccount(h.url);
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        const response = await page.goto(`${h.url}/nope`);
        expect(response?.status()).toBe(404);
        const heading = page.getByRole('heading', { name: 'Page not found', level: 1 });
        await heading.waitFor();
        await eventually(async () => (await page.title()) === 'Page not found · hookcap');
        await page.getByRole('link', { name: 'Go to your endpoints' }).click();
        const endpoints = page.getByRole('heading', { name: 'Endpoints', level: 1 });
        await endpoints.waitFor();
        expect(new URL(page.url()).pathname).toBe('/');
        await eventually(() => isFocused(endpoints));
        await eventually(async () => (await page.title()) === 'Endpoints · hookcap');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('signed out: the same view rather than a sign-in form at a wrong address; its link leads home to sign in', async () => {
      const { page, context, errors } = await openPage(chromium(), h.url, null);
      try {
        const response = await page.goto(`${h.url}/no/such/page`);
        expect(response?.status()).toBe(404);
        await page.getByRole('heading', { name: 'Page not found', level: 1 }).waitFor();
        expect(await page.getByRole('textbox', { name: 'Email' }).count()).toBe(0);
        await page.getByRole('link', { name: 'Go to the home page' }).click();
        const signIn = page.getByRole('heading', { name: 'Sign in', level: 1 });
        await signIn.waitFor();
        expect(new URL(page.url()).pathname).toBe('/');
        await eventually(() => isFocused(signIn));
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
