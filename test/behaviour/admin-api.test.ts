/**
 * The operator interface (docs/operations.md): /admin/api on a running node, and the admin command
 * (scripts/admin.ts, a real subprocess) going through it while the service runs and opening the
 * stores itself while it does not. Both backends.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { call } from '../support/client';
import { BACKENDS, PG_ADMIN_URL, provision, type BackendEnv } from '../support/backends';
import { startServer, stopServer, type TestServer, RESTART_TEST_MS } from '../support/server';
import { capture, createTeam, newEndpoint, TEAMS_ENV } from './teams-support';
import { eventually, newAccount } from '../support/client';

const ROOT = join(import.meta.dir, '..', '..');
const TOKEN = 'adm_test_7f3c9a1e5b2d4f6081a3c5e7f9b1d3e5';

interface AdminRun {
  code: number;
  stdout: string;
  stderr: string;
  /** stdout parsed, when it is one JSON line. */
  json: Record<string, unknown>;
}

async function admin(env: Record<string, string>, args: string[]): Promise<AdminRun> {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', 'admin.ts'), ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  let json: Record<string, unknown> = {};
  try {
    json = JSON.parse(stdout) as Record<string, unknown>;
  } catch {
    // not JSON: the test reads stderr
  }
  return { code, stdout, stderr, json };
}

