/**
 * bench/stream — many SSE clients on one slug: delivery latency and server memory per connection.
 *
 *   bun bench/stream.ts                                   (both backends; server needs scripts/services.sh)
 *   BENCH_BACKENDS=embedded BENCH_CLIENTS=5000 BENCH_MESSAGES=40 BENCH_INTERVAL_MS=250 BENCH_CLIENT_PROCS=2 bun bench/stream.ts
 *
 * First a ceiling: bare Bun.serve SSE with the same fan-out (bench/lib/raw-sse-server.ts). Then
 * three kinds of process, as in production: the service (bench/lib/stream-server.ts: src/app.ts
 * plus a control port that reports memory after a full GC), client processes holding the SSE
 * connections as raw sockets (bench/lib/sse-clients.ts), and this one, which sends the captures.
 * Latency runs from the capture's acknowledgement (the sender reading the 200) to a client reading
 * the event, on the shared wall clock. The receiver publishes before it answers, so with an idle
 * bus a client can read the event before the sender reads its ack: figures near zero or below are
 * expected; send→client is given too.
 * Memory per connection: the service's RSS (and its JS heap: committed, and live objects), after a full GC, with no client and then
 * with every client connected and idle, divided by the clients; a first round of every client
 * (connected, then closed) warms the auth path, the database caches, the JIT and the allocator.
 */
import { join } from 'node:path';
import type { Subprocess } from 'bun';
import { provision, type BackendName } from '../test/support/backends';
import { call, newAccount } from '../test/support/client';
import { freePort, startServer, stopServer } from '../test/support/server';
import type { Health } from '../src/health';
import { loadAverage, saveResults } from './lib/results';
import { postBody } from './lib/wrk';
import { defaultShipMaxAgeMs } from '../src/config';

const clients = Number(process.env.BENCH_CLIENTS ?? 5000);
const messages = Number(process.env.BENCH_MESSAGES ?? 40);
const intervalMs = Number(process.env.BENCH_INTERVAL_MS ?? 250);
const procs = Number(process.env.BENCH_CLIENT_PROCS ?? 2);
const backends = (process.env.BENCH_BACKENDS ?? 'embedded,server').split(',') as BackendName[];
const body = await postBody();
const now = () => performance.timeOrigin + performance.now();

/** A client process and a way to talk to it one line at a time. */
class ClientProc {
  private buf = '';
  private readonly chunks: AsyncIterator<Uint8Array>;
  private readonly decoder = new TextDecoder();

  constructor(readonly proc: Subprocess<'pipe', 'pipe', 'inherit'>) {
    this.chunks = proc.stdout[Symbol.asyncIterator]();
  }

  async send(command: string): Promise<string> {
    this.proc.stdin.write(`${command}\n`);
    this.proc.stdin.flush();
    for (;;) {
      const nl = this.buf.indexOf('\n');
      if (nl >= 0) {
        const line = this.buf.slice(0, nl);
        this.buf = this.buf.slice(nl + 1);
        return line;
      }
      const { done, value } = await this.chunks.next();
      if (done) throw new Error(`client process ended before answering "${command}"`);
      this.buf += this.decoder.decode(value, { stream: true });
    }
  }
}

const split = (n: number) => Array.from({ length: procs }, (_, i) => Math.floor(n / procs) + (i < n % procs ? 1 : 0));

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN;
}

type Target = BackendName | 'raw';

interface Started {
  url: string;
  port: number;
  slug: string;
  token: string;
  stop(): Promise<void>;
}

