/**
 * The disk under the capture log fills up under load (a small tmpfs mounted on DATA_DIR/log, filled
 * by the test with a filler file): the receiver answers 503 + Retry-After, never a 200 for a capture
 * it could not write; when the filler is removed it takes captures again by itself; and the log is
 * intact: every acknowledged capture listed exactly once, also after a SIGKILL and a restart.
 * Needs root (mount); skipped with a message otherwise.
 */
import { mkdirSync, mkdtempSync, openSync, closeSync, rmSync, writeSync, unlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer, RESTART_TEST_MS, seedPglite } from '../support/server';
import { countCheck, listAllIds, steadyLoad } from '../support/steady-load';

const RATE = 200;
const FULL_MS = 4_000;

/** Whether this process may mount a tmpfs (root in a container that allows it). */
function canMount(): boolean {
  if (process.getuid?.() !== 0) return false;
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-mountprobe-'));
  const ok = Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=64k', 'tmpfs', dir], { stderr: 'pipe' }).exitCode === 0;
  if (ok) Bun.spawnSync(['umount', dir]);
  rmSync(dir, { recursive: true, force: true });
  return ok;
}

const MOUNTABLE = canMount();
if (!MOUNTABLE) console.warn('disk-full fault test skipped: this process cannot mount a tmpfs (needs root and mount permission)');

/** Fills the filesystem holding `path` with one file until it refuses (ENOSPC). */
function fill(path: string): number {
  const fd = openSync(path, 'w');
  const chunk = new Uint8Array(16 * 1024).fill(1);
  let written = 0;
  try {
    for (;;) written += writeSync(fd, chunk);
  } catch {
    // ENOSPC: then the space smaller than a chunk, in small writes.
    try {
      for (;;) written += writeSync(fd, chunk.subarray(0, 512));
    } catch {
      // full
    }
  } finally {
    closeSync(fd);
  }
  return written;
}