test('opened directly, an unreachable Postgres is one line with (unavailable), as the service would answer, no stack trace and no password', async () => {
  // Port 1 of 127.0.0.1: nothing listens there; no service is started or touched.
  const r = await admin({ PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', DATABASE_URL: 'postgres://hookcap:s3cret-pw@127.0.0.1:1/hookcap', DATA_DIR: join(tmpdir(), 'hookcap-admin-unused') }, ['show-plan', '--account', 'x@example.com']);
  expect(r.code).toBe(1);
  const lines = r.stderr.trim().split('\n');
  expect(lines).toEqual(['admin: no running service; opening the stores directly', 'admin: a data store is unavailable: connect ECONNREFUSED 127.0.0.1:1 (unavailable)']);
  expect(r.stderr).not.toContain('s3cret-pw');
});

test('opened directly, any other failure is one line with (internal), as the service would answer, exit 1, no stack trace', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-admin-fail-'));
  try {
    const base = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' };
    // A Postgres that answers, without the database named (nothing is created).
    const missing = `hookcap_no_such_${process.pid}`;
    const pgUrl = new URL(PG_ADMIN_URL);
    pgUrl.pathname = `/${missing}`;
    const db = await admin({ ...base, DATABASE_URL: pgUrl.toString(), DATA_DIR: join(dir, 'unused') }, ['show-plan', '--account', 'x@example.com']);
    expect(db.code).toBe(1);
    expect(db.stdout).toBe('');
    expect(db.stderr.trim().split('\n')).toEqual(['admin: no running service; opening the stores directly', `admin: failed: database "${missing}" does not exist (internal)`]);
    // A backup whose target lies under a file.
    writeFileSync(join(dir, 'file'), '');
    const backup = await admin({ ...base, DATA_DIR: join(dir, 'data') }, ['backup', join(dir, 'file', 'sub')]);
    expect(backup.code).toBe(1);
    const lines = backup.stderr.trim().split('\n');
    expect(lines.length).toBe(2);
    // Refused before anything is made (it was an ENOTDIR from the clean-up, hiding the cause).
    expect(lines[1]).toBe(`admin: ${join(dir, 'file')} is not a folder (validation)`);
    for (const r of [db, backup]) expect(r.stderr).not.toContain('    at ');
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
});

for (const backend of BACKENDS) {
  describe(`operator API and admin command [${backend}]`, () => {
    let provisioned: BackendEnv | undefined;
    let node: TestServer | undefined;
    const env = () => {
      if (!node) throw new Error('no server');
      return node.env;
    };
    const base = () => node?.url ?? '';

    beforeAll(async () => {
      provisioned = await provision(backend);
      // The sweep's clock is 8 days ahead (free plan: 7 days' retention) and it runs by itself only
      // a second after start: captures made by the tests go only when `admin retention` is run.
      node = await startServer({ env: { ...provisioned.env, ...TEAMS_ENV, ADMIN_TOKEN: TOKEN, USAGE_FLUSH_MS: '100', RETENTION_CLOCK_OFFSET_MS: String(8 * 86_400_000), RETENTION_INTERVAL_MS: '3600000' } });
    });
    afterAll(async () => {
      if (node) await stopServer(node);
      await provisioned?.cleanup();
    });

    test('every /admin/api call needs the token: none, wrong or malformed is a JSON 401 that reveals nothing', async () => {
      for (const authorization of [undefined, `Bearer ${TOKEN}x`, `Bearer ${TOKEN.slice(0, -1)}`, 'Bearer ', TOKEN, `Basic ${btoa(`admin:${TOKEN}`)}`]) {
        for (const [method, path, body] of [
          ['GET', '/admin/api/health', undefined],
          ['GET', '/admin/api/backlog', undefined],
          ['PUT', '/admin/api/accounts/someone@example.com/plan', { plan: 'pro' }],
          ['PUT', '/admin/api/teams/team_x/subscription', { seats: 'bad' }],
          ['POST', '/admin/api/backup', { dir: '/tmp/nope' }],
        ] as const) {
          const r = await call(base(), method, path, { body, headers: authorization ? { authorization } : {} });
          expect({ authorization, path, status: r.status }).toEqual({ authorization, path, status: 401 });
          expect(r.body).toEqual({ error: 'the operator API needs Authorization: Bearer <ADMIN_TOKEN>', code: 'unauthorized' });
        }
      }
    });

    test('the command sets a plan through the running service; the account sees it in /api/usage', async () => {
      const user = await newAccount(base());
      expect((await call(base(), 'GET', '/api/usage', { token: user.key })).body).toMatchObject({ plan: 'free', limit: 100_000 });
      const r = await admin(env(), ['set-plan', '--account', user.email, '--plan', 'pro']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('via the running service');
      expect(r.json).toEqual({ userId: user.userId, email: user.email, plan: 'pro', limit: 5_000_000 });
      expect((await call(base(), 'GET', '/api/usage', { token: user.key })).body).toMatchObject({ plan: 'pro', limit: 5_000_000 });
      // By id as well as by email.
      const back = await admin(env(), ['show-plan', '--account', user.userId]);
      expect(back.json).toMatchObject({ email: user.email, plan: 'pro' });
    });

    test('the command sets a team subscription through the running service; inviting then works', async () => {
      const owner = await newAccount(base());
      const team = await createTeam(base(), owner.key, 'Operated');
      const invite = async () => (await call(base(), 'POST', `/api/teams/${team.id}/invite`, { token: owner.key, body: { email: `m${Math.random().toString(36).slice(2)}@example.com` } })).status;
      expect(await invite()).toBe(402);
      const r = await admin(env(), ['set-subscription', '--team', team.id, '--seats', '3', '--status', 'active']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('via the running service');
      expect(r.json).toMatchObject({ teamId: team.id, status: 'active', active: true, seats: 3, source: 'admin' });
      expect(await invite()).toBe(201);
      const shown = await admin(env(), ['show-subscription', '--team', team.id]);
      expect(shown.json).toMatchObject({ teamId: team.id, status: 'active', seats: 3 });
    });

    test('health and backlog come from the running node', async () => {
      const h = await admin(env(), ['health']);
      expect(h.code).toBe(0);
      expect(h.json).toMatchObject({ pid: node?.proc.pid, health: { ok: true, backends: { state: backend === 'embedded' ? 'pglite' : 'postgres' } } });
      const b = await admin(env(), ['backlog']);
      expect(b.code).toBe(0);
      expect(b.json).toMatchObject({ shipper: { backlog: expect.any(Number) }, log: { unshipped: expect.any(Number), checkpoint: expect.any(Object) } });
    });

    test('retention: the command runs a sweep on the running node now; expired captures go', async () => {
      const user = await newAccount(base());
      const ep = await newEndpoint(base(), user.key, 'expiring');
      for (let i = 0; i < 3; i++) await capture(base(), ep.slug, `old ${i}`);
      const listed = async () => (await call<unknown[]>(base(), 'GET', `/api/endpoints/${ep.slug}/requests`, { token: user.key })).body.length;
      await eventually(async () => (await listed()) === 3);
      const r = await admin(env(), ['retention']);
      expect(r.code).toBe(0);
      expect(r.stderr).toContain('via the running service');
      const swept = r.json as { rowsDeleted: number; partitionsDropped: number; mutations: number; mutationsPending: boolean; deadPins: number };
      expect(Object.keys(swept).sort()).toEqual(['deadPins', 'mutations', 'mutationsPending', 'partitionsDropped', 'rowsDeleted']);
      // SQLite deletes now; ClickHouse drops the (wholly expired) week's partition or issues a mutation.
      if (backend === 'embedded') expect(swept.rowsDeleted).toBeGreaterThanOrEqual(3);
      else expect(swept.partitionsDropped + swept.mutations > 0 || swept.mutationsPending).toBe(true);
      // ClickHouse mutations and partition drops finish in the background.
      await eventually(async () => (await listed()) === 0, 30_000);
    });

    test('refusals are one line with the service\'s error code, exit 1, and change nothing', async () => {
      const user = await newAccount(base());
      const cases: [string[], string][] = [
        [['set-plan', '--account', user.email, '--plan', 'platinum'], '(validation)'],
        [['set-plan', '--account', 'nobody@example.com', '--plan', 'pro'], '(not_found)'],
        [['show-subscription', '--team', 'team_missing'], '(not_found)'],
        [['set-subscription', '--team', 'team_missing', '--seats', '1', '--status', 'active'], '(not_found)'],
      ];
      if (backend === 'server') cases.push([['backup', join(node?.dataDir ?? '/tmp', 'bk')], '(conflict)']);
      for (const [args, code] of cases) {
        const r = await admin(env(), args);
        expect({ args, exit: r.code }).toEqual({ args, exit: 1 });
        expect(r.stderr).toContain(code);
        expect(r.stderr.trim().split('\n').at(-1)).toStartWith('admin: ');
      }
      expect((await call(base(), 'GET', '/api/usage', { token: user.key })).body).toMatchObject({ plan: 'free' });
      // A token that is not the service's is named as the problem.
      const wrong = await admin({ ...env(), ADMIN_TOKEN: `${TOKEN}-other` }, ['health']);
      expect(wrong.code).toBe(1);
      expect(wrong.stderr).toContain('refused ADMIN_TOKEN');
      // Refused input over HTTP is a JSON 400, not a 500.
      const bad = await call(base(), 'PUT', '/admin/api/teams/team_x/subscription', { body: { seats: -1, status: 'gold', extra: 1 }, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(bad.status).toBe(400);
      expect(bad.body).toMatchObject({ code: 'validation' });
    });

    test('a refusal is the same line, with its code, whether the command goes through the service or opens the stores itself', async () => {
      if (!node) throw new Error('no server');
      const cases: string[][] = [
        ['set-plan', '--account', 'nobody@example.com', '--plan', 'pro'],
        ['show-plan', '--account', 'usr_missing'],
        ['show-subscription', '--team', 'team_missing'],
        ['set-subscription', '--team', 'team_missing', '--seats', '1', '--status', 'active'],
      ];
      if (backend === 'server') cases.push(['backup', join(node.dataDir, 'bk')]);
      const lastLine = (r: AdminRun) => r.stderr.trim().split('\n').at(-1) ?? '';
      const viaService: string[] = [];
      for (const args of cases) {
        const r = await admin(env(), args);
        expect(r.stderr).toContain('via the running service');
        expect({ args, exit: r.code }).toEqual({ args, exit: 1 });
        viaService.push(lastLine(r));
      }
      await stopServer(node, { keepData: true });
      try {
        for (const [i, args] of cases.entries()) {
          const r = await admin(node.env, args);
          expect(r.stderr).toContain('opening the stores directly');
          expect({ args, exit: r.code, line: lastLine(r) }).toEqual({ args, exit: 1, line: viaService[i] ?? '' });
          expect(lastLine(r)).toMatch(/^admin: .+ \((not_found|conflict)\)$/);
        }
      } finally {
        node = await startServer({ env: node.env, dataDir: node.dataDir, port: node.port });
      }
    }, RESTART_TEST_MS);

    test('the token is never written to the service\'s output', () => {
      expect(node?.output() ?? '').not.toContain(TOKEN);
      expect(node?.output() ?? '').not.toContain(TOKEN.slice(8, 24));
    });

    test('with the service stopped, the command opens the stores itself; the running service sees the change after', async () => {
      const user = await newAccount(base());
      if (!node) throw new Error('no server');
      await stopServer(node, { keepData: true });
      try {
        const r = await admin(node.env, ['set-plan', '--account', user.email, '--plan', 'teams']);
        expect(r.code).toBe(0);
        expect(r.stderr).toContain('opening the stores directly');
        expect(r.json).toMatchObject({ plan: 'teams', limit: 20_000_000 });
        const h = await admin(node.env, ['backlog']);
        expect(h.code).toBe(0);
        expect(h.json).toMatchObject({ running: false, log: { unshipped: 0 } });
        const sweep = await admin(node.env, ['retention']);
        expect(sweep.code).toBe(0);
        expect(typeof sweep.json.rowsDeleted).toBe('number');
      } finally {
        node = await startServer({ env: node.env, dataDir: node.dataDir, port: node.port });
      }
      expect((await call(base(), 'GET', '/api/usage', { token: user.key })).body).toMatchObject({ plan: 'teams' });
    }, RESTART_TEST_MS);

    test('without ADMIN_TOKEN the operator API does not exist', async () => {
      const plain = await startServer({ env: { ...(provisioned?.env ?? {}) } });
      try {
        const r = await call(plain.url, 'GET', '/admin/api/health', { headers: { authorization: `Bearer ${TOKEN}` } });
        expect(r.status).toBe(404);
        expect(r.body).toEqual({ error: 'no page GET /admin/api/health; the dashboard is at /, the API at /api (described at /docs)', code: 'not_found' });
        // The command, given a token the service lacks, says so instead of guessing.
        const cmd = await admin({ ...plain.env, ADMIN_TOKEN: TOKEN }, ['health']);
        expect(cmd.code).toBe(1);
        expect(cmd.stderr).toContain('has no operator API');
        if (backend === 'embedded') {
          // Without a token, the running embedded service still cannot be opened twice.
          const refused = await admin(plain.env, ['show-plan', '--account', 'x@example.com']);
          expect(refused.code).toBe(1);
          expect(refused.stderr).toContain('set ADMIN_TOKEN');
        } else {
          // Postgres serves many processes: without a token the command writes there directly, service running.
          const user = await newAccount(plain.url);
          const direct = await admin(plain.env, ['set-plan', '--account', user.email, '--plan', 'pro']);
          expect(direct.code).toBe(0);
          expect(direct.stderr).toContain('opening the stores directly');
          expect((await call(plain.url, 'GET', '/api/usage', { token: user.key })).body).toMatchObject({ plan: 'pro' });
        }
      } finally {
        await stopServer(plain);
      }
    });

    test('a short ADMIN_TOKEN stops start-up with a message naming the variable', async () => {
      const r = await admin({ ...env(), ADMIN_TOKEN: 'short' }, ['health']);
      expect(r.code).toBe(2);
      expect(r.stderr).toContain('ADMIN_TOKEN must be at least 24 characters');
      expect(r.stderr).not.toContain('short"');
    });
  });
}
