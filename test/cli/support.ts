/**
 * Running the real `hookcap` binary (cli/main.ts, the package's bin) as a subprocess, each test
 * with its own config folder, and a local app on 127.0.0.1 that records every request's exact
 * bytes.
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import net from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import type { Subprocess } from 'bun';

const ROOT = resolve(import.meta.dir, '..', '..');
export const CLI = join(ROOT, 'cli', 'main.ts');
/** The Node build of the CLI (cli/build.ts), what package.json `bin` runs. */
export const CLI_NODE_BUILD = join(ROOT, 'cli', 'dist', 'hookcap.js');

/**
 * How a test starts the CLI: its sources under this Bun by default; `['node', CLI_NODE_BUILD]`
 * runs the Node build (test/cli/node.test.ts). TEST_CLI_RUNTIME=node runs every CLI test that
 * way, to look for a difference between the runtimes (build it first: npm run build:cli).
 */
export const DEFAULT_CLI_COMMAND: readonly string[] = process.env.TEST_CLI_RUNTIME === 'node' ? ['node', CLI_NODE_BUILD] : [process.execPath, CLI];

export interface CliEnv {
  /** XDG_CONFIG_HOME of this CLI user. */
  configHome: string;
  env: Record<string, string>;
  cleanup(): void;
}

/** A fresh config folder; `vars` become the CLI's environment (HOOKCAP_API_URL, HOOKCAP_API_KEY …). */
export function cliEnv(vars: Record<string, string> = {}): CliEnv {
  const configHome = mkdtempSync(join(tmpdir(), 'hookcap-cli-'));
  return {
    configHome,
    env: { PATH: process.env.PATH ?? '', HOME: configHome, XDG_CONFIG_HOME: configHome, ...vars },
    cleanup: () => rmSync(configHome, { recursive: true, force: true }),
  };
}

/**
 * The position files `listen` saved for `slug` in that config folder (`state/<slug>.<hash>.json`,
 * one per --forward URL), full paths; not the per-endpoint file of older versions.
 */
export function stateFilesOf(configHome: string, slug: string): string[] {
  const dir = join(configHome, 'hookcap', 'state');
  let names: string[] = [];
  try {
    names = readdirSync(dir);
  } catch {
    // No folder: nothing saved.
  }
  return names.filter((n) => new RegExp(`^${slug}\\.[0-9a-f]{12}\\.json$`).test(n)).map((n) => join(dir, n));
}

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** Runs the CLI to completion. */
export async function runCli(args: string[], env: Record<string, string>, opts: { stdin?: Uint8Array; timeoutMs?: number; command?: readonly string[] } = {}): Promise<CliResult> {
  const proc = Bun.spawn([...(opts.command ?? DEFAULT_CLI_COMMAND), ...args], { cwd: ROOT, env, stdin: opts.stdin ?? 'ignore', stdout: 'pipe', stderr: 'pipe' });
  const timer = setTimeout(() => proc.kill('SIGKILL'), opts.timeoutMs ?? 60_000);
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  clearTimeout(timer);
  return { code, stdout, stderr };
}

/** A CLI left running (listen, tail), its output collected as it comes. */
export class RunningCli {
  stdout = '';
  stderr = '';
  readonly proc: Subprocess<'ignore', 'pipe', 'pipe'>;

  constructor(args: string[], env: Record<string, string>, opts: { command?: readonly string[] } = {}) {
    this.proc = Bun.spawn([...(opts.command ?? DEFAULT_CLI_COMMAND), ...args], { cwd: ROOT, env, stdin: 'ignore', stdout: 'pipe', stderr: 'pipe' });
    void this.collect(this.proc.stdout, (t) => (this.stdout += t));
    void this.collect(this.proc.stderr, (t) => (this.stderr += t));
  }

  private async collect(stream: ReadableStream<Uint8Array>, add: (text: string) => void): Promise<void> {
    const decoder = new TextDecoder();
    for await (const chunk of stream) add(decoder.decode(chunk, { stream: true }));
  }

  get lines(): string[] {
    return this.stdout.split('\n').filter((l) => l !== '');
  }

  /** Waits until `check` holds; the error names what the CLI printed. */
  async until(check: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (this.proc.exitCode !== null) throw new Error(`the CLI exited (${this.proc.exitCode}):\n${this.stdout}\n${this.stderr}`);
      if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; the CLI printed:\n${this.stdout}\n${this.stderr}`);
      await Bun.sleep(20);
    }
  }

  /** Sends `signal` and waits for the exit code. */
  async stop(signal: 'SIGTERM' | 'SIGINT' | 'SIGKILL' = 'SIGTERM'): Promise<number> {
    if (this.proc.exitCode === null) this.proc.kill(signal);
    return this.proc.exited;
  }
}

const shellQuote = (a: string) => `'${a.replace(/'/g, `'\\''`)}'`;

