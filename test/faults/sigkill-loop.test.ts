/**
 * SIGKILL while the shipper is shipping and while the capture log rolls onto recycled segments, ten
 * times in a row under a steady load, on both backends: every acknowledged capture is listed
 * exactly once at the end. Small segments (LOG_SEGMENT_BYTES=64 KiB, ~100 captures each) and small
 * batches make rolling, recycling and inserting happen several times a second, so every kill lands
 * in the middle of them; the state of the log directory at each kill is printed.
 */
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, test } from 'bun:test';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';
import { countCheck, listAllIds, steadyLoad } from '../support/steady-load';

const RATE = 300;
const KILLS = 10;

for (const backend of BACKENDS) {
  describe(`fault: SIGKILL loop [${backend}]`, () => {
    const cleanups = cleanupAfterAll({ ignoreErrors: true });

    test(`${KILLS} kills during shipping and segment recycling under ${RATE}/s: zero lost, zero duplicated`, async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const env = { ...p.env, LOG_SEGMENT_BYTES: String(64 * 1024), SHIP_BATCH_ROWS: '50', SHIP_MAX_AGE_MS: '20' };
      let server: TestServer = await startServer({ env });
      const dataDir = server.dataDir;
      const port = server.port;
      cleanups.push(() => stopServer(server));
      const a = await newAccount(server.url);
      const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'sigkill' } })).body;

      const load = steadyLoad({ url: () => server.url, slug: ep.slug, rate: RATE, maxInFlight: 32 });
      const atKill: string[] = [];
      for (let k = 0; k < KILLS; k++) {
        // A second's worth of acknowledged captures since the last start, however long a loaded
        // machine takes to get them through (a fixed 0.8–1.5 s let too few through at a load average
        // of 20 for the count below), then a random moment more, so kills fall at different points
        // of the insert/roll cycle.
        const ackedSinceStart = load.report.acked.length;
        await eventually(async () => load.report.acked.length - ackedSinceStart >= RATE, 60_000);
        await Bun.sleep(Math.floor(Math.random() * 700));
        const files = readdirSync(join(dataDir, 'log'));
        const segments = files.filter((f) => /^\d{12}\.log$/.test(f)).length;
        const spares = files.filter((f) => f.startsWith('spare-')).length;
        const health = (await fetch(`${server.url}/healthz`).then((r) => r.json()).catch(() => null)) as { shipper?: { backlog: number } } | null;
        atKill.push(`${segments} seg/${spares} spare/backlog ${health?.shipper?.backlog ?? '?'}`);
        server.proc.kill('SIGKILL');
        await server.proc.exited;
        server = await startServer({ env, dataDir, port });
      }
      await Bun.sleep(1_500);
      const report = await load.stop();
      await eventually(async () => {
        const h = (await fetch(`${server.url}/healthz`).then((r) => r.json())) as { shipper: { backlog: number } };
        return h.shipper.backlog === 0;
      }, 30_000);
      const listed = await listAllIds(server.url, a.key, ep.slug);
      const counted = countCheck(report.acked, listed);
      console.log(
        `sigkill-loop [${backend}]: sent ${report.sent}, acked ${report.acked.length}, no answer ${report.failed}, statuses ${JSON.stringify(report.statuses)}; ` +
          `listed ${listed.length} (${counted.unacked} stored but unanswered), missing ${counted.missing.length}, duplicated ${counted.duplicated.length}; at each kill: ${atKill.join(', ')}`,
      );
      expect(report.acked.length).toBeGreaterThan(RATE * KILLS);
      expect(counted.missing).toEqual([]);
      expect(counted.duplicated).toEqual([]);
      // Only 200 (acked) or no answer at all (the process was gone).
      expect(Object.keys(report.statuses)).toEqual(['200']);
      // Eleven starts of the service: each took tens of seconds on CI at a load average of 20.
    }, 600_000);
  });
}
