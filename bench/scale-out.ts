/**
 * bench/scale-out — one receiver process against several sharing one port (REUSE_PORT, each with
 * its own DATA_DIR), on the server backend (Postgres + ClickHouse + NATS), with bench/capture's
 * load (wrk, 64 keep-alive connections, the ~1 KB JSON POST). The layouts alternate, each round
 * on fresh processes and a fresh database, so drift of a shared machine falls on both.
 *
 *   node_modules/.bin/bun bench/scale-out.ts
 *   BENCH_ROUNDS=5 BENCH_SECONDS=10 BENCH_CONNECTIONS=64 BENCH_PROCESSES=2 node_modules/.bin/bun bench/scale-out.ts
 *
 * Needs scripts/services.sh and wrk. Reports, per run and as medians: captures/s (2xx), p50/p99,
 * CPU per capture of the hookcap processes and of ClickHouse + NATS + Postgres, wrk's CPU, and how
 * busy the machine was with everything else (other users of a shared machine), so a reader can
 * tell a quiet run from a loaded one. Every node runs the receiver, API and stream roles.
 */
import { provision } from '../test/support/backends';
import { call, eventually, newAccount } from '../test/support/client';
import type { Health } from '../src/health';
import { freePort, startServer, stopServer, type TestServer } from '../test/support/server';
import { allProcesses, machineTicks, reapedChildrenTicks, TICKS_PER_SECOND } from './lib/proc-stat';
import { wrk, type WrkResult } from './lib/wrk';
import { defaultShipMaxAgeMs } from '../src/config';

const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const seconds = Number(process.env.BENCH_SECONDS ?? 10);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const many = Number(process.env.BENCH_PROCESSES ?? 2);
const layouts = [1, many];

/** The shared services, by process name as /proc shows it (15 characters at most). */
const BACKEND_PROCESSES = new Set(['clickhouse-serv', 'nats-server', 'postgres']);

interface Run {
  processes: number;
  result: WrkResult;
  /** Captures taken by each process, from its /healthz shipper counter. */
  shares: number[];
  /** µs of CPU per capture. */
  hookcapUs: number;
  backendsUs: number;
  wrkUs: number;
  /** Share of the machine's CPU (all cores) used by anything not counted above, during the run. */
  othersPct: number;
  machinePct: number;
}

async function shipped(nodes: TestServer[]): Promise<number[]> {
  return Promise.all(nodes.map(async (n) => (await call<Health>(n.url, 'GET', '/healthz')).body.shipper?.shipped ?? 0));
}

async function measure(processes: number): Promise<Run> {
  const p = await provision('server');
  const receiverPort = await freePort();
  // Each node has its own API port (to ask it alone) and shares the receiver port.
  const env = { ...p.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), PLANS: '{"free":{"limit":1000000000}}', REUSE_PORT: 'true', RECEIVER_PORT: String(receiverPort) };
  const nodes: TestServer[] = [];
  try {
    // One after another: each runs the migrations at start.
    for (let i = 0; i < processes; i++) nodes.push(await startServer({ env }));
    const first = nodes[0];
    if (!first) throw new Error('no node started');
    const a = await newAccount(first.url);
    const ep = (await call(first.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'bench' } })).body;
    const url = `http://127.0.0.1:${receiverPort}/w/${ep.slug}`;
    await wrk(url, { connections, seconds: 2 }); // warm-up (JIT) on every process
    await Bun.sleep(1500);

    const pids = new Set(nodes.map((n) => n.proc.pid));
    const shippedBefore = await shipped(nodes);
    const before = { procs: allProcesses(), machine: machineTicks(), wrk: reapedChildrenTicks() };
    const result = await wrk(url, { connections, seconds });
    const after = { procs: allProcesses(), machine: machineTicks(), wrk: reapedChildrenTicks() };

    let hookcap = 0;
    let backends = 0;
    for (const [pid, now] of after.procs) {
      const d = now.ticks - (before.procs.get(pid)?.ticks ?? now.ticks);
      if (pids.has(pid)) hookcap += d;
      else if (BACKEND_PROCESSES.has(now.name)) backends += d;
    }
    const wrkTicks = after.wrk - before.wrk;
    const busy = after.machine.busy - before.machine.busy;
    const total = Math.max(1, after.machine.total - before.machine.total);
    const captures = Math.max(1, result.requests - result.non2xx);
    const us = (ticks: number) => (ticks * (1e6 / TICKS_PER_SECOND)) / captures;
    // Every capture ships within SHIP_MAX_AGE_MS: wait for the counters to settle.
    const shares = await eventually(async () => {
      const now = await shipped(nodes);
      const d = now.map((n, i) => n - (shippedBefore[i] ?? 0));
      return d.reduce((x, y) => x + y, 0) >= captures ? d : null;
    }, 30_000).catch(async () => (await shipped(nodes)).map((n, i) => n - (shippedBefore[i] ?? 0)));
    return {
      processes,
      result,
      shares,
      hookcapUs: us(hookcap),
      backendsUs: us(backends),
      wrkUs: us(wrkTicks),
      othersPct: (Math.max(0, busy - hookcap - backends - wrkTicks) / total) * 100,
      machinePct: (busy / total) * 100,
    };
  } finally {
    for (const n of nodes) await stopServer(n);
    await p.cleanup();
  }
}

