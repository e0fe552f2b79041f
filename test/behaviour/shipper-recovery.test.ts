/**
 * The shipper worker's failure path, in a real process: a failure the worker cannot retry (here
 * the checkpoint cannot be written: a directory stands where its temporary file goes) is logged,
 * /healthz says `ok: false`, and a new worker starts from the checkpoint. Once the fault is gone,
 * shipping resumes; every acknowledged capture is stored exactly once, also after a restart.
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import type { Health } from '../../src/health';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, json, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';

for (const backend of BACKENDS) {
  describe(`shipper worker failure [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    const health = async (s: TestServer) => (await call<Health>(s.url, 'GET', '/healthz')).body;

    test('a failing worker is reported and replaced; shipping resumes with nothing lost or doubled', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const first = await startServer({ env: { ...p.env } });
      const a = await newAccount(first.url);
      const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'shipper' } })).body;
      const acked: string[] = [];
      const send = async (n: number, tag: string) => {
        for (let i = 0; i < n; i++) {
          const r = await fetch(`${first.url}/w/${ep.slug}`, { method: 'POST', body: `${tag}-${i}` });
          expect(r.status).toBe(200);
          acked.push(((await json(r)) as { id: string }).id);
        }
      };
      const listed = async (s: TestServer) =>
        ((await call(s.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=1000`, { token: a.key })).body as { id: string }[]).map((r) => r.id);

      await send(10, 'before');
      await eventually(async () => (await listed(first)).length === 10, 15_000);
      expect((await health(first)).ok).toBe(true);

      // The fault: writeCheckpoint's temporary file cannot be created.
      const blocker = join(first.dataDir, 'log', 'checkpoint.json.tmp');
      mkdirSync(blocker);
      await send(10, 'during');
      const failing = await eventually(async () => {
        const h = await health(first);
        return h.ok === false ? h : null;
      }, 15_000);
      expect(failing.shipper?.worker).toBe('failed');
      expect(failing.shipper?.lastError).toContain('checkpoint.json.tmp');
      expect(first.output()).toContain('shipper worker failed');
      // Captures are still acknowledged while the worker is down: the log holds them.
      await send(10, 'while-failed');

      rmSync(blocker, { recursive: true });
      const recovered = await eventually(async () => {
        const h = await health(first);
        return h.ok && h.shipper?.backlog === 0 ? h : null;
      }, 40_000);
      expect(recovered.shipper?.worker).toBe('running');
      expect(recovered.shipper?.restarts).toBeGreaterThanOrEqual(1);
      await send(10, 'after');

      const ids = await eventually(async () => {
        const got = await listed(first);
        return got.length >= acked.length ? got : null;
      }, 15_000);
      expect(ids.length).toBe(acked.length);
      expect(new Set(ids)).toEqual(new Set(acked));

      // The checkpoint moved past everything: a restart replays nothing twice.
      await stopServer(first, { keepData: true });
      const second = await startServer({ env: { ...p.env }, dataDir: first.dataDir, port: first.port });
      cleanups.push(() => stopServer(second));
      await Bun.sleep(500);
      expect((await health(second)).shipper?.backlog).toBe(0);
      expect((await listed(second)).sort()).toEqual([...acked].sort());
    }, 120_000);
  });
}
