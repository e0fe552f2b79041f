/**
 * A data directory belongs to one process: a second service process on a DATA_DIR in use exits
 * at once with one line naming the directory and the holder's pid, before it opens anything there
 * (so the embedded PGlite and SQLite files and the capture log are never opened twice), and a
 * SIGKILLed holder's lock is gone with it. Nodes that keep nothing in DATA_DIR take no lock.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { dataDirUses, lockDataDir, LOCK_FILE } from '../../src/data-dir-lock';
import { BACKENDS, provision, type BackendEnv } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, json, newAccount } from '../support/client';
import type { Health } from '../../src/health';
import { freePort, runUntilExit, startServer, stopServer, type ExitedRun, type TestServer, RESTART_TEST_MS } from '../support/server';

const startExpectingExit = (env: Record<string, string>) => runUntilExit({ LOG_LEVEL: 'warn', ...env });

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

function expectRefused(r: ExitedRun, dataDir: string, pid: number | undefined): void {
  expect(r.code).toBe(1);
  expect(lines(r.stderr)).toEqual([`DATA_DIR ${dataDir} is in use by pid ${pid}: one process per data directory (stop it, or give this process its own DATA_DIR)`]);
  expect(r.stdout).not.toContain('hookcap ready');
}

for (const backend of BACKENDS) {
  describe(`one process per data directory [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    async function node(p: BackendEnv, opts: { dataDir?: string; port?: number } = {}): Promise<TestServer> {
      const s = await startServer({ env: { ...p.env }, ...opts });
      cleanups.push(() => stopServer(s));
      return s;
    }

    test('a second process on a directory in use is refused at once, on another port or sharing the port, and the first keeps every capture', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const first = await node(p);
      const a = await newAccount(first.url);
      const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'lock' } })).body;
      const acked: string[] = [];
      const send = async (n: number) => {
        for (let i = 0; i < n; i++) {
          const r = await fetch(`${first.url}/w/${ep.slug}`, { method: 'POST', body: `c${acked.length}` });
          expect(r.status).toBe(200);
          acked.push(((await json(r)) as { id: string }).id);
        }
      };
      await send(10);

      const otherPort = await startExpectingExit({ ...p.env, PORT: String(await freePort()), DATA_DIR: first.dataDir });
      expectRefused(otherPort, first.dataDir, first.proc.pid);
      // The trial in issue 16: same directory, same port, the port shared on purpose.
      const samePort = await startExpectingExit({ ...p.env, PORT: String(first.port), REUSE_PORT: 'true', DATA_DIR: first.dataDir });
      expectRefused(samePort, first.dataDir, first.proc.pid);
      // "At once": refused right after reading config, long before a start-up could finish.
      expect(Math.max(otherPort.ms, samePort.ms)).toBeLessThan(15_000);

      await send(10);
      const listed = await eventually(async () => {
        const r = await call(first.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key });
        return r.body.length >= acked.length ? (r.body as { id: string }[]) : null;
      });
      expect(listed.map((r) => r.id).sort()).toEqual([...acked].sort());
    });

    test('after the holder is SIGKILLed, a restart on its directory needs no manual step and keeps every capture', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const first = await node(p, {});
      const a = await newAccount(first.url);
      const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'crash' } })).body;
      const acked: string[] = [];
      for (let i = 0; i < 20; i++) {
        const r = await fetch(`${first.url}/w/${ep.slug}`, { method: 'POST', body: `k${i}` });
        acked.push(((await json(r)) as { id: string }).id);
      }
      first.proc.kill('SIGKILL');
      await first.proc.exited;
      // The lock file stays behind with the dead pid in it; only the OS lock counted.
      expect(existsSync(join(first.dataDir, LOCK_FILE))).toBe(true);

      const second = await node(p, { dataDir: first.dataDir, port: first.port });
      const listed = await eventually(async () => {
        const r = await call(second.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key });
        return r.body.length >= acked.length ? (r.body as { id: string }[]) : null;
      }, 15_000);
      expect(listed.map((r) => r.id).sort()).toEqual([...acked].sort());
      // And the restarted process holds the directory in its turn.
      expectRefused(await startExpectingExit({ ...p.env, PORT: String(await freePort()), DATA_DIR: first.dataDir }), first.dataDir, second.proc.pid);
    }, RESTART_TEST_MS);
  });
}

describe('the lock is taken before anything is opened in DATA_DIR', () => {
  test('a directory locked by another process is left exactly as it was: no PGlite, SQLite or capture log opened', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-locked-'));
    const held = lockDataDir(dir);
    try {
      if (!held.ok) throw new Error('could not take the lock on a fresh directory');
      const r = await startExpectingExit({ PORT: String(await freePort()), DATA_DIR: dir });
      expectRefused(r, dir, process.pid);
      expect(readdirSync(dir)).toEqual([LOCK_FILE]);
    } finally {
      if (held.ok) held.lock.release();
      rmSync(dir, { recursive: true, force: true });
    }
  }, 40_000);

  test('which nodes keep something in DATA_DIR (and so lock it)', () => {
    const server = { databaseUrl: 'postgres://x', clickhouseUrl: 'http://x', smtpUrl: 'smtp://x' };
    const roles = (r: string) => new Set(r.split(',')) as ReadonlySet<'receiver' | 'api' | 'stream'>;
    expect(dataDirUses({ ...server, roles: roles('stream') })).toEqual([]);
    expect(dataDirUses({ ...server, roles: roles('api,stream') })).toEqual([]);
    expect(dataDirUses({ ...server, roles: roles('receiver') })).toEqual(['capture log']);
    expect(dataDirUses({ ...server, smtpUrl: null, roles: roles('api') })).toEqual(['mail outbox']);
    expect(dataDirUses({ databaseUrl: null, clickhouseUrl: null, smtpUrl: null, roles: roles('stream') })).toEqual(['PGlite', 'SQLite']);
  });
});

describe.skipIf(!BACKENDS.includes('server'))('nodes that keep nothing in DATA_DIR [server]', () => {
  test('two stream nodes with SMTP set share one DATA_DIR: no lock taken, the directory is never created', async () => {
    const p = await provision('server');
    const dir = join(mkdtempSync(join(tmpdir(), 'hookcap-unused-')), 'data');
    const env = { ...p.env, ROLES: 'stream', SMTP_URL: 'smtp://127.0.0.1:2525' };
    const nodes: TestServer[] = [];
    try {
      nodes.push(await startServer({ env, dataDir: dir }));
      nodes.push(await startServer({ env, dataDir: dir }));
      for (const n of nodes) expect((await call<Health>(n.url, 'GET', '/healthz')).body.roles).toEqual(['stream']);
      expect(existsSync(dir)).toBe(false);
    } finally {
      for (const n of nodes) await stopServer(n);
      rmSync(resolve(dir, '..'), { recursive: true, force: true });
      await p.cleanup();
    }
  });
});
