/**
 * Shutdown with a deadline (SHUTDOWN_TIMEOUT_MS), in a real process sent SIGTERM: it stops
 * accepting, drains the capture log into the store as far as the deadline allows and exits by the
 * deadline; nothing acknowledged is lost (what the drain could not ship is replayed at the next start).
 */
import { describe, expect, test } from 'bun:test';
import { mkdirSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { CaptureLog } from '../../src/engine/capture-log';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, json, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';

/** Slack for the process to end once stop() has returned, on a loaded test machine. */
const EXIT_SLACK_MS = 1_500;

/** Frames in the capture log past its checkpoint: acknowledged but not stored. Opened after the process exited. */
async function unshippedIn(dataDir: string): Promise<number> {
  const opened = await CaptureLog.open(join(dataDir, 'log'), 64 * 1024 * 1024);
  await opened.log.close();
  return opened.unshipped;
}

async function sigterm(s: TestServer): Promise<{ code: number | null; ms: number }> {
  const sent = Date.now();
  s.proc.kill('SIGTERM');
  await s.proc.exited;
  return { code: s.proc.exitCode, ms: Date.now() - sent };
}

for (const backend of BACKENDS) {
  describe(`shutdown [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    async function setUp(env: Record<string, string>) {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const server = await startServer({ env: { ...p.env, ...env } });
      cleanups.push(() => stopServer(server));
      const a = await newAccount(server.url);
      const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'shutdown' } })).body;
      const acked: string[] = [];
      await Promise.all(
        Array.from({ length: 4 }, async (_, w) => {
          for (let i = 0; i < 25; i++) {
            const r = await fetch(`${server.url}/w/${ep.slug}`, { method: 'POST', body: `w${w}-${i}` });
            expect(r.status).toBe(200);
            acked.push(((await json(r)) as { id: string }).id);
          }
        }),
      );
      /** Starts the service again on the same data and lists what the endpoint holds. */
      const restartAndList = async (expected: number) => {
        const again = await startServer({ env: { ...p.env }, dataDir: server.dataDir, port: server.port });
        cleanups.push(() => stopServer(again));
        return eventually(async () => {
          const r = await call(again.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=1000`, { token: a.key });
          const ids = (r.body as { id: string }[]).map((c) => c.id);
          return ids.length >= expected ? ids : null;
        }, 20_000);
      };
      return { server, acked, restartAndList };
    }

    test('SIGTERM ships everything acknowledged before exiting, within the deadline', async () => {
      // The shipper would wait a minute: only the drain at shutdown can have stored these.
      const { server, acked, restartAndList } = await setUp({ SHIP_MAX_AGE_MS: '60000', SHIP_BATCH_ROWS: '100000', SHUTDOWN_TIMEOUT_MS: '8000' });
      const exit = await sigterm(server);
      expect(exit.code).toBe(0);
      expect(exit.ms).toBeLessThan(8_000 + EXIT_SLACK_MS);
      expect(await unshippedIn(server.dataDir)).toBe(0);
      const ids = await restartAndList(acked.length);
      expect(ids.sort()).toEqual([...acked].sort());
    }, 120_000);

    test('a drain that cannot finish and a request that never ends are cut at the deadline; nothing acknowledged is lost', async () => {
      const { server, acked, restartAndList } = await setUp({ SHIP_MAX_AGE_MS: '60000', SHIP_BATCH_ROWS: '100000', SHUTDOWN_TIMEOUT_MS: '2000' });
      // The checkpoint cannot be written: the shipper worker fails at every batch.
      const blocker = join(server.dataDir, 'log', 'checkpoint.json.tmp');
      mkdirSync(blocker);
      // An upload whose body never ends keeps a request in flight.
      const hanging = fetch(`${server.url}/w/never-ends`, {
        method: 'POST',
        body: new ReadableStream({ start: (c) => c.enqueue(new TextEncoder().encode('partial')) }),
      }).catch(() => null);
      await Bun.sleep(200);
      const exit = await sigterm(server);
      await hanging;
      expect(exit.ms).toBeLessThan(2_000 + EXIT_SLACK_MS);
      expect(server.output()).toContain('shutdown deadline');
      // The drain was cut: the log still holds captures the store may not have.
      expect(await unshippedIn(server.dataDir)).toBe(acked.length);
      rmSync(blocker, { recursive: true });
      const ids = await restartAndList(acked.length);
      expect(ids.sort()).toEqual([...acked].sort());
    }, 120_000);
  });
}
