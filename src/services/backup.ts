/**
 * Backup and restore of an embedded deployment's data (PGlite accounts, SQLite captures, the
 * capture log), while the service runs or while it is stopped (docs/operations.md).
 *
 * Consistency without stopping the receiver, in this order:
 * 1. read the shipper's checkpoint C (and the notifier's, whose segments are copied too);
 * 2. copy every log segment from C's on (a segment that vanishes meanwhile was shipped, so it is
 *    in step 3's copy; a frame cut off at the end of the live segment is dropped on restore, as
 *    after a crash);
 * 3. snapshot SQLite (VACUUM INTO): it holds everything shipped up to now, so every capture
 *    acknowledged before step 1 is in the log copy or in this snapshot;
 * 4. dump PGlite last, so every endpoint a copied capture names exists in the copy.
 * On restore the log is replayed from C; shipping is idempotent by capture id, so captures in both
 * copies are stored once.
 *
 * A backup is a folder: manifest.json (format, time, checkpoint, and each file's size and SHA-256),
 * pglite/ (PGlite's data directory), captures.sqlite, log/. It is written under a temporary name beside the target
 * and renamed at the end, so a failed backup leaves no folder that looks complete.
 */
import { accessSync, constants, copyFileSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, rmdirSync, statSync, writeFileSync } from 'node:fs';
import { copyFile } from 'node:fs/promises';
import { basename, dirname, join, relative } from 'node:path';
import { listSegments, NOTIFY_CHECKPOINT, readCheckpoint, segmentName, type LogPosition } from '../engine/capture-log';
import { AppError } from '../errors';
import { checkSqliteCopy, snapshotSqlite } from '../stores/captures/sqlite-snapshot';
import { restorePglite, type StateDb } from '../stores/state/db';
import { LOCK_FILE } from '../data-dir-lock';

export const BACKUP_FORMAT = 'hookcap-embedded-backup';
export const BACKUP_VERSION = 1;

const PGLITE_DIR = 'pglite';
const SQLITE_FILE = 'captures.sqlite';
const LOG_DIR = 'log';
const MANIFEST = 'manifest.json';

export interface BackupManifest {
  format: typeof BACKUP_FORMAT;
  version: number;
  createdAt: string;
  /** The shipper's checkpoint when the backup began: the log is replayed from here on restore. */
  checkpoint: LogPosition;
  /** Relative path → size and SHA-256 of every file in the backup but this manifest. */
  files: Record<string, { bytes: number; sha256: string }>;
}

/** What a backup reads: the embedded stores of one data dir. */
export interface BackupSource {
  dataDir: string;
  /** The open state database; must be PGlite. */
  state: StateDb;
  /** The SQLite capture file, or null when captures are in ClickHouse. */
  sqlitePath: string | null;
}

export interface BackupResult {
  dir: string;
  createdAt: string;
  checkpoint: LogPosition;
  /** Files in the backup (manifest.json lists each with its SHA-256) and their bytes. */
  files: number;
  bytes: number;
  logSegments: number;
  ms: number;
}

/** Refuses what is not an embedded deployment: its data is not all in DATA_DIR. */
export function requireEmbedded(source: Pick<BackupSource, 'state' | 'sqlitePath'>): (to: string) => Promise<void> {
  const copy = source.state.copyDataDir;
  if (!copy || source.sqlitePath === null) {
    throw new AppError(
      'conflict',
      'backup covers the embedded stores only (PGlite and SQLite under DATA_DIR); with DATABASE_URL or CLICKHOUSE_URL set, back up Postgres (pg_dump) and ClickHouse with their own tools',
    );
  }
  return copy;
}

/** A backup target: an absolute path that does not exist yet, or an empty folder. */
function checkTarget(dir: string): void {
  if (!dir.startsWith('/')) throw new AppError('validation', 'dir must be an absolute path');
  if (!existsSync(dirname(dir))) throw new AppError('validation', `the folder ${dirname(dir)} does not exist`);
  if (!statSync(dirname(dir)).isDirectory()) throw new AppError('validation', `${dirname(dir)} is not a folder`);
  // The backup is made beside the target and renamed into place.
  try {
    accessSync(dirname(dir), constants.W_OK);
  } catch {
    throw new AppError('validation', `the service cannot write in ${dirname(dir)}`);
  }
  if (!existsSync(dir)) return;
  if (!statSync(dir).isDirectory()) throw new AppError('conflict', `${dir} exists and is not a folder`);
  if (readdirSync(dir).length > 0) throw new AppError('conflict', `${dir} is not empty; give a new or empty folder`);
}

