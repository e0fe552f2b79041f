import { describe, expect, test } from 'bun:test';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, json, newAccount } from '../support/client';
import { startServer, stopServer, RESTART_TEST_MS } from '../support/server';

/** The node's shipper once every capture it holds is stored (backlog 0). */
async function drained(url: string): Promise<{ shipped: number }> {
  return eventually(async () => {
    const shipper = ((await json(await fetch(`${url}/healthz`))) as { shipper: { backlog: number; shipped: number } }).shipper;
    return shipper.backlog === 0 ? shipper : null;
  }, 15_000);
}

for (const backend of BACKENDS) {
  describe(`durability [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    test('every acknowledged capture survives SIGKILL and is listed after restart', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      // The shipper is told to wait a minute, so at kill time nothing is in the store: every
      // capture listed afterwards came back from the capture log.
      const first = await startServer({ env: { ...p.env, SHIP_MAX_AGE_MS: '60000', SHIP_BATCH_ROWS: '100000' } });
      cleanups.push(() => stopServer(first)); // killed below; stopped here if the test times out first
      const a = await newAccount(first.url);
      const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'durable' } })).body;
      const acked: string[] = [];
      await Promise.all(
        Array.from({ length: 8 }, async (_, w) => {
          for (let i = 0; i < 25; i++) {
            const r = await fetch(`${first.url}/w/${ep.slug}`, { method: 'POST', body: `w${w}-${i}` });
            if (r.status === 200) acked.push(((await json(r)) as { id: string }).id);
          }
        }),
      );
      expect(acked.length).toBe(200);
      first.proc.kill('SIGKILL');
      await first.proc.exited;

      const second = await startServer({ env: { ...p.env }, dataDir: first.dataDir, port: first.port });
      cleanups.push(() => stopServer(second));
      const listed = await eventually(async () => {
        const r = await call(second.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=1000`, { token: a.key });
        return r.body.length >= acked.length ? (r.body as { id: string }[]) : null;
      }, 15_000);
      const ids = new Set(listed.map((r) => r.id));
      for (const id of acked) expect(ids.has(id)).toBe(true);
      // Replayed once, never duplicated: counted once nothing is left to ship.
      await drained(second.url);
      const after = await call(second.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=1000`, { token: a.key });
      expect(after.body.length).toBe(acked.length);
    }, RESTART_TEST_MS);

    test('a restart after a clean shutdown replays nothing twice', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const first = await startServer({ env: { ...p.env } });
      const a = await newAccount(first.url);
      const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'clean' } })).body;
      for (let i = 0; i < 10; i++) await fetch(`${first.url}/w/${ep.slug}`, { method: 'POST', body: `c${i}` });
      await stopServer(first, { keepData: true });
      const second = await startServer({ env: { ...p.env }, dataDir: first.dataDir, port: first.port });
      cleanups.push(() => stopServer(second));
      // A clean shutdown stored everything and said so: the restarted node ships nothing again.
      expect((await drained(second.url)).shipped).toBe(0);
      const r = await call(second.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key });
      expect(r.body.length).toBe(10);
    }, RESTART_TEST_MS);
  });
}