/**
 * The CLI on a pseudo-terminal (script(1)), as a person's shell runs it: stdin, stdout and stderr
 * are all the terminal, `output` is everything it showed, `type` is what the person types.
 */
export class TtyCli {
  output = '';
  readonly proc: Subprocess<'pipe', 'pipe', 'pipe'>;

  /** `columns`: the terminal's width (script(1)'s own terminal says 0 columns: unknown). */
  constructor(args: string[], env: Record<string, string>, opts: { columns?: number; command?: readonly string[] } = {}) {
    // exec: the CLI itself is the terminal's foreground process (a shell in between would die of Ctrl-C first).
    const size = opts.columns === undefined ? '' : `stty cols ${opts.columns} rows 50; `;
    const command = `${size}exec ${[...(opts.command ?? DEFAULT_CLI_COMMAND), ...args].map(shellQuote).join(' ')}`;
    const proc = Bun.spawn(['script', '-qefc', command, '/dev/null'], { cwd: ROOT, env: { NO_COLOR: '1', TERM: 'xterm', ...env }, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
    this.proc = proc;
    void (async () => {
      const decoder = new TextDecoder();
      for await (const chunk of proc.stdout) this.output += decoder.decode(chunk, { stream: true });
    })();
  }

  /** Types `text` (a line needs its "\n"; "\u0003" is Ctrl-C). */
  type(text: string): void {
    this.proc.stdin.write(text);
    void this.proc.stdin.flush();
  }

  async until(check: () => boolean, ms = 20_000): Promise<void> {
    const deadline = Date.now() + ms;
    while (!check()) {
      if (this.proc.exitCode !== null) throw new Error(`the CLI exited (${this.proc.exitCode}):\n${this.output}`);
      if (Date.now() > deadline) throw new Error(`condition not met in ${ms} ms; the terminal showed:\n${this.output}`);
      await Bun.sleep(20);
    }
  }

  /** The exit code, once it has exited (after its output is all read). */
  async exited(): Promise<number> {
    const code = await this.proc.exited;
    await Bun.sleep(50);
    return code;
  }

  kill(): void {
    if (this.proc.exitCode === null) this.proc.kill('SIGKILL');
  }
}

/** One request as the local app received it. */
export interface Arrived {
  method: string;
  /** Path and query as sent on the request line. */
  target: string;
  headers: Record<string, string>;
  body: Uint8Array;
}

/** Answers a request (n counts the app's requests from 1); default 200 "ok". */
export type Answer = (req: Arrived, n: number) => Response | Promise<Response>;

export interface LocalApp {
  port: number;
  url: string;
  arrived: Arrived[];
  answer: Answer;
  stop(): void;
}

/** A local HTTP app on 127.0.0.1 (on `port`, or any free one). */
export function startLocalApp(port = 0): LocalApp {
  const app: LocalApp = {
    port: 0,
    url: '',
    arrived: [],
    answer: () => new Response('ok'),
    stop: () => {},
  };
  const server = Bun.serve({
    port,
    hostname: '127.0.0.1',
    async fetch(request) {
      const u = new URL(request.url);
      const req: Arrived = {
        method: request.method,
        target: `${u.pathname}${u.search}`,
        headers: Object.fromEntries(request.headers),
        body: new Uint8Array(await request.arrayBuffer()),
      };
      app.arrived.push(req);
      return app.answer(req, app.arrived.length);
    },
  });
  app.port = server.port ?? port;
  app.url = `http://127.0.0.1:${app.port}`;
  app.stop = () => void server.stop(true);
  return app;
}

export interface Relay {
  url: string;
  /** Connections cut so far. */
  cuts: number;
  stop(): void;
}

/**
 * A TCP relay to a real server on 127.0.0.1:`port` that drops a connection, unanswered, as a
 * request whose head matches `cut` comes through it: the network failing at one chosen request
 * (the server is not touched, and answers everything else itself).
 */
export async function startRelay(port: number, cut: (head: string) => boolean): Promise<Relay> {
  const sockets = new Set<net.Socket>();
  const server = net.createServer((client) => {
    const upstream = net.connect(port, '127.0.0.1');
    sockets.add(client).add(upstream);
    client.on('data', (chunk: Buffer) => {
      if (cut(chunk.toString('latin1'))) {
        relay.cuts++;
        client.destroy();
        upstream.destroy();
        return;
      }
      upstream.write(chunk);
    });
    upstream.on('data', (chunk: Buffer) => client.write(chunk));
    upstream.on('end', () => client.end());
    client.on('end', () => upstream.end());
    client.on('error', () => upstream.destroy());
    upstream.on('error', () => client.destroy());
    client.on('close', () => sockets.delete(client));
    upstream.on('close', () => sockets.delete(upstream));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const address = server.address();
  const relay: Relay = {
    url: `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`,
    cuts: 0,
    stop: () => {
      for (const s of sockets) s.destroy();
      server.close();
    },
  };
  return relay;
}
