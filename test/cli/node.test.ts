/**
 * The `hookcap` CLI under Node, with no Bun anywhere on its PATH: a project of its own with
 * `hookcap` linked into its node_modules (as `npm install ../hookcap` links it) and the package's
 * `bin` linked into node_modules/.bin, as npm links it, runs `npx hookcap` and the bin link against
 * a real server and a real local app. The bin is the Node build of cli/build.ts (made by `npm
 * install`; built afresh here, so the test covers this checkout's sources). Where the columns are
 * checked, the same command under Bun from the sources prints the same lines.
 */
import { beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { buildCli } from '../../cli/build';
import { cleanupAfterAll } from '../support/cleanups';
import { call, newAccount } from '../support/client';
import { freePort } from '../support/server';
import { describeBackends } from '../support/suite';
import { cliEnv, runCli, RunningCli, startLocalApp, TtyCli, type Arrived } from './support';

const ROOT = resolve(import.meta.dir, '../..');
const cleanups = cleanupAfterAll();

const NODE = Bun.which('node');
/** node, env and script(1), and no bun: what a laptop with Node and no Bun has. */
const PATH = [...new Set([NODE ? dirname(NODE) : '/usr/bin', '/usr/bin', '/bin'])].join(':');

let project = '';
/** The bin link npm makes: node_modules/.bin/hookcap → ../hookcap/<package.json bin>. */
let bin = '';

beforeAll(async () => {
  await buildCli();
  project = mkdtempSync(join(tmpdir(), 'hookcap-node-cli-'));
  await Bun.write(join(project, 'package.json'), JSON.stringify({ name: 'app-with-webhooks', type: 'module', private: true }));
  mkdirSync(join(project, 'node_modules', '.bin'), { recursive: true });
  symlinkSync(ROOT, join(project, 'node_modules', 'hookcap'), 'dir');
  const pkg = JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { bin: { hookcap: string } };
  bin = join(project, 'node_modules', '.bin', 'hookcap');
  symlinkSync(join('..', 'hookcap', pkg.bin.hookcap), bin);
  return () => rmSync(project, { recursive: true, force: true });
});

/** The CLI's environment: its own config folder, and a PATH with node and without bun. */
function nodeEnv(vars: Record<string, string> = {}): Record<string, string> {
  const e = cliEnv(vars);
  cleanups.push(e.cleanup);
  return { ...e.env, PATH };
}

test('no bun on the PATH the CLI is given; node is there', () => {
  expect(NODE).not.toBeNull();
  expect(Bun.which('bun', { PATH })).toBeNull();
  expect(Bun.which('node', { PATH })).not.toBeNull();
});

test('npx hookcap --version and --help run on Node in a project of its own', async () => {
  const version = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;
  const env = nodeEnv({ npm_config_update_notifier: 'false' });
  const npx = Bun.spawn(['npx', '--no-install', 'hookcap', '--version'], { cwd: project, env, stdout: 'pipe', stderr: 'pipe' });
  const [out, errText, code] = await Promise.all([new Response(npx.stdout).text(), new Response(npx.stderr).text(), npx.exited]);
  expect({ code, out, err: errText }).toEqual({ code: 0, out: `${version}\n`, err: '' });
  const help = await runCli(['--help'], env, { command: [bin] });
  expect(help.code, help.stderr).toBe(0);
  expect(help.stdout).toContain('Usage: hookcap [options] [command]');
  expect(help.stdout).toContain('listen [options] <slug>');
});

test("nothing at the API address: Node's fetch failure said in the same words as under Bun", async () => {
  const port = await freePort();
  const args = ['endpoints', 'list', '--api-url', `http://127.0.0.1:${port}`, '--key', 'svc_x'];
  const env = nodeEnv();
  const [underNode, underBun] = await Promise.all([runCli(args, env, { command: [bin] }), runCli(args, env)]);
  expect(underNode).toEqual({
    code: 1,
    stdout: '',
    stderr: `error: cannot reach http://127.0.0.1:${port}: connection refused; is hookcap running at http://127.0.0.1:${port}? Set the address with --api-url or HOOKCAP_API_URL\n`,
  });
  expect(underNode).toEqual(underBun);
});

describeBackends('hookcap under Node', (h) => {
  test('listen --forward: each capture reaches the local app byte for byte; Ctrl-C stops it with exit 0', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'node listen' } })).body;
    const app = startLocalApp();
    cleanups.push(() => app.stop());
    const env = nodeEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const cli = new RunningCli(['listen', ep.slug, '--forward', `${app.url}/hook`], env, { command: [bin] });
    cleanups.push(() => void cli.stop('SIGKILL'));
    await cli.until(() => cli.stderr.includes('Ctrl-C to stop'));

    const json = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', note: 'ünïcödé ✓ 支払い' });
    const binary = new Uint8Array([0x00, 0xff, 0xfe, 0x80, 0x0d, 0x0a, 0x25, 0x27, 0xc3, 0x28, 0x00]);
    const sent: { method: string; path: string; body: Uint8Array; headers: Record<string, string> }[] = [
      { method: 'POST', path: '/stripe?x=1&tag=a&tag=b', body: new TextEncoder().encode(json), headers: { 'content-type': 'application/json', 'x-custom': 'Value, with comma' } },
      { method: 'PUT', path: '/bin/a%20b', body: binary, headers: { 'content-type': 'application/octet-stream' } },
    ];
    for (const s of sent) {
      const r = await fetch(`${h.url}/w/${ep.slug}${s.path}`, { method: s.method, body: s.body, headers: s.headers });
      expect(r.headers.get('x-request-id')).toMatch(/^req_/);
    }
    await cli.until(() => app.arrived.length === 2 && cli.lines.length === 2);
    for (const [i, s] of sent.entries()) {
      const got = app.arrived[i] as Arrived;
      expect({ method: got.method, target: got.target, body: [...got.body] }).toEqual({ method: s.method, target: `/hook${s.path}`, body: [...s.body] });
      for (const [k, v] of Object.entries(s.headers)) expect(got.headers[k]).toBe(v);
      expect(got.headers['content-length']).toBe(String(s.body.length));
    }
    expect(cli.lines[0]).toMatch(/^\d\d:\d\d:\d\d {2}POST {5}→ 200 +\d+ ms {2}\/stripe\?x=1&tag=a&tag=b$/);
    expect(cli.lines[1]).toMatch(/^\d\d:\d\d:\d\d {2}PUT {6}→ 200 +\d+ ms {2}\/bin\/a%20b$/);
    expect(await cli.stop('SIGINT')).toBe(0);
    expect(cli.stderr).not.toContain('    at ');
  });

  test('listen retrying an app that answers 500: no warning from Node among its lines, however many retries', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'node retries' } })).body;
    const app = startLocalApp();
    app.answer = () => new Response('boom', { status: 500 });
    cleanups.push(() => app.stop());
    const env = nodeEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    // Four at once with three retries each: twelve waits on listen's one stop signal, past the 10
    // listeners Node warns at if the waits leave theirs behind.
    const cli = new RunningCli(['listen', ep.slug, '--forward', `${app.url}/hook`, '--concurrency', '4', '--retries', '3'], env, { command: [bin] });
    cleanups.push(() => void cli.stop('SIGKILL'));
    await cli.until(() => cli.stderr.includes('Ctrl-C to stop'));
    for (let i = 0; i < 4; i++) await fetch(`${h.url}/w/${ep.slug}/fail/${i}`, { method: 'POST', body: `n=${i}` });
    await cli.until(() => cli.lines.length === 4, 30_000);
    expect(app.arrived.length).toBe(16);
    for (const line of cli.lines) expect(line).toContain('answered 500 (4 attempts)');
    expect(await cli.stop('SIGINT')).toBe(0);
    expect(cli.stderr).not.toContain('MaxListenersExceededWarning');
    expect(cli.stderr).not.toMatch(/^\(node:\d+\)/m);
  }, 60_000);

  test('tail and endpoints list with CJK and emoji: the columns line up in terminal columns, as under Bun, piped and on a terminal', async () => {
    const a = await newAccount(h.url);
    const names = ['支払いテスト 🧾', 'plain'];
    const eps = [];
    for (const name of names) eps.push((await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name } })).body);
    const slug = eps[0]?.slug ?? '';
    const env = nodeEnv({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });

    // endpoints list: EXPIRES starts at the same terminal column on every line, the CJK name's too.
    const list = await runCli(['endpoints', 'list'], env, { command: [bin] });
    expect(list.code, list.stderr).toBe(0);
    expect(list).toEqual(await runCli(['endpoints', 'list'], env));
    const rows = list.stdout.trimEnd().split('\n');
    expect(rows.length).toBe(3);
    const expiresAt = rows.map((row) => Bun.stringWidth(row.slice(0, row.search(/(EXPIRES|never)/))));
    expect(new Set(expiresAt).size).toBe(1);
    expect(rows.some((row) => row.includes('支払いテスト 🧾'))).toBe(true);

    // Paths reach the server percent-encoded; a wide character reaches tail's line in the event
    // a sender names (Stripe's `type`), which comes after the path.
    const events = ['支払い.完了', '🎉.party.🎉', 'invoice.paid', '請求書.支払い済み.確認.🧾'];
    const ids: string[] = [];
    for (const [i, type] of events.entries()) {
      const body = JSON.stringify({ id: `evt_${i}`, object: 'event', type });
      const r = await fetch(`${h.url}/w/${slug}/stripe`, { method: 'POST', body, headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' } });
      ids.push(r.headers.get('x-request-id') ?? '');
    }
    const args = ['tail', slug, '--since', '1h', '--count', String(events.length), '--timeout', '30'];

    // Piped: every value whole, the same lines as Bun prints, the columns in line.
    const piped = await runCli(args, env, { command: [bin] });
    expect(piped.code, piped.stderr).toBe(0);
    expect(piped.stdout).toBe((await runCli(args, env)).stdout);
    const lines = piped.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(events.length);
    for (const [i, line] of lines.entries()) expect(line).toEndWith(`${ids[i]}  /stripe  stripe ${events[i]}`);
    expect(new Set(lines.map((l, i) => l.indexOf(ids[i] ?? '?'))).size).toBe(1);

    // A terminal 100 columns wide leaves 33 for path and event: the widest event is cut by the
    // columns it takes, no line wraps, and Node shows exactly what Bun shows.
    const onTty = async (command?: readonly string[]) => {
      const tty = new TtyCli(args, env, { columns: 100, command });
      cleanups.push(() => tty.kill());
      expect(await tty.exited()).toBe(0);
      return tty.output.split(/\r?\n/).filter((l) => l.includes('req_'));
    };
    const shown = await onTty([bin]);
    expect(shown.length).toBe(events.length);
    for (const l of shown) expect(Bun.stringWidth(l), l).toBeLessThanOrEqual(100);
    expect(shown[0]).toEndWith('  /stripe  stripe 支払い.完了');
    expect(shown[3]).toMatch(/ {2}\/stripe {2}stripe 請求書\S*…$/);
    expect(shown).toEqual(await onTty());
  });
});
