/**
 * Backup and restore of an embedded deployment (docs/operations.md), on real processes: captures
 * are made, the admin command backs the data up while the service runs under a light load, the
 * backup is restored into a new data dir, a server started there has every capture acknowledged
 * before the backup began (shipped ones and ones still only in the capture log), every account and
 * key, and keeps working. Embedded only: with Postgres and ClickHouse, their own tools back up.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { BACKENDS } from '../support/backends';
import { sendCaptures } from '../support/bulk-capture';
import { call, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';
import { newEndpoint } from './teams-support';
import { startHookReceiver, uniquePath } from '../support/hook-receiver';

const ROOT = join(import.meta.dir, '..', '..');
const TOKEN = 'adm_backup_3b5d7f9a1c3e5a7b9d1f3a5c7e9b1d3f';
const N = 1_500;

async function admin(env: Record<string, string>, args: string[]) {
  const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', 'admin.ts'), ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

interface Listed {
  id: string;
  path: string;
  body: string;
}

/** Every capture of an endpoint, through the public API with the account's key. */
async function listAll(base: string, key: string, slug: string): Promise<Listed[]> {
  const out: Listed[] = [];
  let cursor: string | null = null;
  for (;;) {
    const q: string = cursor ? `&cursor=${encodeURIComponent(cursor)}` : '';
    const r = await call<{ items: Listed[]; cursor: string | null; hasMore: boolean }>(base, 'GET', `/api/endpoints/${slug}/requests/paginated?limit=1000${q}`, { token: key });
    if (r.status !== 200) throw new Error(`list: ${r.status} ${r.text}`);
    out.push(...r.body.items);
    if (!r.body.hasMore || !r.body.cursor) return out;
    cursor = r.body.cursor;
  }
}

const describeEmbedded = BACKENDS.includes('embedded') ? describe : describe.skip;

