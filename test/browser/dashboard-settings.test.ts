/**
 * Endpoint settings in real Chromium on both backends, driven by role and accessible name: the
 * mock response edited in the page is what the receiver answers; a header the server refuses shows
 * its message at the Headers field; a bad notification URL likewise; signature verification set
 * in the page shows only the secret's hint; Send test captures a request the page then opens.
 */
import { expect, test } from 'bun:test';
import { openSettings, openPage, signUpAccount, useChromium, CHROMIUM_SKIP, createEndpoint } from '../support/browser';
import { call, eventually } from '../support/client';
import { fieldState } from '../support/a11y';
import { describeBackends } from '../support/suite';

const chromium = useChromium();



/** The settings page, reached the way a person does: the endpoint card's Settings link. */
describeBackends('dashboard: endpoint settings', (h) => {
  test('a mock response edited in the page is what the receiver answers; a refused header is reported at its field', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'mocked');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openSettings(page, h.url, ep);
      const mock = page.getByRole('region', { name: 'Mock response' });
      const headers = mock.getByLabel('Headers');

      // With no mock yet the fields hold no answer of their own: the example is only placeholder
      // text, so nothing on the page reads as what the endpoint answers now but the default.
      await mock.getByText('the default answer', { exact: true }).waitFor();
      expect(await headers.inputValue()).toBe('');
      expect(await headers.getAttribute('placeholder')).toBe('content-type: application/json');
      expect(await mock.getByLabel('Body').inputValue()).toBe('');
      expect(await mock.getByLabel('Body').getAttribute('placeholder')).toBe('{"received": true}');

      // The server refuses a header that acts on the whole origin: its message sits at Headers.
      await mock.getByLabel('Status').fill('201');
      await headers.fill('x-mock: one\nset-cookie: session=stolen');
      await mock.getByRole('button', { name: 'Save' }).click();
      await eventually(async () => (await fieldState(headers)).invalid);
      const refused = await fieldState(headers);
      expect(refused.description).toContain('set-cookie');
      expect(refused.description).toContain('whole origin');
      expect((await fieldState(mock.getByLabel('Status'))).invalid).toBe(false);
      expect((await fieldState(mock.getByLabel('Body'))).invalid).toBe(false);
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.mockResponse).toBeNull();
      expect((await (await fetch(`${ep.url}/before`, { method: 'POST' })).json()) as { ok?: boolean }).toMatchObject({ ok: true });

      // A line that is not "Name: value" is caught in the page, at the same field.
      await headers.fill('no colon here');
      await mock.getByRole('button', { name: 'Save' }).click();
      expect((await fieldState(headers)).description).toContain('Line 1');

      const body = `<teapot marker="${Date.now()}">short and stout</teapot>`;
      await mock.getByLabel('Status').fill('418');
      await headers.fill('content-type: application/xml\nx-mock-kind: teapot');
      await mock.getByLabel('Body').fill(body);
      await mock.getByRole('button', { name: 'Save' }).click();
      await mock.getByRole('status').filter({ hasText: 'Saved.' }).waitFor();
      expect((await fieldState(headers)).invalid).toBe(false);
      await mock.getByText('a mock response with status 418').waitFor();

      const answer = await fetch(`${ep.url}/anything?x=1`, { method: 'POST', body: 'hi' });
      expect(answer.status).toBe(418);
      expect(answer.headers.get('x-mock-kind')).toBe('teapot');
      expect(answer.headers.get('content-type')).toBe('application/xml');
      expect(await answer.text()).toBe(body);

      // Back to the default answer.
      await mock.getByRole('button', { name: 'Use the default answer' }).click();
      await mock.getByText('the default answer', { exact: true }).waitFor();
      const plain = await fetch(`${ep.url}/after`, { method: 'POST' });
      expect(plain.status).toBe(200);
      expect(((await plain.json()) as { ok?: boolean }).ok).toBe(true);
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('notification URL: the API refusal shows at the field; a good URL is saved and can be stopped', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'notified');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openSettings(page, h.url, ep);
      const section = page.getByRole('region', { name: 'Notifications' });
      const field = section.getByLabel('Notification URL');
      await field.fill('ftp://example.com/hook');
      await section.getByRole('button', { name: 'Save' }).click();
      await eventually(async () => (await fieldState(field)).invalid);
      expect((await fieldState(field)).description).toContain('valid http or https URL');

      await field.fill('https://hooks.example.com/hookcap');
      await section.getByRole('button', { name: 'Save' }).click();
      await section.getByText('Notifications are on.').waitFor();
      expect((await fieldState(field)).invalid).toBe(false);
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.notificationUrl).toBe('https://hooks.example.com/hookcap');

      await section.getByRole('button', { name: 'Stop notifications' }).click();
      await section.getByText('Notifications are off.').waitFor();
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.notificationUrl).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('signature verification set in the page shows only the hint, never the secret', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'signed');
    const secret = `whsec_${crypto.randomUUID().replaceAll('-', '')}Zq7w`;
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openSettings(page, h.url, ep);
      const section = page.getByRole('region', { name: 'Signature verification' });
      const secretField = section.getByLabel('Signing secret');
      expect(await section.getByLabel('Provider').locator('option').allTextContents()).toEqual([
        'Stripe',
        'GitHub',
        'Shopify',
        'Slack',
        'Standard Webhooks (Svix, Clerk, Resend…)',
        'Twilio',
        'Paddle',
        'Linear',
        'Square',
        'Generic HMAC (any sender)',
      ]);

      // Without a secret the page says so at the field and sends nothing.
      await section.getByRole('button', { name: 'Save' }).click();
      expect((await fieldState(secretField)).description).toContain('Enter the signing secret');

      await section.getByLabel('Provider').selectOption({ label: 'Stripe' });
      await secretField.fill(secret);
      await section.getByLabel('Tolerance in seconds').fill('600');
      await section.getByRole('button', { name: 'Save' }).click();
      await section.getByText('…Zq7w').waitFor();
      expect(await secretField.inputValue()).toBe('');
      const saved = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.signing;
      expect(saved).toEqual({ provider: 'stripe', toleranceSeconds: 600, secretHint: '…Zq7w' });

      // A fresh load: the hint, and the secret nowhere in the page.
      await page.reload();
      await section.getByText('…Zq7w').waitFor();
      expect(await section.textContent()).toContain('tolerance 600 s');
      expect(await page.content()).not.toContain(secret);
      expect(await section.getByLabel('Signing secret').inputValue()).toBe('');

      // Generic HMAC asks for its header, algorithm and encoding; a bad header name is refused at its field.
      await section.getByLabel('Provider').selectOption({ label: 'Generic HMAC (any sender)' });
      await section.getByLabel('Signing secret').fill('another-secret-0123456789');
      await section.getByLabel('Signature header').fill('bad header');
      await section.getByRole('button', { name: 'Save' }).click();
      expect((await fieldState(section.getByLabel('Signature header'))).description).toContain('no spaces');
      await section.getByLabel('Signature header').fill('X-Hub-Signature');
      await section.getByLabel('Algorithm').selectOption({ label: 'HMAC-SHA1' });
      await section.getByLabel('Prefix').fill('sha1=');
      await section.getByRole('button', { name: 'Save' }).click();
      await section.getByText('…6789').waitFor();
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.signing).toEqual({
        provider: 'hmac',
        header: 'X-Hub-Signature',
        algorithm: 'sha1',
        encoding: 'hex',
        prefix: 'sha1=',
        secretHint: '…6789',
      });

      await section.getByRole('button', { name: 'Turn off' }).click();
      await section.getByText('Off', { exact: true }).waitFor();
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: account.session })).body.signing).toBeNull();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('Send test sends through the receiver and opens the captured request', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'tested');
    const marker = `m${Math.random().toString(36).slice(2, 10)}`;
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openSettings(page, h.url, ep);
      const section = page.getByRole('region', { name: 'Send test' });
      await section.getByLabel('Method').selectOption('PUT');
      await section.getByLabel('Headers').fill(`content-type: application/json\nx-test-marker: ${marker}`);
      await section.getByLabel('Body').fill(JSON.stringify({ marker }));
      await section.getByRole('button', { name: 'Send test' }).click();
      const open = section.getByRole('link', { name: 'Open the captured request' });
      await open.waitFor();
      expect(await section.getByRole('status').textContent()).toContain('answered 200');
      await open.click();

      const detail = page.getByRole('article');
      await detail.getByRole('table', { name: 'Headers' }).waitFor();
      expect(await detail.getByRole('heading', { level: 2 }).textContent()).toContain('PUT');
      expect(await detail.getByRole('table', { name: 'Headers' }).textContent()).toContain(marker);
      expect(await detail.textContent()).toContain(marker);
      const listed = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session })).body;
      expect(Array.isArray(listed) && listed.length).toBe(1);

      // GET has no body: the page sends none, and the API accepts it.
      await page.goto(`${h.url}/endpoints/${ep.slug}/settings`);
      await section.getByLabel('Method').selectOption('GET');
      expect(await section.getByLabel('Body').isDisabled()).toBe(true);
      await section.getByRole('button', { name: 'Send test' }).click();
      await section.getByRole('link', { name: 'Open the captured request' }).waitFor();
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });

  test('Send test sends typed header text as its UTF-8 bytes, shown back as typed', async () => {
    const account = await signUpAccount(h.url);
    const ep = await createEndpoint(h.url, account, 'typed');
    const { page, context, errors } = await openPage(chromium(), h.url, account);
    try {
      await openSettings(page, h.url, ep);
      const section = page.getByRole('region', { name: 'Send test' });
      await section.getByLabel('Headers').fill('x-typed: café ✓');
      await section.getByRole('button', { name: 'Send test' }).click();
      const open = section.getByRole('link', { name: 'Open the captured request' });
      await open.waitFor();
      // The record holds the bytes that arrived, one character per byte: the UTF-8 of what was typed.
      // The list is read from the capture store, which takes the capture a moment after the live list shows it.
      const listed = await eventually(async () => {
        const r = (await call<{ headers: Record<string, string> }[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: account.session })).body;
        return r.length > 0 ? r : undefined;
      });
      expect(Buffer.from(listed[0]?.headers['x-typed'] ?? '', 'latin1').toString('hex')).toBe(Buffer.from('café ✓', 'utf8').toString('hex'));
      await open.click();
      const headers = page.getByRole('article').getByRole('table', { name: 'Headers' });
      await headers.waitFor();
      expect(await headers.textContent()).toContain('café ✓');
      expect(errors).toEqual([]);
    } finally {
      await context.close();
    }
  });
}, {}, CHROMIUM_SKIP);
