/**
 * The embedded capture store's inserts are on disk when they resolve (PRAGMA synchronous = FULL):
 * the shipper moves its checkpoint past a batch as soon as its insert resolves, and the log's
 * segments before the checkpoint are recycled, so an insert that sat only in the page cache could
 * be lost to a power cut after the log had let go of it. A power cut cannot be staged here; the
 * test counts, with strace, the syncs of the store's write-ahead log around one insert.
 */
import { afterAll, expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, realpathSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

// Resolved: strace -y prints descriptors' real paths, so a symlinked TMPDIR would match nothing.
const dir = realpathSync(mkdtempSync(join(tmpdir(), 'hookcap-sqlite-sync-')));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const STORE = join(import.meta.dir, '..', '..', 'src', 'stores', 'captures', 'sqlite.ts');

/** Syncs of `<db>-wal` by a process that opens the store, migrates and inserts `rows` captures, then exits without closing it. */
async function walSyncs(name: string, rows: number): Promise<number> {
  const db = join(dir, `${name}.db`);
  const script = join(dir, `${name}.ts`);
  await Bun.write(
    script,
    `import { createSqliteCaptureStore } from ${JSON.stringify(STORE)};
const store = createSqliteCaptureStore({ path: ${JSON.stringify(db)} });
await store.migrate();
const rows = Array.from({ length: ${rows} }, (_, i) => ({ id: 'req_01JD3Q8Y0M4K6Z2W9T5C7B1N' + String(i).padStart(2, '0'), endpointId: 'ep_sync', method: 'POST', path: '/', headers: {}, body: 'x', bodyEncoding: 'utf8', queryParams: {}, contentType: '', ip: '', size: 1, receivedAt: 1700000000000 + i, detectedProvider: '', detectedEvent: '' }));
if (rows.length > 0) await store.insert(rows);
process.exit(0);
`,
  );
  if (!Bun.which('strace')) throw new Error('strace is not installed: scripts/services.sh installs it (apt-get install strace)');
  const trace = join(dir, `${name}.strace`);
  // -y names each descriptor's file, so a sync of the WAL is told from the database file's.
  const proc = Bun.spawn(['strace', '-f', '-y', '-e', 'trace=fsync,fdatasync', '-o', trace, process.execPath, script], { stdout: 'ignore', stderr: 'pipe' });
  const code = await proc.exited;
  if (code !== 0) throw new Error(`the insert script under strace failed (${code}; strace needs ptrace): ${await new Response(proc.stderr).text()}`);
  return readFileSync(trace, 'utf8')
    .split('\n')
    .filter((line) => /f(data)?sync\(\d+</.test(line) && line.includes(`${db}-wal>`)).length;
}

test('an insert into the embedded capture store syncs its write-ahead log before it resolves', async () => {
  const migrateOnly = await walSyncs('migrate-only', 0);
  const withInsert = await walSyncs('with-insert', 3);
  // One more commit, one more sync of the WAL. With synchronous = NORMAL the counts are equal
  // (2 and 2 here: only SQLite's checkpoints sync the WAL).
  expect(withInsert).toBeGreaterThan(migrateOnly);
});
