/**
 * A person shown the claim confirm page refuses the agent, in headless Chromium driven by role and
 * accessible name: the Deny button ends the registration (the agent's poll says denied, its key
 * stops working) and the same link then says it was refused.
 */
import { expect, test } from 'bun:test';
import { CHROMIUM_SKIP, useChromium } from '../support/browser';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, registerAnonymous, signUp } from '../behaviour/agent-support';

const browser = useChromium();

describeBackends(
  'agent claim deny in a browser',
  (h) => {
    test('the confirm page offers Deny: the agent is refused, its poll says denied, its key is revoked', async () => {
      const reg = await registerAnonymous(h.url, 'suspicious agent');
      const human = await signUp(h.url);
      const context = await browser().newContext();
      await context.addCookies([{ name: 'session', value: human.session, url: h.url }]);
      const page = await context.newPage();
      try {
        await page.goto(`${h.url}/agent/claim`);
        await page.getByRole('form', { name: 'Agent code' }).getByRole('textbox', { name: 'Code' }).fill(reg.user_code);
        await page.getByRole('button', { name: 'Continue' }).click();
        await page.getByRole('button', { name: 'Confirm and connect' }).waitFor();
        expect(await page.getByRole('form', { name: 'Deny' }).count()).toBe(1);

        await Promise.all([page.waitForURL(/\/agent\/claim\/deny$/), page.getByRole('button', { name: 'Deny this agent' }).click()]);
        expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Agent denied');
        expect(await page.getByRole('status').textContent()).toContain('suspicious agent');
        // The way on, to the dashboard.
        await page.getByRole('link', { name: 'Go to your endpoints' }).click();
        await page.getByRole('heading', { name: 'Endpoints', level: 1 }).waitFor();

        const poll = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
        expect(poll.body.status).toBe('denied');
        expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: reg.credential })).status).toBe(401);

        // The link again: refused, and no confirm button.
        await page.goto(reg.claim_url);
        const alert = page.getByRole('alert');
        expect(await alert.getAttribute('data-code')).toBe('claim_denied');
        expect(await page.getByRole('button', { name: 'Confirm and connect' }).count()).toBe(0);
      } finally {
        await context.close();
      }
    });

    test('a cross-site deny post is refused and changes nothing', async () => {
      const reg = await registerAnonymous(h.url);
      const human = await signUp(h.url);
      const forged = await fetch(`${h.url}/agent/claim/deny`, {
        method: 'POST',
        headers: { cookie: `session=${human.session}`, origin: 'https://evil.example', 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ claim_token: reg.claim_token }).toString(),
        redirect: 'manual',
      });
      expect(forged.status).toBe(400);
      expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('pending');
    });
  },
  AGENT_ENV,
  CHROMIUM_SKIP,
);
