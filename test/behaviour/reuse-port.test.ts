/**
 * Port sharing is explicit (REUSE_PORT, default false). Without it a second process on a busy port
 * stops with one "address in use" line; with it several processes, each on its own DATA_DIR, take
 * connections on one port, and the kernel spreads new connections among them.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { LOCK_FILE } from '../../src/data-dir-lock';
import { BACKENDS, provision } from '../support/backends';
import { call, eventually, json, newAccount } from '../support/client';
import type { Health } from '../../src/health';
import { freePort, runUntilExit, startServer, stopServer, type ExitedRun, type TestServer } from '../support/server';

/** Starts the service on its own fresh DATA_DIR, waits for it to exit by itself, and lists what it left there. */
async function startExpectingExit(env: Record<string, string>, timeoutMs?: number): Promise<ExitedRun & { files: string[] }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-port-'));
  try {
    const run = await runUntilExit({ LOG_LEVEL: 'warn', DATA_DIR: dataDir, ...env }, timeoutMs);
    return { ...run, files: readdirSync(dataDir) };
  } finally {
    rmSync(dataDir, { recursive: true, force: true });
  }
}

const lines = (s: string) => s.split('\n').filter((l) => l.trim() !== '');

describe('REUSE_PORT', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await stopServer(s);
  });
  const start = async (env: Record<string, string>, port?: number) => {
    const s = await startServer({ env, port });
    servers.push(s);
    return s;
  };

  test('off (the default): a second process on a busy port stops with one "address in use" line', async () => {
    const first = await start({});
    const r = await startExpectingExit({ PORT: String(first.port) });
    expect(r.code).toBe(1);
    expect(lines(r.stderr)).toEqual([
      `address in use: 127.0.0.1:${first.port} is taken by another process (REUSE_PORT=true lets hookcap processes share it, each with its own DATA_DIR)`,
    ]);
    expect(r.stdout).not.toContain('hookcap ready');
    // Found before any store was opened.
    expect(r.files).toEqual([LOCK_FILE]);
    // Sharing takes both sides: a process asking for it cannot join one that did not. With
    // REUSE_PORT no port is probed first, so this one opens its stores (PGlite: seconds, and over
    // 30 s on a loaded CI machine) before its listen fails: give it longer than the default.
    expect((await startExpectingExit({ PORT: String(first.port), REUSE_PORT: 'true' }, 90_000)).code).toBe(1);
    expect((await call<Health>(first.url, 'GET', '/healthz')).status).toBe(200);
  }, 180_000);

  test('on: two processes, each its own DATA_DIR, serve one port; when one stops the other still answers', async () => {
    const port = await freePort();
    const one = await start({ REUSE_PORT: 'true' }, port);
    const two = await start({ REUSE_PORT: 'true' }, port);
    // `one` answers the shared port's health check as soon as it is up: wait for `two`'s own word.
    await eventually(async () => two.output().includes('hookcap ready'), 30_000);
    expect(one.proc.exitCode).toBeNull();
    expect(two.proc.exitCode).toBeNull();
    await stopServer(one);
    expect(two.proc.exitCode).toBeNull();
    expect((await call<Health>(two.url, 'GET', '/healthz')).status).toBe(200);
  }, 120_000);
});

describe.skipIf(!BACKENDS.includes('server'))('REUSE_PORT spreads captures over the processes [server]', () => {
  test('two receivers on one RECEIVER_PORT each take a share of new connections; every capture is listed once', async () => {
    const p = await provision('server');
    const receiverPort = await freePort();
    const env = { ...p.env, REUSE_PORT: 'true', RECEIVER_PORT: String(receiverPort) };
    const nodes: TestServer[] = [];
    try {
      // One after another: each runs the migrations at start. Each has its own API port to ask it alone.
      nodes.push(await startServer({ env }));
      nodes.push(await startServer({ env }));
      const [one, two] = nodes;
      if (!one || !two) throw new Error('nodes not started');
      const a = await newAccount(one.url);
      const ep = (await call(one.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'shared port' } })).body;
      const ids: string[] = [];
      for (let i = 0; i < 60; i++) {
        // A new connection each time: the kernel picks a process per connection, not per request.
        const r = await fetch(`http://127.0.0.1:${receiverPort}/w/${ep.slug}`, { method: 'POST', body: `n${i}`, headers: { connection: 'close' }, keepalive: false });
        expect(r.status).toBe(200);
        ids.push(((await json(r)) as { id: string }).id);
      }
      const shipped = await eventually(async () => {
        const s = await Promise.all(nodes.map(async (n) => (await call<Health>(n.url, 'GET', '/healthz')).body.shipper?.shipped ?? 0));
        return s.reduce((x, y) => x + y, 0) === ids.length ? s : null;
      }, 15_000);
      expect(Math.min(...shipped)).toBeGreaterThan(0);
      const listed = (await call(one.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key })).body as { id: string }[];
      expect(listed.map((r) => r.id).sort()).toEqual([...ids].sort());
    } finally {
      for (const n of nodes) await stopServer(n);
      await p.cleanup();
    }
  }, 120_000);
});
