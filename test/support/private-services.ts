/**
 * Private instances of the server backends for the fault tests: a clickhouse-server, a
 * nats-server or a PostgreSQL cluster on a free port and a temp directory, started and stopped by
 * the test that breaks it. The shared services (scripts/services.sh) are never touched.
 */
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { freePort } from './server';

export interface PrivateService {
  /** The URL the service is given (CLICKHOUSE_URL, NATS_URL or DATABASE_URL). */
  url: string;
  port: number;
  /** Stops the process (SIGKILL: an outage, not a shutdown); the data stays for `start`. */
  stop(): Promise<void>;
  /** Starts it again on the same port and data, and waits until it answers. */
  start(): Promise<void>;
  /** Stops it and removes its data. */
  destroy(): Promise<void>;
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 30_000, output = () => ''): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    if (await check().catch(() => false)) return;
    if (Date.now() > deadline) throw new Error(`${what} did not come up in ${timeoutMs} ms\n${output()}`);
    await Bun.sleep(100);
  }
}

function spawnLogged(cmd: string[], cwd: string): { proc: Subprocess; output: () => string } {
  let out = '';
  const proc = Bun.spawn(cmd, { cwd, stdout: 'pipe', stderr: 'pipe', env: { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp' } });
  const collect = async (s: ReadableStream<Uint8Array>) => {
    const dec = new TextDecoder();
    for await (const c of s) out = (out + dec.decode(c)).slice(-8_000);
  };
  void collect(proc.stdout as ReadableStream<Uint8Array>);
  void collect(proc.stderr as ReadableStream<Uint8Array>);
  return { proc, output: () => out };
}

async function kill(proc: Subprocess | null): Promise<void> {
  if (!proc || proc.exitCode !== null || proc.signalCode !== null) return;
  proc.kill('SIGKILL');
  await proc.exited;
}

interface PrivateProcess {
  /** Named in the error when it does not come up. */
  name: string;
  url: string;
  port: number;
  /** Its working directory, removed by `destroy`. */
  dir: string;
  cmd: string[];
  /** True once it answers. */
  ready: () => Promise<boolean>;
  readyTimeoutMs?: number;
  /** Ends it as an outage would; SIGKILL unless given. */
  halt?: (proc: Subprocess) => Promise<void>;
}

/** Starts the process, waits until it answers, and returns it as a PrivateService. */
async function startPrivate({ name, url, port, dir, cmd, ready, readyTimeoutMs = 30_000, halt = kill }: PrivateProcess): Promise<PrivateService> {
  let running: { proc: Subprocess; output: () => string } | null = null;
  const svc: PrivateService = {
    url,
    port,
    async start() {
      const r = spawnLogged(cmd, dir);
      running = r;
      await waitFor(name, ready, readyTimeoutMs, r.output);
    },
    async stop() {
      if (running) await halt(running.proc);
      running = null;
    },
    async destroy() {
      await svc.stop();
      rmSync(dir, { recursive: true, force: true });
    },
  };
  await svc.start();
  return svc;
}

const CLICKHOUSE_BIN = ['/usr/bin/clickhouse-server', '/usr/sbin/clickhouse-server'].find((p) => existsSync(p));

/** A clickhouse-server of its own: HTTP and native ports free, data under a temp directory. */
export async function privateClickHouse(): Promise<PrivateService> {
  if (!CLICKHOUSE_BIN) throw new Error('clickhouse-server is not installed (bash scripts/services.sh installs it)');
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-ch-'));
  const [http, tcp] = [await freePort(), await freePort()];
  const users = join(dir, 'users.xml');
  writeFileSync(
    users,
    `<?xml version="1.0"?><yandex><profiles><default><max_memory_usage>2000000000</max_memory_usage></default></profiles>
<users><default><password></password><networks><ip>127.0.0.1</ip><ip>::1</ip></networks><profile>default</profile><quota>default</quota></default></users>
<quotas><default><interval><duration>3600</duration><queries>0</queries><errors>0</errors><result_rows>0</result_rows><read_rows>0</read_rows><execution_time>0</execution_time></interval></default></quotas></yandex>`,
  );
  const config = join(dir, 'config.xml');
  writeFileSync(
    config,
    `<?xml version="1.0"?><yandex>
<logger><level>warning</level><console>1</console></logger>
<http_port>${http}</http_port><tcp_port>${tcp}</tcp_port><listen_host>127.0.0.1</listen_host>
<path>${dir}/data/</path><tmp_path>${dir}/tmp/</tmp_path><user_files_path>${dir}/user_files/</user_files_path>
<format_schema_path>${dir}/format_schemas/</format_schema_path>
<users_config>${users}</users_config><default_profile>default</default_profile><default_database>default</default_database>
<mark_cache_size>67108864</mark_cache_size><uncompressed_cache_size>67108864</uncompressed_cache_size>
<max_concurrent_queries>50</max_concurrent_queries><timezone>UTC</timezone>
</yandex>`,
  );
  const url = `http://127.0.0.1:${http}`;
  return await startPrivate({
    name: 'private clickhouse-server',
    url,
    port: http,
    dir,
    cmd: [CLICKHOUSE_BIN, `--config-file=${config}`],
    ready: async () => (await fetch(`${url}/ping`)).ok,
    readyTimeoutMs: 60_000,
  });
}

const NATS_BIN = ['/usr/sbin/nats-server', '/usr/bin/nats-server', '/usr/local/bin/nats-server'].find((p) => existsSync(p)) ?? 'nats-server';

/** A nats-server of its own (core pub/sub is all the service uses). */
export async function privateNats(): Promise<PrivateService> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-nats-'));
  return await startPrivate({
    name: 'private nats-server',
    url: `nats://127.0.0.1:${port}`,
    port,
    dir,
    cmd: [NATS_BIN, '-a', '127.0.0.1', '-p', String(port)],
    ready: () => tcpBanner(port).then((l) => l.startsWith('INFO')),
  });
}

async function tcpBanner(port: number): Promise<string> {
  return await new Promise<string>((resolve, reject) => {
    let got = '';
    Bun.connect({
      hostname: '127.0.0.1',
      port,
      socket: {
        data(socket, chunk) {
          got += Buffer.from(chunk).toString();
          if (got.includes('\n')) {
            socket.end();
            resolve(got);
          }
        },
        error: (_s, e) => reject(e),
        close: () => resolve(got),
        connectError: (_s, e) => reject(e),
      },
    }).catch(reject);
  });
}

const PG_BIN = (() => {
  const base = '/usr/lib/postgresql';
  if (!existsSync(base)) return null;
  const versions = readdirSync(base)
    .filter((v) => existsSync(join(base, v, 'bin', 'initdb')))
    .sort((a, b) => Number(b) - Number(a));
  return versions[0] ? join(base, versions[0], 'bin') : null;
})();

/** Runs a command as the postgres user when we are root (initdb and postgres refuse root). */
function asPostgres(cmd: string[]): string[] {
  return process.getuid?.() === 0 ? ['runuser', '-u', 'postgres', '--', ...cmd] : cmd;
}

/** A PostgreSQL cluster of its own (initdb + postgres), trust auth on 127.0.0.1. */
export async function privatePostgres(): Promise<PrivateService> {
  if (!PG_BIN) throw new Error('PostgreSQL server binaries not found under /usr/lib/postgresql/*/bin');
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-pg-'));
  chmodSync(dir, 0o777);
  const data = join(dir, 'data');
  const sock = join(dir, 'sock');
  mkdirSync(sock);
  chmodSync(sock, 0o777);
  const init = Bun.spawnSync(asPostgres([join(PG_BIN, 'initdb'), '-D', data, '-U', 'postgres', '-A', 'trust', '--no-sync', '-E', 'UTF8']), { stdout: 'pipe', stderr: 'pipe' });
  if (init.exitCode !== 0) throw new Error(`initdb failed: ${init.stderr.toString()}`);
  return await startPrivate({
    name: 'private postgres',
    url: `postgres://postgres@127.0.0.1:${port}/postgres`,
    port,
    dir,
    cmd: asPostgres([join(PG_BIN, 'postgres'), '-D', data, '-p', String(port), '-h', '127.0.0.1', '-k', sock, '-c', 'fsync=off', '-c', 'max_connections=50']),
    ready: async () => Bun.spawnSync([join(PG_BIN, 'pg_isready'), '-h', '127.0.0.1', '-p', String(port), '-t', '1']).exitCode === 0,
    // runuser forwards the signal poorly; stop the postmaster itself, immediately (an outage).
    halt: async (proc) => {
      if (proc.exitCode !== null) return;
      Bun.spawnSync(asPostgres([join(PG_BIN, 'pg_ctl'), '-D', data, '-m', 'immediate', 'stop']), { stdout: 'ignore', stderr: 'ignore' });
      await proc.exited;
    },
  });
}
