/**
 * Real Chromium for the browser tests (Debian's, driven by playwright-core), and a page signed in
 * to a fresh account the way the dashboard signs in: the `session` cookie from sign-up.
 */
import { afterAll, beforeAll } from 'bun:test';
import { existsSync } from 'node:fs';
import { chromium, type Browser, type BrowserContext, type BrowserContextOptions, type Locator, type Page } from 'playwright-core';
import { BACKENDS } from './backends';
import { call } from './client';

export const CHROMIUM = '/usr/bin/chromium';
export const CHROMIUM_ARGS = ['--headless', '--no-sandbox', '--disable-gpu', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--no-first-run'];

/**
 * Why a file's browser tests are skipped, or null when they run. `npm test` installs Chromium
 * (scripts/services.sh), so there a missing one is a failure; a quick `TEST_BACKENDS=embedded` run
 * promises no services and skips them instead. Pass it as describeBackends' `skip`.
 */
export const CHROMIUM_SKIP: string | null =
  !existsSync(CHROMIUM) && !BACKENDS.includes('server') ? `${CHROMIUM} is missing; scripts/services.sh installs it` : null;

export async function launchChromium(): Promise<Browser> {
  if (!existsSync(CHROMIUM)) throw new Error(`${CHROMIUM} is missing: run scripts/services.sh (it installs Debian's chromium)`);
  return chromium.launch({ executablePath: CHROMIUM, args: CHROMIUM_ARGS });
}

/** One Chromium per test file: launched before its tests and closed after them (not when CHROMIUM_SKIP). */
export function useChromium(): () => Browser {
  let browser: Browser | null = null;
  beforeAll(async () => {
    if (CHROMIUM_SKIP !== null) return;
    browser = await launchChromium();
  });
  afterAll(async () => {
    await browser?.close();
  });
  return () => {
    if (!browser) throw new Error('browser not started');
    return browser;
  };
}

export interface TestEndpoint {
  id: string;
  slug: string;
  url: string;
  name: string;
}

/** An endpoint made through the API, as the page will then list it. */
export async function createEndpoint(base: string, account: Account, name: string): Promise<TestEndpoint> {
  const r = await call<TestEndpoint>(base, 'POST', '/api/endpoints', { token: account.session, body: { name } });
  if (r.status !== 201) throw new Error(`create failed: ${r.status} ${r.text}`);
  return r.body;
}

export interface Account {
  email: string;
  session: string;
}

export interface TestPage {
  page: Page;
  context: BrowserContext;
  /** Uncaught errors in the page; a test ends by expecting none. */
  errors: string[];
}

let counter = 0;

export async function signUpAccount(base: string): Promise<Account> {
  const email = `web${Date.now()}${counter++}${Math.random().toString(36).slice(2, 6)}@example.com`;
  const r = await call(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`);
  return { email, session: r.body.token };
}

/** A page in its own context; with `account`, signed in as it. Any script dialog fails the test. */
export async function openPage(browser: Browser, base: string, account: Account | null, options: BrowserContextOptions = {}): Promise<TestPage> {
  const context = await browser.newContext({ viewport: { width: 1280, height: 800 }, ...options });
  if (account) {
    const host = new URL(base).hostname;
    await context.addCookies([{ name: 'session', value: account.session, domain: host, path: '/', httpOnly: true, sameSite: 'Lax' }]);
  }
  const page = await context.newPage();
  const errors: string[] = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('dialog', (d) => {
    errors.push(`unexpected dialog: ${d.message()}`);
    void d.dismiss();
  });
  return { page, context, errors };
}

/** Whether the element has the keyboard focus. */
export const isFocused = (l: Locator): Promise<boolean> => l.evaluate((el) => el === el.ownerDocument.activeElement);

/** What has the focus, for a failing assertion to name it: "button Save", "h1 Stripe", "none". */
export const focusedName = (page: Page): Promise<string> =>
  page.evaluate('(e => e ? `${e.tagName.toLowerCase()} ${e.getAttribute("aria-label") ?? e.textContent ?? ""}` : "none")(document.activeElement)') as Promise<string>;

/** From the endpoint list to an endpoint's settings page, as a person would: its Settings link. */
export async function openSettings(page: Page, base: string, ep: TestEndpoint): Promise<void> {
  await page.goto(`${base}/`);
  await page.getByRole('link', { name: `Settings of ${ep.name}` }).click();
  await page.getByRole('heading', { name: 'Mock response' }).waitFor();
  const path = new URL(page.url()).pathname;
  if (path !== `/endpoints/${ep.slug}/settings`) throw new Error(`Settings of ${ep.name} led to ${path}`);
}