for (const backend of BACKENDS) {
  describe.skipIf(!MOUNTABLE)(`fault: disk full under the capture log [${backend}]`, () => {
    const cleanups = cleanupAfterAll({ ignoreErrors: true });

    test(`503 while full, recovers by itself, log intact (${RATE}/s, ${FULL_MS / 1000} s full)`, async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-diskfull-'));
      const logDir = join(dataDir, 'log');
      mkdirSync(logDir);
      expect(Bun.spawnSync(['mount', '-t', 'tmpfs', '-o', 'size=2m', 'tmpfs', logDir]).exitCode).toBe(0);
      cleanups.push(async () => {
        Bun.spawnSync(['umount', '-l', logDir]);
        rmSync(dataDir, { recursive: true, force: true });
      });
      const env = { ...p.env, LOG_SEGMENT_BYTES: String(256 * 1024) };
      // Its own data dir (for the mount), so startServer does not seed it: the template is copied
      // here, or the embedded start runs initdb, which took over 55 s on CI at a load average of 20.
      if (!p.env.DATABASE_URL) await seedPglite(dataDir);
      let server: TestServer = await startServer({ env, dataDir });
      cleanups.push(() => stopServer(server, { keepData: true }));
      const a = await newAccount(server.url);
      const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'disk-full' } })).body;

      const load = steadyLoad({ url: () => server.url, slug: ep.slug, rate: RATE });
      await Bun.sleep(1_500);
      const filler = join(logDir, 'filler');
      const filled = fill(filler);
      const fullAt = Date.now();
      const ackedAtFull = load.report.acked.length;
      let healthWhileFull: Health | null = null;
      const probes: { status: number; retryAfter: string | null; code?: string }[] = [];
      while (Date.now() - fullAt < FULL_MS) {
        const r = await fetch(`${server.url}/w/${ep.slug}/probe`, { method: 'POST', body: 'probe' });
        const body = (await r.json().catch(() => ({}))) as { code?: string; id?: string };
        probes.push({ status: r.status, retryAfter: r.headers.get('retry-after'), code: body.code });
        // A 200 here would have to be on disk: keep its id with the others, to be counted.
        if (r.status === 200 && body.id) load.report.acked.push(body.id);
        const h = (await call<Health>(server.url, 'GET', '/healthz')).body;
        if (h.status === 'degraded' && h.shipper?.logWritable === false) healthWhileFull = h;
        await Bun.sleep(250);
      }
      const ackedWhileFull = load.report.acked.length - ackedAtFull;
      unlinkSync(filler);
      // Recovers by itself: the next write succeeds (that probe is acknowledged; its id is kept too).
      let refusedWhileRecovering = 0;
      await eventually(async () => {
        const r = await fetch(`${server.url}/w/${ep.slug}/probe`, { method: 'POST', body: 'after' });
        if (r.status === 503) refusedWhileRecovering += 1;
        if (r.status !== 200) return null;
        load.report.acked.push(((await r.json()) as { id: string }).id);
        return true;
      }, 10_000);
      await Bun.sleep(1_500);
      const report = await load.stop();
      await eventually(async () => ((await call<{ shipper: { backlog: number } }>(server.url, 'GET', '/healthz')).body.shipper.backlog === 0 ? true : null), 20_000);
      const listedBefore = await listAllIds(server.url, a.key, ep.slug);
      const refusals = (await call<Health>(server.url, 'GET', '/healthz')).body.refusals;
      // The log is readable after the episode: a crash and restart replays it without loss or doubling.
      server.proc.kill('SIGKILL');
      await server.proc.exited;
      server = await startServer({ env, dataDir, port: server.port });
      await Bun.sleep(1_000);
      const listed = await listAllIds(server.url, a.key, ep.slug);
      const counted = countCheck(report.acked, listed);
      const statusesWhileFull = probes.reduce<Record<string, number>>((m, p) => ({ ...m, [p.status]: (m[p.status] ?? 0) + 1 }), {});
      console.log(
        `disk-full [${backend}]: filler ${filled} bytes; /healthz while full ${JSON.stringify(healthWhileFull?.shipper)}; probes while full ${JSON.stringify(statusesWhileFull)}; load statuses ${JSON.stringify(report.statuses)}, ` +
          `acked ${report.acked.length} (${ackedWhileFull} while full); listed ${listedBefore.length} before restart, ${listed.length} after; missing ${counted.missing.length}, duplicated ${counted.duplicated.length}, unacked listed ${counted.unacked}`,
      );
      expect(probes.filter((p) => p.status === 503).length).toBeGreaterThan(0);
      // /healthz said so while it lasted: degraded, the log not writable.
      expect(healthWhileFull).not.toBeNull();
      for (const p of probes) {
        expect([200, 503]).toContain(p.status);
        if (p.status === 503) {
          expect(p.retryAfter).not.toBeNull();
          expect(p.code).toBe('unavailable');
        }
      }
      expect(Object.keys(report.statuses).filter((s) => s !== '200' && s !== '503')).toEqual([]);
      expect(report.statuses[503] ?? 0).toBeGreaterThan(0);
      // Every 503 a sender got (the load's, the probes', the recovery's) is counted under its reason, and nothing else was refused.
      const refused503 = (report.statuses[503] ?? 0) + probes.filter((p) => p.status === 503).length + refusedWhileRecovering;
      // (A send that failed on the client's side may still have been answered, and counted, by the server.)
      expect(Object.keys(refusals).filter((r) => refusals[r as keyof typeof refusals] !== 0)).toEqual(['capture_log_failed']);
      expect(refusals.capture_log_failed).toBeGreaterThanOrEqual(refused503);
      expect(refusals.capture_log_failed).toBeLessThanOrEqual(refused503 + report.failed);
      expect(counted.missing).toEqual([]);
      expect(counted.duplicated).toEqual([]);
      // Nothing refused was stored: every listed capture was acknowledged.
      expect(counted.unacked).toBe(0);
      expect(listed.length).toBe(listedBefore.length);
    }, RESTART_TEST_MS + 60_000); // two starts, and the episode's own ~40 s of waits
  });
}