describeEmbedded('backup and restore of the embedded data [embedded]', () => {
  let source: TestServer | undefined;
  let restored: TestServer | undefined;
  const scratch = mkdtempSync(join(tmpdir(), 'hookcap-backup-'));
  const backupDir = join(scratch, 'backup');
  const restoreDir = join(scratch, 'restored-data');
  // Bob's notification receiver: down (500) until the restored node runs.
  const hooks = startHookReceiver();
  const hookPath = uniquePath('backup-notify');
  let hooksUp = false;
  hooks.script(hookPath, () => new Response(hooksUp ? 'ok' : 'down', { status: hooksUp ? 200 : 500 }));

  beforeAll(async () => {
    // Small segments: the log the backup copies spans several. A failed notification waits a
    // minute before its next attempt: Bob's are still pending when the backup is taken.
    source = await startServer({ env: { ADMIN_TOKEN: TOKEN, LOG_SEGMENT_BYTES: '65536', OUTBOUND_ALLOW: `127.0.0.1:${hooks.port}`, NOTIFY_BACKOFF_MS: '60000', NOTIFY_MAX_ATTEMPTS: '20' } });
  });
  afterAll(async () => {
    if (source) await stopServer(source);
    if (restored) await stopServer(restored);
    hooks.stop();
    rmSync(scratch, { recursive: true, force: true });
  });

  test('a backup taken while the service runs restores every capture, account and key into a new data dir', async () => {
    if (!source) throw new Error('no server');
    const s = source;
    const alice = await newAccount(s.url);
    const bob = await newAccount(s.url);
    const epA = await newEndpoint(s.url, alice.key, 'alice hooks');
    const epB = await newEndpoint(s.url, bob.key, 'bob hooks');
    expect((await admin(s.env, ['set-plan', '--account', bob.email, '--plan', 'pro'])).code).toBe(0);
    expect((await call(s.url, 'PATCH', `/api/endpoints/${epB.slug}`, { token: bob.key, body: { notificationUrl: `${hooks.url}${hookPath}` } })).status).toBe(200);

    const bodyOf = (slug: string, i: number) => JSON.stringify({ slug, i, text: `capture ${i} ünïcode ✓` });
    const SHIPPED = 1_000;
    await sendCaptures({ url: s.url, slug: epA.slug, count: SHIPPED, body: (i) => bodyOf(epA.slug, i), connections: 8 });
    await sendCaptures({ url: s.url, slug: epB.slug, count: 300, body: (i) => bodyOf(epB.slug, i), connections: 4 });
    // A graceful stop ships everything; after the restart nothing ships by age for ten minutes, so
    // the rest of the captures are acknowledged but only in the capture log: the backup must carry
    // both the stored ones and those.
    await stopServer(s, { keepData: true });
    const s2 = await startServer({ env: { ...s.env, SHIP_MAX_AGE_MS: '600000', SHIP_BATCH_ROWS: '100000' }, dataDir: s.dataDir, port: s.port });
    source = s2;
    await sendCaptures({ url: s2.url, slug: epA.slug, count: N - SHIPPED, body: (i) => bodyOf(epA.slug, SHIPPED + i), connections: 8 });
    const before = await admin(s2.env, ['backlog']);
    expect(before.code).toBe(0);
    const backlog = JSON.parse(before.stdout) as { log: { unshipped: number } };
    expect(backlog.log.unshipped).toBe(N - SHIPPED);

    // A light load runs through the backup; what it had acknowledged before the backup began must come back.
    let stop = false;
    const acked: { k: number; at: number }[] = [];
    const load = (async () => {
      for (let k = 0; !stop; k++) {
        const r = await fetch(`${s2.url}/w/${epA.slug}/load/${k}`, { method: 'POST', body: `load ${k}`, headers: { 'content-type': 'text/plain' } });
        await r.arrayBuffer();
        if (r.status === 200) acked.push({ k, at: Date.now() });
        await Bun.sleep(10);
      }
    })();
    // Until the load has some acknowledged captures (a loaded machine may take a while).
    const loadDeadline = Date.now() + 20_000;
    while (acked.length < 10 && Date.now() < loadDeadline) await Bun.sleep(50);
    const backupStarted = Date.now();
    const backup = await admin(s2.env, ['backup', backupDir]);
    await Bun.sleep(200);
    stop = true;
    await load;
    expect(backup.stderr).toContain('via the running service');
    expect(backup.code).toBe(0);
    const result = JSON.parse(backup.stdout) as { dir: string; files: number; logSegments: number };
    expect(result.dir).toBe(backupDir);
    const manifest = JSON.parse(readFileSync(join(backupDir, 'manifest.json'), 'utf8')) as { files: Record<string, unknown> };
    expect(Object.keys(manifest.files)).toEqual(expect.arrayContaining(['pglite/PG_VERSION', 'captures.sqlite', 'log/checkpoint.json']));
    expect(result.files).toBe(Object.keys(manifest.files).length);
    expect(readdirSync(join(backupDir, 'log')).filter((f) => f.endsWith('.log')).length).toBeGreaterThan(1);
    const loadBefore = acked.filter((a) => a.at < backupStarted).map((a) => a.k);
    expect(loadBefore.length).toBeGreaterThanOrEqual(10);
    expect(acked.length).toBeGreaterThan(loadBefore.length);
    // Every one of Bob's notifications was tried and failed; none settled.
    expect(new Set(hooks.received(hookPath).map((h) => h.headers['x-hookcap-request-id'])).size).toBe(300);
    // The source stops (and is started again after), so only the restored node can deliver them now.
    await stopServer(s2, { keepData: true });
    hooksUp = true;
    const upSince = Date.now();

    // Restore on a fresh data dir, with the source still running elsewhere: nothing is shared.
    const restoreEnv = { ...s2.env, DATA_DIR: restoreDir, ADMIN_TOKEN: '' };
    const restore = await admin(restoreEnv, ['restore', backupDir]);
    expect(restore.stderr).toContain('opening the stores directly');
    expect(restore.code).toBe(0);
    const restoredReport = JSON.parse(restore.stdout) as { dataDir: string; captures: number };
    expect(restoredReport.dataDir).toBe(restoreDir);
    // Both halves carried captures: the SQLite snapshot (shipped ones) and the log (the rest).
    expect(restoredReport.captures).toBeGreaterThanOrEqual(SHIPPED + 300);
    expect(restoredReport.captures).toBeLessThan(N + 300);

    restored = await startServer({ dataDir: restoreDir, env: { OUTBOUND_ALLOW: `127.0.0.1:${hooks.port}`, NOTIFY_BACKOFF_MS: '200' } });
    const r = restored;

    // Every account and key works: keys, sessions, passwords, plans.
    for (const who of [alice, bob]) {
      expect((await call(r.url, 'GET', '/api/endpoints', { token: who.key })).status).toBe(200);
      expect((await call(r.url, 'GET', '/api/usage', { token: who.session })).status).toBe(200);
      const login = await call(r.url, 'POST', '/api/auth/login', { body: { email: who.email, password: 'correct horse battery' } });
      expect(login.status).toBe(200);
    }
    expect((await call(r.url, 'GET', '/api/usage', { token: bob.key })).body).toMatchObject({ plan: 'pro' });
    // No account sees another's captures after a restore either.
    expect((await call(r.url, 'GET', `/api/endpoints/${epA.slug}/requests`, { token: bob.key })).status).toBe(404);

    // Every capture acknowledged before the backup began, exactly once, byte for byte.
    const wantA = N + loadBefore.length;
    let listedA: Listed[] = [];
    const deadline = Date.now() + 30_000;
    while (Date.now() < deadline) {
      listedA = await listAll(r.url, alice.key, epA.slug);
      if (listedA.length >= wantA) break;
      await Bun.sleep(200);
    }
    const ids = new Set(listedA.map((c) => c.id));
    expect(ids.size).toBe(listedA.length);
    // Keyed by the number in the body: each sendCaptures call numbers its paths from 0.
    const bulk = new Map(listedA.filter((c) => c.path.startsWith('/bulk/')).map((c) => [(JSON.parse(c.body) as { i: number }).i, c.body]));
    const missing = Array.from({ length: N }, (_, i) => i).filter((i) => bulk.get(i) !== bodyOf(epA.slug, i));
    expect(missing).toEqual([]);
    const loads = new Set(listedA.filter((c) => c.path.startsWith('/load/')).map((c) => Number(c.path.slice('/load/'.length))));
    expect(loadBefore.filter((k) => !loads.has(k))).toEqual([]);
    const listedB = await listAll(r.url, bob.key, epB.slug);
    expect(listedB.length).toBe(300);
    expect(new Set(listedB.map((c) => c.body))).toEqual(new Set(Array.from({ length: 300 }, (_, i) => bodyOf(epB.slug, i))));

    // And the restored node keeps capturing.
    const fresh = await fetch(`${r.url}/w/${epB.slug}/after-restore`, { method: 'POST', body: 'new' });
    expect(fresh.status).toBe(200);
    const freshId = ((await fresh.json()) as { id: string }).id;
    const deadline2 = Date.now() + 10_000;
    let got = 0;
    while (Date.now() < deadline2 && got !== 200) {
      got = (await call(r.url, 'GET', `/api/requests/${freshId}`, { token: bob.key })).status;
      if (got !== 200) await Bun.sleep(100);
    }
    expect(got).toBe(200);

    // Bob's notifications, pending when the backup was taken, are delivered by the restored node.
    const delivered = () => new Set(hooks.received(hookPath).filter((h) => h.at >= upSince).map((h) => h.headers['x-hookcap-request-id']));
    const wanted = listedB.map((c) => c.id);
    const deadline3 = Date.now() + 30_000;
    while (Date.now() < deadline3 && wanted.some((id) => !delivered().has(id))) await Bun.sleep(200);
    expect(wanted.filter((id) => !delivered().has(id))).toEqual([]);

    source = await startServer({ env: s2.env, dataDir: s2.dataDir, port: s2.port });
  });

  test('restore refuses a data dir in use or not empty, and a damaged backup, leaving nothing behind', async () => {
    if (!source) throw new Error('no server');
    expect(existsSync(join(backupDir, 'manifest.json'))).toBe(true);
    // Into the running source's own data dir.
    const busy = await admin({ ...source.env, ADMIN_TOKEN: '' }, ['restore', backupDir]);
    expect(busy.code).toBe(1);
    expect(busy.stderr).toContain('is in use by');
    // Into a data dir that already holds something.
    const usedDir = mkdtempSync(join(scratch, 'used-'));
    writeFileSync(join(usedDir, 'captures.sqlite'), 'not mine to overwrite');
    const notEmpty = await admin({ ...source.env, ADMIN_TOKEN: '', DATA_DIR: usedDir }, ['restore', backupDir]);
    expect(notEmpty.code).toBe(1);
    expect(notEmpty.stderr).toContain('is not empty');
    expect(readFileSync(join(usedDir, 'captures.sqlite'), 'utf8')).toBe('not mine to overwrite');
    // A damaged copy is refused by its checksum before anything is written.
    const damaged = join(scratch, 'damaged');
    await Bun.$`cp -r ${backupDir} ${damaged}`.quiet();
    const sqlite = join(damaged, 'captures.sqlite');
    const bytes = readFileSync(sqlite);
    bytes[bytes.length - 100] = (bytes[bytes.length - 100] ?? 0) ^ 0xff;
    writeFileSync(sqlite, bytes);
    const target = join(scratch, 'target-of-damaged');
    const bad = await admin({ ...source.env, ADMIN_TOKEN: '', DATA_DIR: target }, ['restore', damaged]);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('does not match its checksum');
    expect(readdirSync(target).filter((f) => f !== 'hookcap.lock')).toEqual([]);
    // A backup into a folder that is not empty is refused too.
    const again = await admin(source.env, ['backup', backupDir]);
    expect(again.code).toBe(1);
    expect(again.stderr).toContain('(conflict)');
  });

  test('with the service stopped, the command backs up by itself', async () => {
    if (!source) throw new Error('no server');
    await stopServer(source, { keepData: true });
    const dir = join(scratch, 'offline-backup');
    const r = await admin(source.env, ['backup', dir]);
    source = await startServer({ env: source.env, dataDir: source.dataDir, port: source.port });
    expect(r.stderr).toContain('opening the stores directly');
    expect(r.code).toBe(0);
    expect(JSON.parse(readFileSync(join(dir, 'manifest.json'), 'utf8'))).toMatchObject({ format: 'hookcap-embedded-backup', version: 1 });
    // Private to the service's user, like DATA_DIR (docs/security.md).
    expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
  });
});
