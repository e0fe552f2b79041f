/**
 * hookcap/client from a Node test suite: a project of its own (its own package.json, `hookcap`
 * linked into its node_modules as `npm install ../hookcap` links it) runs a script under `node`
 * (not Bun) that imports `hookcap/client` by name, makes an endpoint, waits for a webhook its
 * "app" sends, times out on one that never comes, and meets an API refusal, against a real server.
 * Node resolves the package's `default` export, the ESM build of client/build.ts (made by
 * `npm install`; built afresh here, so the test covers the sources of this checkout).
 */
import { beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { buildClient } from '../../client/build';
import { newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

const ROOT = resolve(import.meta.dir, '../..');

/** What a Node project's test would do with the client; prints what it saw as one JSON line. */
const SCRIPT = `
import { bodyJson, createClient, HookcapError, WaitTimeoutError } from 'hookcap/client';

const hookcap = createClient({ apiUrl: process.env.HOOKCAP_URL, key: process.env.HOOKCAP_KEY });
const ep = await hookcap.endpoints.create('node suite');
const paid = hookcap.waitForRequest(ep.slug, (r) => bodyJson(r)?.type === 'invoice.paid', { timeout: 20000 });
const send = (body) => fetch(ep.url + '/stripe', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) });
await send({ type: 'invoice.created' });
await send({ id: 'evt_1', type: 'invoice.paid' });
const got = await paid;

let timeout = null;
try {
  await hookcap.waitForRequest(ep.slug, () => false, { timeout: 5000, since: '15m' });
} catch (e) {
  timeout = { waitTimeout: e instanceof WaitTimeoutError, hookcapError: e instanceof HookcapError, code: e.code, unmatched: e.unmatchedCount };
}
let refused = null;
try {
  await hookcap.endpoints.get('nosuchslug00');
} catch (e) {
  refused = { hookcapError: e instanceof HookcapError, status: e.status, code: e.code };
}
await hookcap.endpoints.delete(ep.slug);
console.log(JSON.stringify({ node: process.version, slug: ep.slug, path: got.path, type: bodyJson(got).type, timeout, refused }));
`;

let project = '';

beforeAll(async () => {
  await buildClient();
  project = mkdtempSync(join(tmpdir(), 'hookcap-node-project-'));
  writeFileSync(join(project, 'package.json'), JSON.stringify({ name: 'app-under-test', type: 'module', private: true }));
  mkdirSync(join(project, 'node_modules'));
  symlinkSync(ROOT, join(project, 'node_modules', 'hookcap'), 'dir');
  writeFileSync(join(project, 'webhook.test.mjs'), SCRIPT);
  return () => rmSync(project, { recursive: true, force: true });
});

describeBackends('hookcap/client under Node', (h) => {
  test('a Node project imports hookcap/client by name, waits for its webhook, and gets typed errors', async () => {
    const account = await newAccount(h.url);
    const node = Bun.spawn(['node', 'webhook.test.mjs'], {
      cwd: project,
      env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOOKCAP_URL: h.url, HOOKCAP_KEY: account.key },
      stdout: 'pipe',
      stderr: 'pipe',
    });
    const [out, err, code] = await Promise.all([new Response(node.stdout).text(), new Response(node.stderr).text(), node.exited]);
    expect({ code, err }).toEqual({ code: 0, err: '' });
    const seen = JSON.parse(out.trim()) as Record<string, unknown>;
    expect(seen).toEqual({
      node: expect.stringMatching(/^v\d+\./),
      slug: expect.any(String),
      path: '/stripe',
      type: 'invoice.paid',
      timeout: { waitTimeout: true, hookcapError: true, code: 'timeout', unmatched: 2 },
      refused: { hookcapError: true, status: 404, code: 'not_found' },
    });
    // It really ran on Node, and the endpoint it made is gone again.
    expect(String(seen.node)).not.toContain('bun');
    const left = await fetch(`${h.url}/api/endpoints/${String(seen.slug)}`, { headers: { authorization: `Bearer ${account.key}` } });
    expect(left.status).toBe(404);
  }, 60_000);
});
