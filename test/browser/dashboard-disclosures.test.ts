/**
 * The dashboard's three disclosures, **Export**, **More actions** and **Switch endpoint**, in real
 * Chromium on both backends, by role and accessible name: each behaves as one menu does
 * (`ui/disclosure.ts`). Opened from the keyboard it shows the box its button names
 * (`aria-controls`), and Tab goes into it; Escape there closes it with the focus back on the
 * button; a click elsewhere closes it too. On a phone, where More actions is a button.
 */
import { expect, test } from 'bun:test';
import { focusedName, isFocused, openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

describeBackends(
  'dashboard: disclosures',
  (h) => {
    test('Export, More actions and Switch endpoint: Escape from inside closes each with the focus back on its button, a click elsewhere closes it', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe menus');
      await createEndpoint(h.url, account, 'GitHub menus');
      await fetch(`${ep.url}/orders/1`, { method: 'POST', body: '{}' }); // Export is offered once there is a capture
      const { page, context, errors } = await openPage(chromium(), h.url, account, { viewport: { width: 390, height: 844 } });
      try {
        await page.goto(`${h.url}/endpoints/${ep.slug}`);
        await page.getByRole('list', { name: 'Requests' }).getByRole('link', { name: /\/orders\/1/ }).waitFor();
        // A corner of the page away from every control (the switcher's menu covers the heading).
        const clickElsewhere = () => page.mouse.click(380, 834);
        for (const name of ['Export', 'More actions', 'Switch endpoint']) {
          const toggle = page.getByRole('button', { name });
          const id = await toggle.getAttribute('aria-controls');
          expect(id, name).toBeTruthy();
          const box = page.locator(`[id="${id}"]`);
          expect(await toggle.getAttribute('aria-expanded'), name).toBe('false');
          expect(await box.isVisible(), name).toBe(false);

          await toggle.focus();
          await page.keyboard.press('Enter');
          expect(await toggle.getAttribute('aria-expanded'), name).toBe('true');
          await box.waitFor();
          await page.keyboard.press('Tab');
          expect(await box.evaluate((el) => el.contains(el.ownerDocument.activeElement)), `${name}: ${await focusedName(page)}`).toBe(true);
          await page.keyboard.press('Escape');
          expect(await toggle.getAttribute('aria-expanded'), name).toBe('false');
          expect(await box.isVisible(), name).toBe(false);
          expect(await isFocused(toggle), `${name}: ${await focusedName(page)}`).toBe(true);

          await toggle.click();
          await box.waitFor();
          await clickElsewhere();
          expect(await toggle.getAttribute('aria-expanded'), name).toBe('false');
          expect(await box.isVisible(), name).toBe(false);
        }

        // However Switch endpoint was closed (here by a click elsewhere), it opens with its field empty.
        const switcher = page.getByRole('button', { name: 'Switch endpoint' });
        await switcher.click();
        const find = page.getByRole('searchbox', { name: 'Find an endpoint' });
        await find.fill('git');
        await clickElsewhere();
        await find.waitFor({ state: 'detached' });
        await switcher.click();
        expect(await find.inputValue()).toBe('');
        expect(await page.getByRole('list', { name: 'Other endpoints' }).getByRole('link').allTextContents()).toEqual(['GitHub menus']);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
