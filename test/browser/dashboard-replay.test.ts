/**
 * Replay from the dashboard (docs/dashboard.md "Replay"), in real Chromium on both backends, by role
 * and accessible name: a capture sent again from the request detail to a real HTTP server started
 * here (the exact body bytes, the header changes, an edited body), the target's answer shown as
 * text (an HTML body literally, nothing run), the URL remembered without its query, a dead target
 * and refused input said in words; a member of a team replays a capture of an endpoint shared with
 * them; and, on a server without OUTBOUND_ALLOW, a loopback target refused with the `hookcap replay`
 * command, which, copied and run by bash, sends the same from this machine.
 */
import { afterAll, expect, test } from 'bun:test';
import { chmodSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import type { Page } from 'playwright-core';
import { createTeam, nowSeconds, setStripeSubscription, TEAMS_ENV } from '../behaviour/teams-support';
import { CLI, cliEnv } from '../cli/support';
import { CHROMIUM_SKIP, createEndpoint, focusedName, isFocused, openPage, signUpAccount, useChromium, type Account, type TestEndpoint } from '../support/browser';
import { statusesHeard, unnamedControls } from '../support/a11y';
import { call, eventually } from '../support/client';
import { freePort } from '../support/server';
import { describeBackends } from '../support/suite';

const chromium = useChromium();

interface Hit {
  method: string;
  /** Path and query as requested. */
  target: string;
  headers: Record<string, string>;
  bytes: Uint8Array;
}

/** The staging server a developer replays to: records each request's exact bytes, answers as scripted. */
function startTarget() {
  const hits = new Map<string, Hit[]>();
  const answers = new Map<string, () => Response>();
  const server = Bun.serve({
    port: 0,
    hostname: '127.0.0.1',
    async fetch(request) {
      const u = new URL(request.url);
      const list = hits.get(u.pathname) ?? [];
      list.push({ method: request.method, target: u.pathname + u.search, headers: Object.fromEntries(request.headers), bytes: new Uint8Array(await request.arrayBuffer()) });
      hits.set(u.pathname, list);
      return answers.get(u.pathname)?.() ?? new Response('ok');
    },
  });
  return {
    url: `http://127.0.0.1:${server.port}`,
    port: server.port ?? 0,
    hits: (path: string) => hits.get(path) ?? [],
    answer: (path: string, fn: () => Response) => answers.set(path, fn),
    stop: () => void server.stop(true),
  };
}

const target = startTarget();
/** A path of the target no other test (or backend) uses. */
const fresh = (label: string) => `/${label}-${Math.random().toString(36).slice(2, 10)}`;
afterAll(() => target.stop());

const MARKUP = '<img src=x onerror="window.__replayRan=1"><script>window.__replayRan=2</script>';
const EVENT = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', note: 'café ✓' });
const EDITED = '@x.json {"a": "café"}\n';

/** A capture with a body and headers; its id. */
async function capture(ep: TestEndpoint, path: string, body: string | Uint8Array, headers: Record<string, string>): Promise<string> {
  const r = await fetch(`${ep.url}${path}`, { method: 'POST', headers, body });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

async function openRequest(page: Page, base: string, ep: TestEndpoint, id: string) {
  await page.goto(`${base}/endpoints/${ep.slug}/requests/${id}`);
  const detail = page.getByRole('article');
  await detail.getByRole('button', { name: 'Replay' }).waitFor();
  return detail;
}

/** Replay opened; the focus is in its first field. */
async function openReplay(page: Page) {
  await page.getByRole('article').getByRole('button', { name: 'Replay' }).click();
  const dialog = page.getByRole('dialog', { name: 'Replay request' });
  await dialog.waitFor();
  const url = dialog.getByRole('textbox', { name: 'Target URL' });
  await eventually(() => isFocused(url), 2_000).catch(async () => {
    throw new Error(`focus on ${await focusedName(page)}, not Target URL`);
  });
  return dialog;
}

describeBackends(
  'dashboard: replay',
  (h) => {
    test('Replay sends the exact bytes with the header changes; the answer is shown as text; the URL is remembered without its query', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Stripe events');
      const id = await capture(ep, '/stripe?x=1', EVENT, { 'content-type': 'application/json', 'x-keep': 'k', 'x-drop': 'd', 'stripe-signature': 't=1,v1=abc' });
      const hook = fresh('hook');
      target.answer(hook, () => new Response(MARKUP, { status: 201, headers: { 'content-type': 'text/html', 'x-answer': 'yes' } }));
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        const detail = await openRequest(page, h.url, ep, id);
        const replayButton = detail.getByRole('button', { name: 'Replay' });
        let dialog = await openReplay(page);
        expect(await dialog.getByRole('textbox', { name: 'Target URL' }).inputValue()).toBe('');
        await dialog.getByRole('textbox', { name: 'Target URL' }).fill(`${target.url}${hook}?y=2`);
        await dialog.getByRole('textbox', { name: 'Header changes' }).fill('x-drop:\nx-new: né\nx-keep: changed\nx-empty;');
        await dialog.getByRole('button', { name: 'Send' }).click();

        const answer = dialog.getByRole('heading', { name: 'Answer: 201 Created' });
        await answer.waitFor();
        expect(await isFocused(answer)).toBe(true);
        await dialog.getByRole('status').filter({ hasText: /^The target answered 201 Created in [\d.,]+ ms\.$/ }).waitFor();
        const hit = target.hits(hook)[0];
        expect(hit?.method).toBe('POST');
        expect(hit?.target).toBe(`${hook}?y=2`);
        expect(Buffer.from(hit?.bytes ?? []).equals(Buffer.from(EVENT))).toBe(true);
        expect(hit?.headers['x-drop']).toBeUndefined();
        // Typed text goes out as its UTF-8 bytes, as with hookcap replay -H (Bun reads them one per character).
        expect(hit?.headers['x-new']).toBe(Buffer.from('né').toString('latin1'));
        expect(hit?.headers['x-keep']).toBe('changed');
        expect(hit?.headers['x-empty']).toBe('');
        expect(hit?.headers['stripe-signature']).toBe('t=1,v1=abc');
        expect(hit?.headers['content-type']).toBe('application/json');

        // The stranger's markup as text: shown literally, no element made, nothing run.
        await dialog.getByText(MARKUP, { exact: true }).waitFor();
        expect(await page.locator('img[src="x"]').count()).toBe(0);
        expect(await page.evaluate('window.__replayRan')).toBeUndefined();
        const headers = dialog.getByRole('table', { name: 'Response headers' });
        expect(await headers.getByRole('row', { name: /x-answer/ }).textContent()).toContain('yes');
        expect(await dialog.textContent()).toMatch(/Headers after [\d.,]+ ms, complete after [\d.,]+ ms/);
        expect(await unnamedControls(page)).toEqual([]);

        // An edited body is sent instead, as UTF-8.
        await dialog.getByRole('checkbox', { name: 'Edit the body' }).check();
        const body = dialog.getByRole('textbox', { name: 'Body' });
        expect(await body.inputValue()).toBe(EVENT);
        await body.fill('edited ✓');
        await dialog.getByRole('button', { name: 'Send' }).click();
        await eventually(async () => target.hits(hook).length === 2);
        expect(Buffer.from(target.hits(hook)[1]?.bytes ?? []).toString()).toBe('edited ✓');
        await answer.waitFor();

        // Close: the focus back on Replay.
        await dialog.getByRole('button', { name: 'Close' }).click();
        await dialog.waitFor({ state: 'hidden' });
        expect(await isFocused(replayButton)).toBe(true);

        // Remembered for this endpoint: the URL without its query; nothing of the headers.
        await page.reload();
        await openRequest(page, h.url, ep, id);
        dialog = await openReplay(page);
        expect(await dialog.getByRole('textbox', { name: 'Target URL' }).inputValue()).toBe(`${target.url}${hook}`);
        expect(await dialog.getByRole('textbox', { name: 'Header changes' }).inputValue()).toBe('');
        const stored = (await page.evaluate('JSON.stringify(Object.entries(localStorage))')) as string;
        expect(stored).toContain(`${target.url}${hook}`);
        for (const secret of ['y=2', 'x-new', 'changed', 'edited']) expect(stored).not.toContain(secret);

        // Escape closes it too, and the focus comes back.
        await page.keyboard.press('Escape');
        await dialog.waitFor({ state: 'hidden' });
        expect(await isFocused(replayButton)).toBe(true);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a binary body is sent as captured; a long answer said cut; a dead target, a bad URL and a refused header are said in words', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Uploads');
      const bytes = new Uint8Array([0, 1, 2, 0xff, 0xfe, 0x80, 0x0d, 0x0a, 0x41]);
      const id = await capture(ep, '/upload', bytes, { 'content-type': 'application/octet-stream' });
      const bin = fresh('bin');
      target.answer(bin, () => new Response(new Uint8Array([0xca, 0xfe, 0x00, 0xba, 0xbe]), { status: 202 }));
      const { page, context, errors } = await openPage(chromium(), h.url, account);
      try {
        await openRequest(page, h.url, ep, id);
        const dialog = await openReplay(page);
        await dialog.getByText('The body is binary (9 B, not UTF-8 text) and is sent exactly as captured.').waitFor();
        expect(await dialog.getByRole('checkbox', { name: 'Edit the body' }).count()).toBe(0);
        const url = dialog.getByRole('textbox', { name: 'Target URL' });
        await url.fill(`${target.url}${bin}`);
        await dialog.getByRole('button', { name: 'Send' }).click();
        await dialog.getByRole('heading', { name: 'Answer: 202 Accepted' }).waitFor();
        expect(Buffer.from(target.hits(bin)[0]?.bytes ?? []).equals(Buffer.from(bytes))).toBe(true);
        // The answer's bytes as hex, as a captured binary body is shown.
        expect(await dialog.getByRole('tab', { name: 'Hex' }).getAttribute('aria-selected')).toBe('true');
        expect(await dialog.getByRole('tabpanel').textContent()).toContain('ca fe 00 ba be');

        // More than the 64 KiB the server keeps: said, and the start shown.
        const big = fresh('big');
        target.answer(big, () => new Response('y'.repeat(100_000)));
        await url.fill(`${target.url}${big}`);
        await dialog.getByRole('button', { name: 'Send' }).click();
        await dialog.getByRole('heading', { name: 'Answer: 200 OK' }).waitFor();
        await dialog.getByText('The target sent more than 64 KiB; only the first 64 KiB were kept and are shown.').waitFor();
        expect(await dialog.getByRole('tabpanel').textContent()).toBe('y'.repeat(64 * 1024));

        // Nothing listens there: the target did not answer, with the cause.
        await url.fill(`http://127.0.0.1:${await freePort()}/`);
        await dialog.getByRole('button', { name: 'Send' }).click();
        const alert = dialog.getByRole('alert');
        await alert.waitFor();
        expect(await alert.textContent()).toMatch(/^The target did not answer: request to 127\.0\.0\.1:\d+ failed: ./);
        expect(await dialog.getByRole('heading', { name: /^Answer/ }).count()).toBe(0);

        // The API's refusals at their fields.
        await url.fill('ftp://example.com/');
        await dialog.getByRole('button', { name: 'Send' }).click();
        await eventually(async () => (await url.getAttribute('aria-invalid')) === 'true');
        expect(await dialog.getByRole('alert').textContent()).toBe('Only http and https URLs are allowed, not ftp:');
        // Refused, but not for its address: no CLI command is offered (the CLI would refuse it too).
        expect(await dialog.getByRole('region', { name: 'Send it from your machine' }).count()).toBe(0);
        await url.fill(`${target.url}${bin}`);
        const headers = dialog.getByRole('textbox', { name: 'Header changes' });
        await headers.fill('host: evil.example');
        await dialog.getByRole('button', { name: 'Send' }).click();
        await eventually(async () => (await headers.getAttribute('aria-invalid')) === 'true');
        expect(await url.getAttribute('aria-invalid')).toBeNull();
        expect(await dialog.getByRole('alert').textContent()).toContain('"host" is set by the HTTP client and cannot be given');
        // Checked in the page before sending: a line that is not a header.
        await headers.fill('no colon here');
        await dialog.getByRole('button', { name: 'Send' }).click();
        await dialog.getByRole('alert').filter({ hasText: 'Line 1 is not "Name: value", "Name:" or "Name;".' }).waitFor();
        expect(target.hits(bin).length).toBe(1);
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });

    test('a member replays a capture of an endpoint shared with them (the API allows it: replay reads)', async () => {
      const owner = await signUpAccount(h.url);
      const member = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, owner, 'Shared prod');
      const team = await createTeam(h.url, owner.session, 'Replayers');
      await setStripeSubscription(h.url, { teamId: team.id, seats: 5, created: nowSeconds() - 60 });
      const inv = await call(h.url, 'POST', `/api/teams/${team.id}/invite`, { token: owner.session, body: { email: member.email } });
      expect((await call(h.url, 'POST', `/api/invites/${inv.body.id}/accept`, { token: member.session })).status).toBe(200);
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.session, body: { endpointId: ep.id } })).status).toBeLessThan(300);
      const id = await capture(ep, '/shared', 'from the team', { 'content-type': 'text/plain' });
      const path = fresh('member');
      const { page, context, errors } = await openPage(chromium(), h.url, member);
      try {
        await openRequest(page, h.url, ep, id);
        const dialog = await openReplay(page);
        await dialog.getByRole('textbox', { name: 'Target URL' }).fill(`${target.url}${path}`);
        await dialog.getByRole('button', { name: 'Send' }).click();
        await dialog.getByRole('heading', { name: 'Answer: 200 OK' }).waitFor();
        expect(Buffer.from(target.hits(path)[0]?.bytes ?? []).toString()).toBe('from the team');
        expect(errors).toEqual([]);
      } finally {
        await context.close();
      }
    });
  },
  // The target and the dead port above are on 127.0.0.1; everything else private stays refused.
  { ...TEAMS_ENV, OUTBOUND_ALLOW: '127.0.0.1' },
  CHROMIUM_SKIP,
);