/** The service on a backend (with an account and an endpoint), or the bare Bun ceiling. */
async function start(target: Target, control: number): Promise<Started> {
  if (target === 'raw') {
    const port = await freePort();
    const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'lib', 'raw-sse-server.ts')], {
      env: { ...process.env, PORT: String(port), BENCH_CONTROL_PORT: String(control) },
      stdout: 'ignore',
    });
    const url = `http://127.0.0.1:${port}`;
    while (!(await fetch(`${url}/healthz`).then((r) => r.ok).catch(() => false))) await Bun.sleep(50);
    return { url, port, slug: 'raw', token: 'none', stop: async () => void (proc.kill(), await proc.exited) };
  }
  const p = await provision(target);
  const s = await startServer({
    entry: join(import.meta.dir, 'lib', 'stream-server.ts'),
    // Every client streams with the one bench key: lift the per-key and per-account stream caps.
    env: { ...p.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), BENCH_CONTROL_PORT: String(control), STREAM_MAX_PER_KEY: '1000000', STREAM_MAX_PER_ACCOUNT: '1000000' },
  });
  const a = await newAccount(s.url);
  const ep = (await call(s.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
  return {
    url: s.url,
    port: s.port,
    slug: ep.slug,
    token: a.key,
    stop: async () => {
      await stopServer(s);
      await p.cleanup();
    },
  };
}

async function run(target: Target) {
  const control = await freePort();
  const s = await start(target, control);
  const memory = async () => (await (await fetch(`http://127.0.0.1:${control}/`)).json()) as { rss: number; heapSize: number; heapCapacity: number };
  const children: ClientProc[] = [];
  try {
    await fetch(`${s.url}/w/${s.slug}`, { method: 'POST', body }); // warm the capture path
    for (let i = 0; i < procs; i++) {
      const proc = Bun.spawn([process.execPath, join(import.meta.dir, 'lib', 'sse-clients.ts')], {
        env: { ...process.env, SSE_PORT: String(s.port), SSE_PATH: `/api/stream/${s.slug}`, SSE_TOKEN: s.token },
        stdin: 'pipe',
        stdout: 'pipe',
        stderr: 'inherit',
      });
      children.push(new ClientProc(proc));
    }
    const openAll = async (n: number) => {
      const answers = await Promise.all(children.map((c, i) => c.send(`open ${split(n)[i]}`)));
      await Bun.sleep(2000); // let late allocations and timers settle before the GC reading
      return answers.reduce((sum, line) => sum + Number(line.split(' ')[1]), 0);
    };
    // A first round of every client warms the auth path, the database caches, the JIT and the
    // allocator; memory per connection is then what a second round of the same clients holds.
    const t0 = performance.now();
    await openAll(clients);
    const connectSeconds = (performance.now() - t0) / 1000 - 2;
    await Promise.all(children.map((c) => c.send('drop')));
    await Bun.sleep(2000);
    const memIdle = await memory();
    const ready = await openAll(clients);
    const memAll = await memory();
    const hub = (await call<Health>(s.url, 'GET', '/healthz')).body.stream ?? { topics: 0, clients: 0 };

    const sentAt = new Map<string, number>();
    const ackAt = new Map<string, number>();
    for (let m = 0; m < messages; m++) {
      const before = now();
      const r = await fetch(`${s.url}/w/${s.slug}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      const at = now();
      const { id } = (await r.json()) as { id: string };
      sentAt.set(id, before);
      ackAt.set(id, at);
      await Bun.sleep(intervalMs);
    }
    await Bun.sleep(1000);

    const fromAck: number[] = [];
    const fromSend: number[] = [];
    for (const c of children) {
      const seen = JSON.parse(await c.send('report')) as Record<string, number[]>;
      for (const [id, times] of Object.entries(seen)) {
        const ack = ackAt.get(id);
        const sent = sentAt.get(id);
        if (ack === undefined || sent === undefined) continue;
        for (const t of times) {
          fromAck.push(t - ack);
          fromSend.push(t - sent);
        }
      }
    }
    fromAck.sort((x, y) => x - y);
    fromSend.sort((x, y) => x - y);
    await Promise.all(children.map((c) => c.send('close')));
    await Bun.sleep(1500);
    const left = (await call<Health>(s.url, 'GET', '/healthz')).body.stream ?? { topics: 0, clients: 0 };
    return {
      target,
      ready,
      hub,
      connectSeconds,
      delivered: fromAck.length,
      expected: ready * messages,
      ack: { p50: quantile(fromAck, 0.5), p99: quantile(fromAck, 0.99), max: fromAck.at(-1) ?? Number.NaN },
      send: { p50: quantile(fromSend, 0.5), p99: quantile(fromSend, 0.99) },
      rssPerConn: (memAll.rss - memIdle.rss) / Math.max(1, ready),
      heapPerConn: (memAll.heapSize - memIdle.heapSize) / Math.max(1, ready),
      capacityPerConn: (memAll.heapCapacity - memIdle.heapCapacity) / Math.max(1, ready),
      rssMb: memAll.rss / 2 ** 20,
      left,
    };
  } finally {
    for (const c of children) c.proc.kill();
    await s.stop();
  }
}

const f = (n: number, d = 1) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const rows = [];
for (const t of ['raw' as const, ...backends]) rows.push(await run(t));
console.log(
  `\nbench/stream: ${clients} SSE clients on one slug (${procs} client processes), ${messages} captures of ~1 KB every ${intervalMs} ms; service, clients and sender share ${navigator.hardwareConcurrency} cores\n`,
);
console.log('| target | clients ready (hub) | connect s | events delivered | ack→client p50 ms | p99 ms | max ms | send→client p50 ms | p99 ms | RSS KB/connection | JS heap committed KB/conn | live JS objects KB/conn | RSS with all, MB | clients after close |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|---|---|---|');
for (const r of rows) {
  console.log(
    `| ${r.target === 'raw' ? 'raw Bun.serve SSE (ceiling)' : r.target === 'server' ? 'hookcap, Postgres + ClickHouse + NATS' : 'hookcap, embedded (PGlite + SQLite, in-process bus)'} | ${r.ready} (${r.hub.clients} clients, ${r.hub.topics} topic) | ${f(r.connectSeconds)} | ${r.delivered}/${r.expected} | ${f(r.ack.p50)} | ${f(r.ack.p99)} | ${f(r.ack.max)} | ${f(r.send.p50)} | ${f(r.send.p99)} | ${f(r.rssPerConn / 1024)} | ${f(r.capacityPerConn / 1024)} | ${f(r.heapPerConn / 1024)} | ${f(r.rssMb, 0)} | ${r.left.clients} |`,
  );
}
saveResults('stream', { bench: 'stream', at: new Date().toISOString(), loadAverage: loadAverage(), config: { clients, messages, intervalMs, procs }, rows });