/** In 1 MiB reads, each hashed between awaits: a whole file at once held the receiver for ~0.5 s. */
async function sha256(path: string): Promise<string> {
  const SLICE = 1024 * 1024;
  const file = Bun.file(path);
  const hasher = new Bun.CryptoHasher('sha256');
  for (let at = 0; at < file.size; at += SLICE) hasher.update(await file.slice(at, at + SLICE).arrayBuffer());
  return hasher.digest('hex');
}

/**
 * Copies the segments from `from` on; returns the names copied. Asynchronous copies (the thread
 * pool's), so the receiver on this thread is not held while megabytes move.
 */
async function copySegments(logDir: string, into: string, from: LogPosition): Promise<string[]> {
  mkdirSync(into, { recursive: true });
  const copied = new Set<string>();
  // A second pass picks up a segment started while the first one copied.
  for (let pass = 0; pass < 2; pass++) {
    for (const seg of existsSync(logDir) ? listSegments(logDir) : []) {
      const name = segmentName(seg);
      if (seg < from.segment || copied.has(name)) continue;
      try {
        await copyFile(join(logDir, name), join(into, name));
      } catch (err) {
        // Shipped and recycled since the listing: its captures are in the SQLite snapshot.
        if ((err as NodeJS.ErrnoException).code === 'ENOENT') continue;
        throw err;
      }
      copied.add(name);
    }
  }
  return [...copied];
}

/** The notifier's checkpoint file as it is now (its bytes, kept as they are) and its segment. */
function readNotifyPlace(logDir: string): { raw: string; segment: number } | null {
  let raw: string;
  try {
    raw = readFileSync(join(logDir, NOTIFY_CHECKPOINT), 'utf8');
  } catch {
    return null;
  }
  try {
    const segment = (JSON.parse(raw) as { segment?: unknown }).segment;
    if (typeof segment === 'number' && Number.isInteger(segment)) return { raw, segment };
  } catch {
    // torn (a crash while it was written): the notifier then starts from the shipper's checkpoint
  }
  return { raw, segment: Number.POSITIVE_INFINITY };
}

let running = false;

