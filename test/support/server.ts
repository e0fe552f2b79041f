/** Starts the real service as a child process on a real port, as a user would run it. */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';

const ROOT = resolve(import.meta.dir, '..', '..');

export async function freePort(): Promise<number> {
  const s = Bun.serve({ port: 0, fetch: () => new Response('') });
  const port = s.port ?? 0;
  s.stop(true);
  return port;
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
}

export async function startServer(opts: StartOptions = {}): Promise<TestServer> {
  const port = opts.port ?? (await freePort());
  const dataDir = opts.dataDir ?? mkdtempSync(join(tmpdir(), 'hookcap-test-'));
  const env: Record<string, string> = {
    PATH: process.env.PATH ?? '',
    HOME: process.env.HOME ?? '/tmp',
    PORT: String(port),
    HOST: '127.0.0.1',
    BASE_URL: `http://127.0.0.1:${port}`,
    DATA_DIR: dataDir,
    LOG_LEVEL: 'warn',
    SHIP_MAX_AGE_MS: '50',
    // Suites sign up many accounts from one address and poll hard; the rate-limit suite sets its own.
    RATE_LIMIT_API: '100000/60',
    RATE_LIMIT_AUTH: '100000/60',
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
  const deadline = Date.now() + 55_000;
  for (;;) {
    if (proc.exitCode !== null) throw new Error(`server exited with ${proc.exitCode}:\n${out}`);
    try {
      const r = await fetch(`${url}/healthz`);
      if (r.ok) break;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) {
      proc.kill();
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
