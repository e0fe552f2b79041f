/**
 * Screenshots of the dashboard's main views, light and dark, for docs/: starts an embedded
 * instance on a free port with a fresh data dir, seeds an account with a few endpoints and
 * realistic captures (signed Stripe events, GitHub and Shopify deliveries, a form, a binary
 * upload), settings, API keys and a team, and saves PNGs under docs/screenshots/.
 *
 *   node_modules/.bin/bun scripts/screenshots.ts
 */
import { createHmac } from 'node:crypto';
import { existsSync, mkdirSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { Page } from 'playwright-core';
import { launchChromium, openPage } from '../test/support/browser';
import { verificationLinksIn } from '../test/behaviour/password-reset-support';
import { call, eventually } from '../test/support/client';
import { startServer, stopServer } from '../test/support/server';

const OUT = resolve(import.meta.dir, '..', 'docs', 'screenshots');
mkdirSync(OUT, { recursive: true });

const server = await startServer();
const base = server.url;
const browser = await launchChromium();
try {
  const email = 'ada@example.com';
  const signup = await call(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
  const account = { email, session: String(signup.body.token) };
  // Confirmed through the mailed link, as a user who read the mail: the pages then show what they
  // show every day, without the unconfirmed-address banner.
  // The embedded instance writes its mail to DATA_DIR/outbox.jsonl.
  const outbox = join(server.dataDir, 'outbox.jsonl');
  const mails = () => (existsSync(outbox) ? readFileSync(outbox, 'utf8').split('\n').filter(Boolean).map((line) => JSON.parse(line) as { text: string }) : []);
  const { token } = await eventually(async () => verificationLinksIn(mails())[0] ?? null, 10_000);
  await call(base, 'POST', '/api/auth/verify-email', { body: { token } });
  const endpoint = async (name: string) => (await call(base, 'POST', '/api/endpoints', { token: account.session, body: { name } })).body as { slug: string; url: string };
  const stripe = await endpoint('Stripe production');
  const github = await endpoint('GitHub app');
  const shop = await endpoint('Shopify orders');
  const sandbox = await endpoint('Sandbox');
  const secret = 'whsec_screenshot_demo_secret';
  await call(base, 'PATCH', `/api/endpoints/${stripe.slug}`, { token: account.session, body: { signing: { provider: 'stripe', secret } } });

  const stripeEvent = async (type: string, object: Record<string, unknown>, sign = true) => {
    const body = JSON.stringify({ id: `evt_${Math.random().toString(36).slice(2, 16)}`, object: 'event', api_version: '2024-06-20', created: Math.floor(Date.now() / 1000), type, livemode: false, data: { object } });
    const t = Math.floor(Date.now() / 1000);
    const v1 = createHmac('sha256', sign ? secret : 'wrong').update(`${t}.${body}`).digest('hex');
    await fetch(`${stripe.url}/webhooks/stripe`, { method: 'POST', headers: { 'content-type': 'application/json; charset=utf-8', 'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'stripe-signature': `t=${t},v1=${v1}` }, body });
  };
  await stripeEvent('customer.created', { id: 'cus_Q1', object: 'customer', email: 'ada@example.com', name: 'Ada Lovelace' });
  await stripeEvent('payment_intent.created', { id: 'pi_3P', object: 'payment_intent', amount: 4200, currency: 'eur', status: 'requires_payment_method' });
  await stripeEvent('charge.succeeded', { id: 'ch_3P', object: 'charge', amount: 4200, currency: 'eur', paid: true, receipt_email: 'ada@example.com' });
  await stripeEvent('invoice.paid', { id: 'in_1P', object: 'invoice', amount_paid: 4200, currency: 'eur', customer: 'cus_Q1', lines: { data: [{ description: 'Pro plan × 1', amount: 4200 }] } }, false);
  await fetch(`${sandbox.url}/health?probe=1&region=eu-west-1`, { headers: { 'user-agent': 'uptime-checker/2.1' } });
  await fetch(`${sandbox.url}/upload`, { method: 'PUT', headers: { 'content-type': 'application/octet-stream' }, body: new Uint8Array(Array.from({ length: 96 }, (_, i) => (i * 37) % 256)) });
  await fetch(`${sandbox.url}/forms/contact`, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: 'name=Grace+Hopper&email=grace%40example.com&message=Hello+there' });
  await stripeEvent('payment_intent.succeeded', { id: 'pi_3P', object: 'payment_intent', amount: 4200, currency: 'eur', status: 'succeeded', charges: { data: [{ id: 'ch_3P', paid: true }] } });
  await fetch(`${github.url}/`, { method: 'POST', headers: { 'content-type': 'application/json', 'user-agent': 'GitHub-Hookshot/5f3d1a2', 'x-github-event': 'push', 'x-github-delivery': '72d3162e-cc78-11e3-81ab-4c9367dc0958' }, body: JSON.stringify({ ref: 'refs/heads/main', repository: { full_name: 'acme/api' }, pusher: { name: 'octocat' }, commits: [{ id: '0d1a26e6', message: 'Fix retries' }] }) });
  await fetch(`${shop.url}/orders`, { method: 'POST', headers: { 'content-type': 'application/json', 'x-shopify-topic': 'orders/create', 'x-shopify-shop-domain': 'acme.myshopify.com' }, body: JSON.stringify({ id: 820982911946154500, email: 'jon@example.com', total_price: '199.00', currency: 'USD' }) });
  await call(base, 'PATCH', `/api/endpoints/${github.slug}`, { token: account.session, body: { mockResponse: { status: 202, headers: { 'content-type': 'application/json' }, body: '{"queued": true}' } } });
  await call(base, 'POST', '/api/api-keys', { token: account.session, body: { name: 'CI runner' } });
  await call(base, 'POST', '/api/api-keys', { token: account.session, body: { name: 'laptop' } });
  const team = (await call(base, 'POST', '/api/teams', { token: account.session, body: { name: 'Payments squad' } })).body as { id: string };
  // Captures reach the list API once shipped.
  await Bun.sleep(600);

  const shoot = async (name: string, scheme: 'light' | 'dark', go: (page: Page) => Promise<void>, viewport = { width: 1280, height: 800 }) => {
    const { page, context } = await openPage(browser, base, account, { colorScheme: scheme, viewport, deviceScaleFactor: 1 });
    try {
      await go(page);
      await page.waitForTimeout(300);
      await page.screenshot({ path: join(OUT, `${name}-${scheme}.png`) });
      console.log(`docs/screenshots/${name}-${scheme}.png`);
    } finally {
      await context.close();
    }
  };

  const live = async (page: Page) => {
    await page.goto(`${base}/endpoints/${stripe.slug}`);
    await page.getByRole('status', { name: 'Stream status' }).filter({ hasText: 'Live' }).waitFor();
    await page.getByRole('link', { name: /charge\.succeeded/ }).click();
    await page.getByRole('article').getByRole('tab', { name: 'Pretty' }).waitFor();
  };
  for (const scheme of ['light', 'dark'] as const) {
    await shoot('endpoint', scheme, live);
    await shoot('endpoints', scheme, async (page) => {
      await page.goto(`${base}/`);
      await page.getByRole('heading', { name: 'Endpoints' }).waitFor();
    });
    await shoot('search', scheme, async (page) => {
      await page.goto(`${base}/search?q=4200`);
      await page.getByRole('status').filter({ hasText: 'matching' }).waitFor();
      await page.getByRole('list', { name: 'Search results' }).getByRole('link').first().click();
      await page.getByRole('article').waitFor();
    });
    await shoot('binary', scheme, async (page) => {
      await page.goto(`${base}/endpoints/${sandbox.slug}`);
      await page.getByRole('link', { name: /\/upload/ }).click();
      await page.getByRole('region', { name: 'Hex view' }).waitFor();
    });
    await shoot('settings', scheme, async (page) => {
      await page.goto(`${base}/endpoints/${stripe.slug}/settings`);
      const signing = page.getByRole('region', { name: 'Signature verification' });
      await signing.getByText('…cret').waitFor();
      await signing.evaluate((el) => el.scrollIntoView({ block: 'start' }));
    });
    await shoot('account', scheme, async (page) => {
      await page.goto(`${base}/account`);
      await page.getByRole('meter', { name: 'Captures used this month' }).waitFor();
      await page.getByRole('table', { name: 'Your API keys' }).waitFor();
    });
    await shoot('team', scheme, async (page) => {
      await page.goto(`${base}/teams/${team.id}`);
      await page.getByRole('region', { name: 'Members' }).getByRole('list', { name: 'Members' }).waitFor();
      await page.getByLabel('Email address to invite').fill('grace@example.com');
      await page.getByRole('button', { name: 'Invite', exact: true }).click();
      await page.getByRole('alert').filter({ hasText: 'Teams subscription' }).first().waitFor();
    });
  }
  await shoot('mobile', 'dark', live, { width: 360, height: 740 });
  const { page, context } = await openPage(browser, base, null, { colorScheme: 'light', viewport: { width: 1280, height: 800 } });
  await page.goto(`${base}/`);
  await page.getByRole('heading', { name: 'Sign in' }).waitFor();
  await page.screenshot({ path: join(OUT, 'signin-light.png') });
  console.log('docs/screenshots/signin-light.png');
  await context.close();
} finally {
  await browser.close();
  await stopServer(server);
}