/** Writes a consistent backup of `source` into `dir` (new or empty). One at a time per process. */
export async function backupEmbedded(source: BackupSource, dir: string): Promise<BackupResult> {
  const copyPglite = requireEmbedded(source);
  checkTarget(dir);
  if (running) throw new AppError('conflict', 'a backup is already running');
  running = true;
  const started = performance.now();
  const staging = join(dirname(dir), `.${basename(dir)}.partial-${process.pid}-${Date.now()}`);
  try {
    // Private, like DATA_DIR itself: the backup holds the same captures, hashes and server secret.
    mkdirSync(staging, { mode: 0o700 });
    const logDir = join(source.dataDir, LOG_DIR);
    const checkpoint = existsSync(logDir) ? readCheckpoint(logDir) : { segment: 0, offset: 0 };
    // The notifier's place too (notify-log.ts): notifications not settled by now are sent after a
    // restore, so their segments are copied even when already shipped.
    const notify = readNotifyPlace(logDir);
    const from = notify && notify.segment < checkpoint.segment ? { segment: notify.segment, offset: 0 } : checkpoint;
    const segments = await copySegments(logDir, join(staging, LOG_DIR), from);
    writeFileSync(join(staging, LOG_DIR, 'checkpoint.json'), JSON.stringify(checkpoint));
    if (notify) writeFileSync(join(staging, LOG_DIR, NOTIFY_CHECKPOINT), notify.raw);
    if (source.sqlitePath !== null && existsSync(source.sqlitePath)) await snapshotSqlite(source.sqlitePath, join(staging, SQLITE_FILE));
    await copyPglite(join(staging, PGLITE_DIR));

    const files: BackupManifest['files'] = {};
    const pgliteFiles = readdirSync(join(staging, PGLITE_DIR), { recursive: true, withFileTypes: true })
      .filter((e) => e.isFile())
      .map((e) => relative(staging, join(e.parentPath, e.name)))
      .sort();
    const names = [
      ...pgliteFiles,
      ...(existsSync(join(staging, SQLITE_FILE)) ? [SQLITE_FILE] : []),
      `${LOG_DIR}/checkpoint.json`,
      ...(notify ? [`${LOG_DIR}/${NOTIFY_CHECKPOINT}`] : []),
      ...segments.map((s) => `${LOG_DIR}/${s}`),
    ];
    for (const name of names) {
      const path = join(staging, name);
      files[name] = { bytes: statSync(path).size, sha256: await sha256(path) };
    }
    const manifest: BackupManifest = { format: BACKUP_FORMAT, version: BACKUP_VERSION, createdAt: new Date().toISOString(), checkpoint, files };
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest, null, 2)}\n`);
    // An empty target folder is replaced by the finished backup in one rename.
    if (existsSync(dir)) rmdirSync(dir);
    renameSync(staging, dir);
    const sizes = Object.values(files);
    return {
      dir,
      createdAt: manifest.createdAt,
      checkpoint,
      files: sizes.length,
      bytes: sizes.reduce((sum, f) => sum + f.bytes, 0),
      logSegments: segments.length,
      ms: Math.round(performance.now() - started),
    };
  } catch (err) {
    // The cause is what the operator needs; a failing clean-up must not replace it.
    try {
      rmSync(staging, { recursive: true, force: true });
    } catch {}
    throw err;
  } finally {
    running = false;
  }
}

/** Reads and checks a backup folder's manifest and every file it lists. */
export async function verifyBackup(dir: string): Promise<BackupManifest> {
  const path = join(dir, MANIFEST);
  if (!existsSync(path)) throw new AppError('validation', `${dir} is not a hookcap backup (no ${MANIFEST})`);
  let manifest: BackupManifest;
  try {
    manifest = JSON.parse(readFileSync(path, 'utf8')) as BackupManifest;
  } catch {
    throw new AppError('validation', `${path} is not valid JSON`);
  }
  if (manifest.format !== BACKUP_FORMAT || manifest.version !== BACKUP_VERSION || typeof manifest.files !== 'object' || manifest.files === null) {
    throw new AppError('validation', `${dir} is not a hookcap backup of version ${BACKUP_VERSION}`);
  }
  if (!manifest.files[`${PGLITE_DIR}/PG_VERSION`]) throw new AppError('validation', `the backup has no ${PGLITE_DIR}/ data directory`);
  for (const [name, want] of Object.entries(manifest.files)) {
    // Names come from the file: never let one point outside the backup.
    if (name.split('/').some((part) => part === '..' || part === '') || name.startsWith('/')) throw new AppError('validation', `the manifest names a bad path: ${name}`);
    const file = join(dir, name);
    if (!existsSync(file)) throw new AppError('validation', `the backup is missing ${name}`);
    if ((await sha256(file)) !== want.sha256) throw new AppError('validation', `${name} does not match its checksum: the backup is damaged`);
  }
  return manifest;
}

export interface RestoreResult {
  dataDir: string;
  captures: number;
  logSegments: number;
  checkpoint: LogPosition;
  ms: number;
}

/**
 * Restores a backup into `dataDir`, which must hold nothing yet but the lock file (the caller holds
 * the lock). On any failure what was written is removed again.
 */
export async function restoreEmbedded(backupDir: string, dataDir: string): Promise<RestoreResult> {
  const started = performance.now();
  const manifest = await verifyBackup(backupDir);
  const present = existsSync(dataDir) ? readdirSync(dataDir).filter((f) => f !== LOCK_FILE) : [];
  if (present.length > 0) throw new AppError('conflict', `DATA_DIR ${dataDir} is not empty (${present.slice(0, 3).join(', ')}…); restore into a new data dir`);
  const made: string[] = [];
  try {
    made.push(join(dataDir, 'pglite'));
    await restorePglite(dataDir, join(backupDir, PGLITE_DIR));
    let captures = 0;
    if (manifest.files[SQLITE_FILE]) {
      const to = join(dataDir, SQLITE_FILE);
      made.push(to);
      copyFileSync(join(backupDir, SQLITE_FILE), to);
      captures = checkSqliteCopy(to);
    }
    const logTo = join(dataDir, LOG_DIR);
    made.push(logTo);
    mkdirSync(logTo, { recursive: true });
    const logFiles = Object.keys(manifest.files).filter((n) => n.startsWith(`${LOG_DIR}/`));
    for (const name of logFiles) copyFileSync(join(backupDir, name), join(dataDir, name));
    return {
      dataDir,
      captures,
      logSegments: logFiles.filter((n) => n.endsWith('.log')).length,
      checkpoint: manifest.checkpoint,
      ms: Math.round(performance.now() - started),
    };
  } catch (err) {
    for (const path of made) rmSync(path, { recursive: true, force: true });
    throw err;
  }
}
