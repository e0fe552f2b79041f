/**
 * A data directory belongs to one process. Two processes on one DATA_DIR would append to one
 * capture log (acknowledged captures lost) and open one PGlite or SQLite file twice (corruption),
 * so a node takes an exclusive `flock(2)` on `DATA_DIR/hookcap.lock` before it opens anything
 * there. The kernel drops the lock when the process dies, however it dies: a restart after
 * SIGKILL needs no manual step, unlike a pid file. The holder's pid is written into the file only
 * so the refused process can name it.
 *
 * flock comes from libc through bun:ffi (neither Node's nor Bun's fs offers it). It locks the open
 * file description, not the process: Bun opens files close-on-exec, so no child inherits the lock.
 * The file is never deleted: unlinking a lock file races with a process that has just opened it.
 */
import { dlopen, FFIType, read, type Pointer } from 'bun:ffi';
import { closeSync, ftruncateSync, mkdirSync, openSync, readFileSync, statSync, writeSync, constants } from 'node:fs';
import { join } from 'node:path';
import type { Config } from './config';
import { log } from './log';

export const LOCK_FILE = 'hookcap.lock';

export interface DataDirLock {
  readonly dir: string;
  release(): void;
}

export type LockResult = { ok: true; lock: DataDirLock } | { ok: false; dir: string; holderPid: number | null };

/**
 * What this node keeps in DATA_DIR. Empty means the node never touches the directory (a stream or
 * API node on Postgres + ClickHouse with SMTP set): it takes no lock, so any number of such nodes
 * can run on one host with the default DATA_DIR.
 */
export function dataDirUses(config: Pick<Config, 'roles' | 'databaseUrl' | 'clickhouseUrl' | 'smtpUrl'>): string[] {
  const uses: string[] = [];
  if (config.roles.has('receiver')) uses.push('capture log');
  if (!config.databaseUrl) uses.push('PGlite');
  if (!config.clickhouseUrl) uses.push('SQLite');
  if (!config.smtpUrl && config.roles.has('api')) uses.push('mail outbox');
  return uses;
}

const LOCK_EX = 2;
const LOCK_NB = 4;

interface Libc {
  flock(fd: number, op: number): number;
  errno(): number;
}

let libc: Libc | null = null;

function loadLibc(): Libc {
  if (libc) return libc;
  const flock = { args: [FFIType.i32, FFIType.i32], returns: FFIType.i32 } as const;
  const errnoAt = { args: [], returns: 'ptr' } as const;
  // Pointers come back as numbers (bigint only above 2^53, which user space does not reach).
  const readErrno = (at: Pointer | bigint | null) => (typeof at === 'number' ? read.i32(at, 0) : -1);
  const tried: string[] = [];
  if (process.platform === 'darwin') {
    const { symbols } = dlopen('libc.dylib', { flock, __error: errnoAt });
    libc = { flock: (fd, op) => symbols.flock(fd, op), errno: () => readErrno(symbols.__error()) };
    return libc;
  }
  if (process.platform === 'linux') {
    const musl = `libc.musl-${process.arch === 'arm64' ? 'aarch64' : 'x86_64'}.so.1`;
    for (const name of ['libc.so.6', musl]) {
      try {
        const { symbols } = dlopen(name, { flock, __errno_location: errnoAt });
        libc = { flock: (fd, op) => symbols.flock(fd, op), errno: () => readErrno(symbols.__errno_location()) };
        return libc;
      } catch {
        tried.push(name);
      }
    }
  }
  throw new Error(`cannot lock DATA_DIR on ${process.platform}: no libc with flock (tried ${tried.join(', ') || 'none'})`);
}

/** EWOULDBLOCK: the lock is held by another open file description. */
const WOULD_BLOCK = process.platform === 'darwin' ? 35 : 11;

/** Takes the lock without waiting. Throws only on an OS error other than "held". */
export function lockDataDir(dir: string): LockResult {
  const { flock, errno } = loadLibc();
  // Private to the service's user: it holds captures (strangers' bodies), password and token
  // hashes and, on PGlite, the server secret (docs/security.md, "The data directory is private").
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  const path = join(dir, LOCK_FILE);
  const fd = openSync(path, constants.O_RDWR | constants.O_CREAT, 0o644);
  if (flock(fd, LOCK_EX | LOCK_NB) !== 0) {
    const code = errno();
    closeSync(fd);
    if (code !== WOULD_BLOCK) throw new Error(`cannot lock ${path}: flock failed with errno ${code}`);
    return { ok: false, dir, holderPid: holderPid(path) };
  }
  ftruncateSync(fd, 0);
  writeSync(fd, `${process.pid}\n`, 0);
  let held = true;
  return {
    ok: true,
    lock: {
      dir,
      release() {
        if (!held) return;
        held = false;
        closeSync(fd);
      },
    },
  };
}

/** The holder writes its pid right after locking; a refusal in that instant may find the file empty. */
function holderPid(path: string): number | null {
  for (let i = 0; i < 20; i++) {
    const pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    if (Number.isInteger(pid) && pid > 0) return pid;
    Bun.sleepSync(10);
  }
  return null;
}

/** The one line a refused process prints. */
export function busyMessage(dir: string, holderPid: number | null, advice = 'one process per data directory (stop it, or give this process its own DATA_DIR)'): string {
  const who = holderPid === null ? 'another process' : `pid ${holderPid}`;
  return `DATA_DIR ${dir} is in use by ${who}: ${advice}`;
}

/**
 * For entry points: takes the lock this node needs, or prints one line and exits 1 while nothing
 * is open yet. Returns null when the node keeps nothing in DATA_DIR.
 */
export function lockDataDirOrExit(config: Pick<Config, 'dataDir' | 'roles' | 'databaseUrl' | 'clickhouseUrl' | 'smtpUrl'>): DataDirLock | null {
  if (dataDirUses(config).length === 0) return null;
  let result: LockResult;
  try {
    result = lockDataDir(config.dataDir);
  } catch (err) {
    // The system's message names the path but not the setting ("EEXIST: file already exists, mkdir '…'").
    console.error(`DATA_DIR ${config.dataDir} cannot be used: ${err instanceof Error ? err.message : String(err)}`);
    process.exit(1);
  }
  if (result.ok) {
    warnIfShared(config.dataDir);
    return result.lock;
  }
  console.error(busyMessage(result.dir, result.holderPid));
  process.exit(1);
}

/**
 * A DATA_DIR made before it was created private (or by hand) may let other local users in; the
 * service does not change an operator's permissions, it says how to.
 */
function warnIfShared(dir: string): void {
  const mode = statSync(dir).mode & 0o777;
  if ((mode & 0o077) === 0) return;
  log.warn('DATA_DIR can be read by other users of this machine: it holds captures, password and token hashes and the server secret. Run chmod 700 on it', {
    dir,
    mode: mode.toString(8),
  });
}