const f = (n: number, d = 0) => (Number.isFinite(n) ? n.toFixed(d) : 'n/a');
const median = (xs: number[]) => {
  const s = [...xs].sort((x, y) => x - y);
  const m = Math.floor(s.length / 2);
  return s.length % 2 ? (s[m] ?? Number.NaN) : ((s[m - 1] ?? Number.NaN) + (s[m] ?? Number.NaN)) / 2;
};

const runs: Run[] = [];
console.log(`bench/scale-out: ${rounds} rounds × [${layouts.join(', ')}] process(es), ${seconds}s each, wrk -t1 -c${connections}, ${navigator.hardwareConcurrency} cores, server backend\n`);
console.log('| round | processes | captures/s | p50 ms | p99 ms | captures per process | hookcap µs CPU/capture | ClickHouse+NATS+Postgres µs | wrk µs | machine busy | of it, other processes |');
console.log('|---|---|---|---|---|---|---|---|---|---|---|');
for (let r = 0; r < rounds; r++) {
  // Alternate which layout goes first, so a trend over the run does not favour one.
  for (const n of r % 2 === 0 ? layouts : [...layouts].reverse()) {
    const run = await measure(n);
    runs.push(run);
    console.log(
      `| ${r + 1} | ${n} | ${f(run.result.rps)} | ${f(run.result.p50, 2)} | ${f(run.result.p99, 2)} | ${run.shares.join(' / ')} | ${f(run.hookcapUs, 1)} | ${f(run.backendsUs, 1)} | ${f(run.wrkUs, 1)} | ${f(run.machinePct)}% | ${f(run.othersPct)}% |`,
    );
  }
}

console.log('\nmedians:\n');
console.log('| processes | captures/s | p99 ms | hookcap µs CPU/capture (→ captures/s per hookcap core) | ClickHouse+NATS+Postgres µs/capture | other processes |');
console.log('|---|---|---|---|---|---|');
const med: Record<number, number> = {};
for (const n of layouts) {
  const rs = runs.filter((x) => x.processes === n);
  med[n] = median(rs.map((x) => x.result.rps));
  const cpu = median(rs.map((x) => x.hookcapUs));
  console.log(
    `| ${n} | ${f(med[n] ?? Number.NaN)} (${rs.map((x) => f(x.result.rps)).join(', ')}) | ${f(median(rs.map((x) => x.result.p99)), 2)} | ${f(cpu, 1)} (${f(1e6 / cpu)}) | ${f(median(rs.map((x) => x.backendsUs)), 1)} | ${f(median(rs.map((x) => x.othersPct)))}% |`,
  );
}
console.log(`\n${many} processes / 1 process, medians: ${f((med[many] ?? Number.NaN) / (med[1] ?? Number.NaN), 2)}×`);
