/**
 * bench/backup — how long `admin backup` takes on a running embedded service, how large the backup
 * is, how long `admin restore` takes, and what the capture path sees meanwhile.
 *
 *   node_modules/.bin/bun bench/backup.ts
 *   BENCH_CAPTURES=50000 BENCH_BODY_BYTES=1000 node_modules/.bin/bun bench/backup.ts
 *
 * Captures are sent first (all shipped), then a paced load of BENCH_LOAD_RATE captures/s runs
 * while the backup is taken; its ack latency during the backup is printed next to before it.
 */
import { mkdtempSync, rmSync, statSync, readdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sendCaptures } from '../test/support/bulk-capture';
import { newAccount, call } from '../test/support/client';
import { startServer, stopServer } from '../test/support/server';

const captures = Number(process.env.BENCH_CAPTURES ?? 50_000);
const bodyBytes = Number(process.env.BENCH_BODY_BYTES ?? 1_000);
const loadRate = Number(process.env.BENCH_LOAD_RATE ?? 200);
const ROOT = join(import.meta.dir, '..');
const TOKEN = 'bench_backup_token_0123456789abcdef';

async function admin(env: Record<string, string>, args: string[]): Promise<{ code: number; out: string; ms: number }> {
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, 'scripts', 'admin.ts'), ...args], { cwd: ROOT, env, stdout: 'pipe', stderr: 'pipe' });
  const [out, err, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  if (code !== 0) throw new Error(`admin ${args.join(' ')}: ${err}`);
  return { code, out, ms: performance.now() - t0 };
}

function folderBytes(dir: string): number {
  let total = 0;
  for (const e of readdirSync(dir, { withFileTypes: true, recursive: true })) if (e.isFile()) total += statSync(join(e.parentPath, e.name)).size;
  return total;
}

const pct = (xs: number[], p: number) => {
  const s = [...xs].sort((a, b) => a - b);
  return s[Math.min(s.length - 1, Math.floor((p / 100) * s.length))] ?? 0;
};

const scratch = mkdtempSync(join(tmpdir(), 'hookcap-bench-backup-'));
const server = await startServer({ env: { ADMIN_TOKEN: TOKEN } });
try {
  const user = await newAccount(server.url);
  const ep = (await call<{ slug: string }>(server.url, 'POST', '/api/endpoints', { token: user.key, body: { name: 'bench' } })).body;
  const pad = 'x'.repeat(Math.max(0, bodyBytes - 40));
  const t0 = performance.now();
  await sendCaptures({ url: server.url, slug: ep.slug, count: captures, body: (i) => JSON.stringify({ i, pad }), connections: 16 });
  console.log(`sent ${captures} captures of ~${bodyBytes} B in ${((performance.now() - t0) / 1000).toFixed(1)} s`);
  for (;;) {
    const h = await call<{ shipper: { backlog: number } }>(server.url, 'GET', '/healthz');
    if (h.body.shipper.backlog === 0) break;
    await Bun.sleep(200);
  }

  // Paced load: one capture every 1/rate s, latency of each.
  const lat: { at: number; ms: number }[] = [];
  let stop = false;
  const load = (async () => {
    const gap = 1000 / loadRate;
    let next = performance.now();
    const inflight: Promise<void>[] = [];
    while (!stop) {
      const at = performance.now();
      inflight.push(
        fetch(`${server.url}/w/${ep.slug}/load`, { method: 'POST', body: 'load' }).then(async (r) => {
          await r.arrayBuffer();
          if (r.status === 200) lat.push({ at, ms: performance.now() - at });
        }),
      );
      next += gap;
      await Bun.sleep(Math.max(0, next - performance.now()));
    }
    await Promise.all(inflight);
  })();
  await Bun.sleep(3_000);
  const b0 = performance.now();
  const backupDir = join(scratch, 'backup');
  const backup = await admin(server.env, ['backup', backupDir]);
  const b1 = performance.now();
  await Bun.sleep(1_000);
  stop = true;
  await load;
  const during = lat.filter((l) => l.at >= b0 && l.at <= b1).map((l) => l.ms);
  const beforeB = lat.filter((l) => l.at < b0).map((l) => l.ms);
  const serverMs = (JSON.parse(backup.out) as { ms: number }).ms;
  console.log(`backup: ${(backup.ms / 1000).toFixed(2)} s for the command (${(serverMs / 1000).toFixed(2)} s in the service), ${(folderBytes(backupDir) / 1e6).toFixed(1)} MB; data dir ${(folderBytes(server.dataDir) / 1e6).toFixed(1)} MB`);
  console.log(`capture ack latency at ${loadRate}/s: before p50 ${pct(beforeB, 50).toFixed(1)} ms p99 ${pct(beforeB, 99).toFixed(1)} ms; during backup p50 ${pct(during, 50).toFixed(1)} ms p99 ${pct(during, 99).toFixed(1)} ms max ${pct(during, 100).toFixed(1)} ms (${during.length} captures)`);

  const restoreDir = join(scratch, 'restored');
  const restore = await admin({ ...server.env, ADMIN_TOKEN: '', DATA_DIR: restoreDir }, ['restore', backupDir]);
  console.log(`restore: ${(restore.ms / 1000).toFixed(2)} s for the command; ${(JSON.parse(restore.out) as { captures: number }).captures} captures in the SQLite copy`);
} finally {
  await stopServer(server);
  rmSync(scratch, { recursive: true, force: true });
}