/** `hookcap` on the PATH of a bash: this checkout's CLI under this Bun. */
function bashWithCli(account: Account) {
  const e = cliEnv({ HOOKCAP_API_KEY: account.session });
  const shim = join(e.configHome, 'hookcap');
  writeFileSync(shim, `#!/bin/sh\nexec '${process.execPath}' '${CLI}' "$@"\n`);
  chmodSync(shim, 0o755);
  return {
    // Not spawnSync: the target answering it runs in this process.
    run: async (command: string) => {
      const proc = Bun.spawn(['bash', '-c', command], { env: { ...e.env, PATH: `${e.configHome}:${e.env.PATH}` }, stdout: 'pipe', stderr: 'pipe' });
      const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
      return { exitCode, stdout, stderr };
    },
    cleanup: e.cleanup,
  };
}

describeBackends(
  'dashboard: replay to a private address',
  (h) => {
    test('a loopback target is refused at the URL with the hookcap replay command, which sends it from this machine', async () => {
      const account = await signUpAccount(h.url);
      const ep = await createEndpoint(h.url, account, 'Local dev');
      const id = await capture(ep, '/local', EVENT, { 'content-type': 'application/json', 'x-drop': 'd' });
      const local = fresh('local');
      const { page, context, errors } = await openPage(chromium(), h.url, account, { permissions: ['clipboard-read', 'clipboard-write'] });
      const cli = bashWithCli(account);
      try {
        await openRequest(page, h.url, ep, id);
        const dialog = await openReplay(page);
        const url = dialog.getByRole('textbox', { name: 'Target URL' });
        await url.fill(`${target.url}${local}`);
        await dialog.getByRole('textbox', { name: 'Header changes' }).fill("x-debug: it's 1\nx-drop:");
        // An edited body goes to the CLI on stdin: `--body @x` would read a file named x.
        await dialog.getByRole('checkbox', { name: 'Edit the body' }).check();
        await dialog.getByRole('textbox', { name: 'Body' }).fill(EDITED);
        await dialog.getByRole('button', { name: 'Send' }).click();
        const fromHere = dialog.getByRole('region', { name: 'Send it from your machine' });
        await fromHere.waitFor();
        expect(await url.getAttribute('aria-invalid')).toBe('true');
        expect(await dialog.getByRole('alert').textContent()).toContain('The server does not send to this address: 127.0.0.1 is a loopback address.');
        const command = `printf %s '@x.json {"a": "café"}\n' | hookcap replay ${id} --to '${target.url}${local}' -H 'x-debug: it'\\''s 1' -H 'x-drop:' --api-url '${h.url}' --body @-`;
        expect(await fromHere.locator('pre').textContent()).toBe(command);
        expect(target.hits(local).length).toBe(0);

        await fromHere.getByRole('button', { name: 'Copy command' }).click();
        await dialog.getByRole('status').filter({ hasText: 'Copied the replay command' }).waitFor();
        // Heard, not only in the DOM: the page's own status region is inert behind the dialog.
        expect(await statusesHeard(page)).toContain('Copied the replay command');
        const copied = await eventually(async () => ((await page.evaluate('navigator.clipboard.readText()')) as string) || null);
        expect(copied).toBe(command);
        const run = await cli.run(copied);
        expect([run.exitCode, run.stderr]).toEqual([0, '']);
        expect(run.stdout).toStartWith(`POST ${target.url}${local} → 200`);
        const hit = target.hits(local)[0];
        expect(Buffer.from(hit?.bytes ?? []).toString()).toBe(EDITED);
        expect(hit?.headers['x-debug']).toBe("it's 1");
        expect(hit?.headers['x-drop']).toBeUndefined();
        expect(errors).toEqual([]);
      } finally {
        cli.cleanup();
        await context.close();
      }
    });
  },
  {},
  CHROMIUM_SKIP,
);
