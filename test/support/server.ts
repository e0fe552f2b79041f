/** Starts the real service as a child process on a real port, as a user would run it. */
import { createHash } from 'node:crypto';
import { cpSync, existsSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, renameSync, rmSync, unlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';

const ROOT = resolve(import.meta.dir, '..', '..');

/**
 * Ports handed to servers the tests start, below the kernel's ephemeral range (32768–60999 on
 * Linux): the kernel never gives one of them to an outgoing connection (which would make a later
 * listen on it fail), and a port picked here stays reserved for this process (a file under
 * PORT_DIR holding its pid) until it exits, so test files running in parallel processes never get
 * the same one, and a private service restarted on its port finds it free.
 */
const PORT_RANGE: [number, number] = [20_000, 32_000];
const PORT_DIR = join(tmpdir(), 'hookcap-test-ports');

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    return (err as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** Reserves `port` for this process: its file is created here, or was left by a process now gone. */
function reserve(port: number): boolean {
  const file = join(PORT_DIR, String(port));
  try {
    writeFileSync(file, String(process.pid), { flag: 'wx' });
    return true;
  } catch {
    let owner = 0;
    try {
      owner = Number(readFileSync(file, 'utf8'));
    } catch {
      return false;
    }
    if (owner === process.pid || (owner > 0 && alive(owner))) return false;
    try {
      unlinkSync(file);
      writeFileSync(file, String(process.pid), { flag: 'wx' });
      return true;
    } catch {
      return false;
    }
  }
}

function canListen(port: number): boolean {
  try {
    Bun.serve({ port, hostname: '127.0.0.1', fetch: () => new Response('') }).stop(true);
    return true;
  } catch {
    return false;
  }
}

/** A port nothing listens on, reserved for this process (see PORT_RANGE). */
export async function freePort(): Promise<number> {
  mkdirSync(PORT_DIR, { recursive: true });
  for (let i = 0; i < 1_000; i++) {
    const port = PORT_RANGE[0] + Math.floor(Math.random() * (PORT_RANGE[1] - PORT_RANGE[0]));
    if (reserve(port) && canListen(port)) return port;
  }
  throw new Error(`no free port in ${PORT_RANGE.join('–')} (reservations in ${PORT_DIR})`);
}

export interface TestServer {
  url: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  proc: Subprocess;
  output: () => string;
}

export interface StartOptions {
  env?: Record<string, string>;
  /** Reuse a data dir (restart after a crash). */
  dataDir?: string;
  port?: number;
  /** Script to run instead of src/main.ts (a bench wraps the service to read its memory). */
  entry?: string;
  /**
   * How long the service may take to answer /healthz (default 55 s, within a hook's 60 s). A start
   * that creates its PGlite cluster (no template: a data-dir test) needs far more on a loaded
   * machine: initdb in WebAssembly took over 55 s at a load average of 20; such a test raises
   * this and its own timeout together.
   */
  healthyWithinMs?: number;
}

/**
 * A migrated, empty PGlite data directory, made once per machine (per migrations, PGlite and Bun
 * version) by the service's own `openPglite`, and copied into each fresh embedded server's data
 * dir: creating a PGlite cluster (its initdb, in WebAssembly) costs ~3.5 s of CPU per server, the
 * copy a few ms, and the server then opens it as it opens its data after a restart. Servers given
 * a data dir (restarts, restores, the data-dir tests) and TEST_PGLITE_TEMPLATE=0 start from nothing.
 */
async function pgliteTemplate(): Promise<string | null> {
  if (process.env.TEST_PGLITE_TEMPLATE === '0') return null;
  const hash = createHash('sha256');
  const sqlDir = join(ROOT, 'sql');
  for (const f of readdirSync(sqlDir).sort()) hash.update(f).update(readFileSync(join(sqlDir, f)));
  hash.update(readFileSync(join(ROOT, 'src', 'stores', 'state', 'db.ts')));
  hash.update(readFileSync(join(ROOT, 'node_modules', '@electric-sql', 'pglite', 'package.json')));
  hash.update(Bun.version);
  const dir = join(tmpdir(), `hookcap-pglite-template-${hash.digest('hex').slice(0, 16)}`);
  if (!existsSync(join(dir, 'ready'))) {
    const build = mkdtempSync(join(tmpdir(), 'hookcap-pglite-build-'));
    const { openPglite } = await import('../../src/stores/state/db');
    const db = await openPglite(build);
    await db.close();
    writeFileSync(join(build, 'ready'), '');
    // Several processes may build at once: the first rename wins, the others drop their copy.
    try {
      renameSync(build, dir);
    } catch {
      rmSync(build, { recursive: true, force: true });
    }
  }
  return join(dir, 'pglite');
}

/** Copies the migrated PGlite template into a fresh data directory (see `pgliteTemplate`). */
export async function seedPglite(dataDir: string): Promise<void> {
  const template = await pgliteTemplate();
  if (template) cpSync(template, join(dataDir, 'pglite'), { recursive: true });
}

/** The settings every test service runs with (subprocess or in-process); a suite adds its own. */
export function serviceEnv(port: number, dataDir: string): Record<string, string> {
  return {
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SHIP_MAX_AGE_MS: '50',
    // Suites sign up many accounts from one address and poll hard; the rate-limit suite sets its own.
    RATE_LIMIT_API: '100000/60',
    RATE_LIMIT_AUTH: '100000/60',
    RATE_LIMIT_AUTH_FAILURES: '100000/60',
  };
}

/**
 * The timeout of a test that starts the service in its body (a restart, a second node, a node on a
 * private service): each start may take up to startServer's 55 s on a loaded CI machine (a load
 * average of 20) before the test's own waits, and a test that times out leaves what it started
 * running against the next test of its describe.
 */
export const RESTART_TEST_MS = 180_000;

/**
 * The suites' own server (describeBackends, describeInProcess) is started in a beforeAll with this
 * much room: hooks otherwise time out at the test timeout (it was 60 s), and on CI at a load average of 20
 * a start beside three other test files took more than that (a hook timed out, every test of the
 * suite failed with it).
 */
export const SUITE_START_MS = 150_000;

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hookcap-test-'));
  if (!opts.dataDir && !opts.env?.DATABASE_URL) await seedPglite(dataDir);
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    ...serviceEnv(port, dataDir),
    ...opts.env,
  };
  let out = '';
  const proc = Bun.spawn([process.execPath, opts.entry ?? join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env,
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const collect = async (stream: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const chunk of stream) out += dec.decode(chunk);
  };
  void collect(proc.stdout);
  void collect(proc.stderr);
  const url = `http://127.0.0.1:${port}`;
  // Generous: the machine may be shared and loaded; suites' hooks time out at 60 s.
  const deadline = Date.now() + (opts.healthyWithinMs ?? 55_000);
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${out}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      // Gone before the error is thrown: a half-started server would hold DATA_DIR's lock and fail
      // the next start on it (a restart in the same test, or the next test of the describe).
      proc.kill('SIGKILL');
      await proc.exited;
      throw new Error(`server did not become healthy:\n${out}`);
    }
    await Bun.sleep(50);
  }
  return { url, port, dataDir, env, proc, output: () => out };
}

export async function stopServer(s: TestServer, opts: { keepData?: boolean } = {}): Promise<void> {
  if (s.proc.exitCode === null) {
    s.proc.kill('SIGTERM');
    await s.proc.exited;
  }
  if (!opts.keepData) rmSync(s.dataDir, { recursive: true, force: true });
}

export interface ExitedRun {
  code: number | null;
  stdout: string;
  stderr: string;
  /** From spawn to exit. */
  ms: number;
}

/**
 * Runs the service expecting it to stop by itself (a refused start), with only `env` besides
 * PATH, HOME and HOST=127.0.0.1; killed after `timeoutMs` if it does not.
 */
export async function runUntilExit(env: Record<string, string>, timeoutMs = 30_000): Promise<ExitedRun> {
  const started = Date.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, 'src', 'main.ts')], {
    cwd: ROOT,
    env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', HOST: '127.0.0.1', ...env },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  const timer = setTimeout(() => proc.kill('SIGKILL'), timeoutMs);
  const [stdout, stderr] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text()]);
  await proc.exited;
  clearTimeout(timer);
  return { code: proc.exitCode, stdout, stderr, ms: Date.now() - started };
}
