/**
 * Notifications pending when a node dies are delivered after it restarts: a real server process,
 * killed with SIGKILL while its notification receiver is down (503s, the next retry a minute away)
 * or hanging (attempts in flight), then started again on the same data directory. Small log
 * segments make the shipper pass (and want to recycle) segments whose notifications are pending.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS, provision } from '../support/backends';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount, type ReceiverAnswer } from '../support/client';
import { startHookReceiver, uniquePath } from '../support/hook-receiver';
import { startServer, stopServer, type TestServer } from '../support/server';
import type { Health } from '../../src/health';

const receiver = startHookReceiver();
afterAll(() => receiver.stop());

const DOWN = 12;
const HUNG = 4;

async function notifyingEndpoint(url: string, key: string, notificationUrl: string | null): Promise<{ slug: string }> {
  const ep = (await call(url, 'POST', '/api/endpoints', { token: key, body: { name: 'restart' } })).body;
  if (notificationUrl) expect((await call(url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: key, body: { notificationUrl } })).status).toBe(200);
  return ep;
}

async function capture(url: string, slug: string, body: string): Promise<string> {
  const r = await fetch(`${url}/w/${slug}`, { method: 'POST', body });
  expect(r.status).toBe(200);
  return ((await r.json()) as ReceiverAnswer).id ?? '';
}

const requestIdsAt = (path: string, since = 0) =>
  receiver
    .received(path)
    .filter((r) => r.at >= since)
    .map((r) => ({ id: r.headers['x-hookcap-request-id'] ?? '', attempt: r.headers['x-hookcap-attempt'] ?? '' }));

for (const backend of BACKENDS) {
  describe(`notifications across a restart [${backend}]`, () => {
    const cleanups = cleanupAfterAll();

    test('SIGKILL with notifications pending (receiver down or hanging): all delivered after restart, retry counts kept', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const env = {
        ...p.env,
        OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}`,
        // After the first failure the next attempt is a minute away: at kill time it is pending.
        NOTIFY_BACKOFF_MS: '60000',
        NOTIFY_MAX_ATTEMPTS: '5',
        NOTIFY_TIMEOUT_MS: '60000',
        LOG_SEGMENT_BYTES: '4096',
      };
      const downPath = uniquePath('down');
      const hungPath = uniquePath('hung');
      let up = false;
      let release = () => {};
      const hang = new Promise<void>((r) => {
        release = r;
      });
      receiver.script(downPath, () => new Response('down', { status: up ? 200 : 503 }));
      receiver.script(hungPath, async () => {
        if (!up) await hang;
        return new Response('ok');
      });
      const first = await startServer({ env });
      const a = await newAccount(first.url);
      const down = await notifyingEndpoint(first.url, a.key, `${receiver.url}${downPath}`);
      const hung = await notifyingEndpoint(first.url, a.key, `${receiver.url}${hungPath}`);
      const quiet = await notifyingEndpoint(first.url, a.key, null);

      const pad = 'x'.repeat(900); // about four frames per 4 KiB segment
      const downIds: string[] = [];
      const hungIds: string[] = [];
      for (let i = 0; i < DOWN; i++) {
        downIds.push(await capture(first.url, down.slug, `down-${i}-${pad}`));
        await capture(first.url, quiet.slug, `quiet-${i}-${pad}`);
      }
      for (let i = 0; i < HUNG; i++) hungIds.push(await capture(first.url, hung.slug, `hung-${i}`));

      // Every notification was tried once and failed (or hangs), and everything is shipped.
      await eventually(async () => requestIdsAt(downPath).length >= DOWN && requestIdsAt(hungPath).length >= HUNG, 10_000);
      await eventually(async () => (await call<Health>(first.url, 'GET', '/healthz')).body.shipper?.backlog === 0, 10_000);
      await Bun.sleep(600); // > the checkpoint's 250 ms rewrite, so the failed attempts are in it
      const logDir = join(first.dataDir, 'log');
      const shipped = JSON.parse(readFileSync(join(logDir, 'checkpoint.json'), 'utf8')) as { segment: number };
      const held = JSON.parse(readFileSync(join(logDir, 'notify-checkpoint.json'), 'utf8')) as { segment: number; tries: Record<string, number> };
      // The shipper is segments ahead, yet the segment of the first pending notification is kept.
      expect(shipped.segment).toBeGreaterThan(held.segment + 2);
      expect(readdirSync(logDir)).toContain(`${String(held.segment).padStart(12, '0')}.log`);
      expect(Object.keys(held.tries).sort()).toEqual([...downIds].sort());

      first.proc.kill('SIGKILL');
      await first.proc.exited;
      up = true;
      release();
      const restartedAt = Date.now();
      const second: TestServer = await startServer({ env, dataDir: first.dataDir, port: first.port });
      cleanups.push(() => stopServer(second));

      const afterDown = await eventually(async () => {
        const got = requestIdsAt(downPath, restartedAt);
        return new Set(got.map((g) => g.id)).size >= DOWN ? got : null;
      }, 15_000);
      expect(new Set(afterDown.map((g) => g.id))).toEqual(new Set(downIds));
      // The retry state survived: each one's second attempt, not a fresh first.
      for (const g of afterDown) expect(g.attempt).toBe('2');
      const afterHung = await eventually(async () => {
        const got = requestIdsAt(hungPath, restartedAt);
        return new Set(got.map((g) => g.id)).size >= HUNG ? got : null;
      }, 15_000);
      expect(new Set(afterHung.map((g) => g.id))).toEqual(new Set(hungIds));

      // Nothing is left pending, and the checkpoint moves on so old segments can be recycled.
      await eventually(async () => (await call<Health>(second.url, 'GET', '/healthz')).body.notifications?.pending === 0, 10_000);
      const later = await capture(second.url, down.slug, 'after restart');
      await eventually(async () => requestIdsAt(downPath).some((g) => g.id === later), 10_000);
      await eventually(async () => {
        const now = JSON.parse(readFileSync(join(logDir, 'notify-checkpoint.json'), 'utf8')) as { segment: number; tries: Record<string, number> };
        return now.segment > held.segment && Object.keys(now.tries).length === 0;
      }, 10_000);
      // Quiet captures were never notified; none was sent twice after the restart.
      expect(afterDown).toHaveLength(DOWN);
    });

    test('a clean restart sends nothing again', async () => {
      const p = await provision(backend);
      cleanups.push(p.cleanup);
      const env = { ...p.env, OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}` };
      const path = uniquePath('clean');
      const first = await startServer({ env });
      const a = await newAccount(first.url);
      const ep = await notifyingEndpoint(first.url, a.key, `${receiver.url}${path}`);
      for (let i = 0; i < 5; i++) await capture(first.url, ep.slug, `c${i}`);
      await eventually(async () => receiver.received(path).length >= 5);
      await eventually(async () => (await call<Health>(first.url, 'GET', '/healthz')).body.notifications?.pending === 0);
      await stopServer(first, { keepData: true });
      expect(existsSync(join(first.dataDir, 'log', 'notify-checkpoint.json'))).toBe(true);
      const second = await startServer({ env, dataDir: first.dataDir, port: first.port });
      cleanups.push(() => stopServer(second));
      await Bun.sleep(800);
      expect(receiver.received(path)).toHaveLength(5);
    });
  });
}
