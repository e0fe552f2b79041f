/**
 * `npm run bench`: runs the capture, capture CPU (with GC log), shipping, search, stream and tenants benches
 * one after another, then writes bench/report/index.html (static SVG charts, no script, nothing
 * fetched when viewed) and bench/report/results.json (every bench's figures, the machine, and its
 * load average before and after each bench). Each bench's own table goes to bench/report/logs/.
 *
 *   npm run bench                  the full run (search reuses its 10M dataset if loaded: BENCH_REUSE)
 *   BENCH_QUICK=1 npm run bench    every bench small and short, a few minutes in all
 *   BENCH_STEPS=capture,tenants …  a subset (names below; not BENCH_ONLY, which bench/search reads)
 *
 * Needs scripts/services.sh (Postgres, ClickHouse, NATS) and wrk (`apt-get install wrk`). Progress
 * and each bench's own progress go to stderr. A bench that fails is recorded as failed and the
 * rest still run; the exit code is 1 if any failed.
 */
import { mkdirSync, readFileSync, readdirSync, rmSync, writeFileSync, existsSync } from 'node:fs';
import { cpus, totalmem, release } from 'node:os';
import { join } from 'node:path';
import { bars, lines, renderSvg, stacked } from './lib/charts';
import { loadAverage } from './lib/results';

const ROOT = join(import.meta.dir, '..');
const OUT = join(import.meta.dir, 'report');
const quick = process.env.BENCH_QUICK === '1';
const only = process.env.BENCH_STEPS ? new Set(process.env.BENCH_STEPS.split(',').map((s) => s.trim())) : null;

interface Step {
  name: string;
  script: string;
  env: Record<string, string>;
  /** Rough length, for the progress line's ETA. */
  expectSeconds: number;
  /** Run again with these settings when the first attempt's output says so (search without a dataset). */
  retry?: { when: RegExp; env: Record<string, string>; expectSeconds: number };
}

const steps: Step[] = [
  {
    name: 'capture',
    script: 'bench/capture.ts',
    env: quick ? { BENCH_SECONDS: '3', BENCH_AB_ROUNDS: '0' } : {},
    expectSeconds: quick ? 45 : 300,
  },
  ...(['embedded', 'server'] as const).map((backend) => ({
    name: `capture-cpu-${backend}`,
    script: 'bench/capture-cpu.ts',
    env: { BENCH_BACKEND: backend, BENCH_GC: '1', ...(quick ? { BENCH_SECONDS: '3' } : {}) },
    expectSeconds: quick ? 20 : 30,
  })),
  ...(['embedded', 'server'] as const).map((backend) => ({
    name: `shipping-${backend}`,
    script: 'bench/shipping.ts',
    env: { BENCH_BACKEND: backend, ...(quick ? { BENCH_CAPTURES: '20000', BENCH_ROUNDS: '1' } : {}) },
    expectSeconds: quick ? 10 : 40,
  })),
  {
    name: 'search',
    script: 'bench/search.ts',
    env: { BENCH_REUSE: '1', ...(quick ? { BENCH_DB: 'hookcap_bench_search_quick', BENCH_QUERIES: '10' } : {}) },
    expectSeconds: quick ? 30 : 120,
    retry: {
      when: /BENCH_REUSE=1 but no completed dataset|database "hookcap_bench_search\w*" does not exist/,
      env: quick ? { BENCH_DB: 'hookcap_bench_search_quick', BENCH_QUERIES: '10', BENCH_ROWS: '200000', BENCH_ENDPOINTS: '100', BENCH_ACCOUNTS: '10', BENCH_MERGE_WAIT_S: '60' } : {},
      expectSeconds: quick ? 90 : 1800,
    },
  },
  {
    name: 'stream',
    script: 'bench/stream.ts',
    env: quick ? { BENCH_CLIENTS: '300', BENCH_MESSAGES: '10', BENCH_INTERVAL_MS: '100', BENCH_CLIENT_PROCS: '1' } : {},
    expectSeconds: quick ? 60 : 240,
  },
  { name: 'tenants', script: 'bench/tenants.ts', env: quick ? { BENCH_QUICK: '1', BENCH_REUSE: '1' } : { BENCH_REUSE: '1' }, expectSeconds: quick ? 60 : 180 },
];

interface StepOutcome {
  name: string;
  ok: boolean;
  seconds: number;
  loadAverage: { start: number; end: number };
  error?: string;
}

const say = (line: string) => process.stderr.write(`${line}\n`);

async function run(step: Step, env: Record<string, string>, expectSeconds: number, index: number, total: number, resultsDir: string): Promise<{ code: number; out: string; err: string }> {
  const t0 = performance.now();
  const proc = Bun.spawn([process.execPath, join(ROOT, step.script)], {
    cwd: ROOT,
    env: { ...process.env, ...env, BENCH_RESULTS_DIR: resultsDir },
    stdout: 'pipe',
    stderr: 'pipe',
  });
  // The bench's stderr (its progress) is passed through as it comes, and its tail kept: a retry
  // decision may depend on an error the bench printed there.
  let errTail = '';
  const passErr = (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stderr) {
      process.stderr.write(chunk);
      errTail = (errTail + dec.decode(chunk, { stream: true })).slice(-65_536);
    }
  })();
  // A heartbeat with the expected time left, between the bench's own progress lines.
  const timer = setInterval(() => {
    const s = (performance.now() - t0) / 1000;
    const left = expectSeconds - s;
    say(`[${index}/${total}] ${step.name}: ${s.toFixed(0)} s elapsed, ${left > 0 ? `about ${left.toFixed(0)} s left (estimate)` : `${(-left).toFixed(0)} s past the estimate`}`);
  }, 15_000);
  const out = await new Response(proc.stdout).text();
  await proc.exited;
  await passErr;
  clearInterval(timer);
  return { code: proc.exitCode ?? 1, out, err: errTail };
}

async function main(): Promise<number> {
  if (!Bun.which('wrk')) {
    say('wrk is not installed: the capture benches drive the service with it (apt-get install wrk)');
    return 2;
  }
  const resultsDir = join(OUT, 'raw');
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(join(OUT, 'logs'), { recursive: true });
  mkdirSync(resultsDir, { recursive: true });
  const chosen = steps.filter((s) => !only || only.has(s.name) || only.has(s.name.replace(/-(embedded|server)$/, '')));
  const outcomes: StepOutcome[] = [];
  const started = new Date();
  say(`npm run bench${quick ? ' (BENCH_QUICK=1)' : ''}: ${chosen.map((s) => s.name).join(', ')}; load average ${loadAverage()}`);
  for (const [i, step] of chosen.entries()) {
    const t0 = performance.now();
    const load0 = loadAverage();
    say(`[${i + 1}/${chosen.length}] ${step.name}: started (bun ${step.script}, about ${step.expectSeconds} s)`);
    let r = await run(step, step.env, step.expectSeconds, i + 1, chosen.length, resultsDir);
    let log = r.code === 0 ? r.out : `${r.out}\n--- stderr (tail) ---\n${r.err}`;
    if (r.code !== 0 && step.retry && step.retry.when.test(r.out + r.err)) {
      say(`[${i + 1}/${chosen.length}] ${step.name}: no dataset to reuse; loading one (about ${step.retry.expectSeconds} s)`);
      r = await run(step, step.retry.env, step.retry.expectSeconds, i + 1, chosen.length, resultsDir);
      log += `\n--- loading a dataset ---\n${r.code === 0 ? r.out : `${r.out}\n--- stderr (tail) ---\n${r.err}`}`;
    }
    writeFileSync(join(OUT, 'logs', `${step.name}.txt`), log);
    const seconds = (performance.now() - t0) / 1000;
    const outcome: StepOutcome = { name: step.name, ok: r.code === 0, seconds, loadAverage: { start: load0, end: loadAverage() } };
    if (!outcome.ok) outcome.error = `exited with ${r.code}; see logs/${step.name}.txt`;
    outcomes.push(outcome);
    say(`[${i + 1}/${chosen.length}] ${step.name}: ${outcome.ok ? 'done' : 'FAILED'} in ${seconds.toFixed(0)} s`);
  }

  const benches: Record<string, unknown> = {};
  for (const f of readdirSync(resultsDir)) benches[f.replace(/\.json$/, '')] = JSON.parse(readFileSync(join(resultsDir, f), 'utf8'));
  rmSync(resultsDir, { recursive: true, force: true });
  const machine = {
    cpu: cpus()[0]?.model ?? 'unknown',
    cores: cpus().length,
    memoryGiB: Math.round(totalmem() / 2 ** 30),
    kernel: release(),
    bun: Bun.version,
    note: 'Load generator, service, Postgres, ClickHouse and NATS share this machine; a load average above the core count means other work was running.',
  };
  const results = { startedAt: started.toISOString(), finishedAt: new Date().toISOString(), quick, machine, steps: outcomes, benches };
  writeFileSync(join(OUT, 'results.json'), `${JSON.stringify(results, null, 2)}\n`);
  writeFileSync(join(OUT, 'index.html'), await page(results));
  say(`wrote ${join('bench', 'report', 'index.html')} and results.json`);
  return outcomes.every((o) => o.ok) ? 0 : 1;
}

// --- the page ------------------------------------------------------------------------------------

/* The benches' JSON, as far as the page reads it. */
interface WrkLike {
  rps: number;
  p50: number;
  p99: number;
  percentiles?: { p: number; ms: number }[];
}
interface CaptureResults {
  ceiling: number;
  loadAverage: { start: number; end: number };
  rows: {
    name: string;
    peak: WrkLike;
    half: { rps: number; p50: number; p99: number } | null;
    /** Longest GC pauses (ms) of the receiver thread and the shipper worker, at peak and at half peak. */
    gc?: { peak: { main: number[]; worker: number[] }; half: { main: number[]; worker: number[] } } | null;
    ofCeiling: number;
  }[];
}
interface CpuResults {
  backend: string;
  capturesPerSecond: number;
  loadAverage: number;
  cpuUsPerCapture: { name: string; us: number }[];
  totalUsPerCapture: number;
  gc: { collections: number; perSecond: number; pausesMs: number[]; mainPausesMs?: number[]; workerPausesMs?: number[]; allocatedBytesPerCapture?: number } | null;
}
interface ShippingResults {
  backend: string;
  loadAverage: number;
  captures: number;
  rounds: { round: number; workerUs: number; storeUs: number; seconds: number }[];
  medianWorkerUs: number;
  medianStoreUs: number;
}
interface SearchResults {
  rows: number;
  loadAverage: number;
  kinds: { name: string; p50: number; p95: number; targetMs: number | null }[];
}
interface StreamResults {
  loadAverage: number;
  config: { clients: number };
  rows: { target: string; ready: number; ack: { p50: number; p99: number }; send: { p50: number; p99: number }; rssPerConn: number }[];
}
interface TenantSide {
  capturesPerSecond: number;
  p50Ms: number;
  p99Ms: number;
  cpuUsPerCapture: { service: number; postgres: number };
  gc: { collections: number; longestMs: number };
}
interface TenantsResults {
  loadAverage: { start: number; end: number };
  config: { endpoints: number; spread: number; rounds: number; seconds: number };
  one: TenantSide;
  spread: TenantSide;
  ratio: number;
  atRate: { one: { rate: number; ok: number; sent: number; p50Ms: number; p99Ms: number }; spread: { rate: number; ok: number; sent: number; p50Ms: number; p99Ms: number } };
  cold: { captures: number; capturesPerSecond: number; queries: number; slugsLoaded: number };
  cache: { entries: number; max: number; estimatedBytes: number; estimatedBytesPerEntry: number; measuredBytesPerEntry: number };
}

const esc = (s: string) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const n0 = (x: number) => (Number.isFinite(x) ? Math.round(x).toLocaleString('en') : 'n/a');
const n1 = (x: number) => (Number.isFinite(x) ? x.toFixed(1) : 'n/a');
const n2 = (x: number) => (Number.isFinite(x) ? x.toFixed(2) : 'n/a');
const table = (head: string[], rows: (string | number)[][]) =>
  `<table><thead><tr>${head.map((h) => `<th>${esc(h)}</th>`).join('')}</tr></thead><tbody>${rows.map((r) => `<tr>${r.map((c) => `<td>${esc(String(c))}</td>`).join('')}</tr>`).join('')}</tbody></table>`;
const figure = (svg: string) => `<figure>${svg.replace(/^<\?xml[^>]*>/, '')}</figure>`;

async function page(results: { startedAt: string; quick: boolean; machine: Record<string, unknown>; steps: StepOutcome[]; benches: Record<string, unknown> }): Promise<string> {
  const b = results.benches;
  const sections: string[] = [];
  const capture = b.capture as CaptureResults | undefined;
  if (capture) {
    const rows = capture.rows.map((r) => ({ target: r.name, rps: Math.round(r.peak.rps), text: `${n0(r.peak.rps)}/s (${n0(r.ofCeiling * 100)}%)` }));
    const curves = capture.rows.flatMap((r) => (r.peak.percentiles ?? []).filter((p) => Number.isFinite(p.ms)).map((p) => ({ target: `${r.name}, at peak`, p: p.p, ms: p.ms })));
    sections.push(`<h2>Captures per second against the ceiling (bench/capture)</h2>
<p>wrk -t1 -c64, a ~1 KB JSON POST; every 2xx is a durable capture (acknowledged after fsync). The ceiling is raw <code>Bun.serve</code> answering 200 in the same run. Targets (issue 15): ≥ 50% of raw with Postgres + ClickHouse + NATS, ≥ 35% embedded. Load average ${capture.loadAverage.start} → ${capture.loadAverage.end}.</p>
${figure(await renderSvg(bars({ title: 'Durable captures/s (2xx) at peak', rows, value: 'rps', label: 'target', unit: 'captures/s', text: 'text', rule: { at: capture.ceiling * 0.5, text: '50% of raw' } })))}
${figure(await renderSvg(lines({ title: 'Acknowledgement latency percentiles at peak (wrk)', rows: curves, x: 'p', y: 'ms', series: 'target', xTitle: 'percentile', yTitle: 'ms (log scale)', logY: true })))}
${table(['target', 'captures/s', '% of raw', 'p50 / p99 ms at peak', 'rate for p99', 'p50 / p99 ms there', 'longest GC pause there, ms: receiver / worker'], capture.rows.map((r) => [r.name, n0(r.peak.rps), `${n0(r.ofCeiling * 100)}%`, `${n2(r.peak.p50)} / ${n2(r.peak.p99)}`, r.half ? `${n0(r.half.rps)}/s` : '-', r.half ? `${n2(r.half.p50)} / ${n2(r.half.p99)}` : '-', r.gc ? `${r.gc.half.main[0] !== undefined ? n1(r.gc.half.main[0]) : '-'} / ${r.gc.half.worker[0] !== undefined ? n1(r.gc.half.worker[0]) : '-'}` : '-']))}`);
  }
  const cpu = ['embedded', 'server'].map((k) => b[`capture-cpu-${k}`] as CpuResults | undefined).filter((x): x is CpuResults => !!x);
  if (cpu.length) {
    const parts = cpu.flatMap((c) => {
      const top = c.cpuUsPerCapture.slice(0, 8);
      const rest = c.cpuUsPerCapture.slice(8).reduce((s, x) => s + x.us, 0);
      return [...top, { name: 'everything else', us: rest }].map((x) => ({ backend: `${c.backend} (${n0(c.capturesPerSecond)}/s)`, part: x.name, us: Math.round(x.us * 10) / 10 }));
    });
    sections.push(`<h2>CPU per capture by thread and process (bench/capture-cpu)</h2>
<p>µs of CPU per capture at peak, from /proc: per thread for the service (“service: …”), per process for the rest of the machine (wrk not counted). On a shared machine “everything else” includes other work. Load average ${cpu.map((c) => `${c.backend} ${c.loadAverage}`).join(', ')}.</p>
${figure(await renderSvg(stacked({ title: 'µs of CPU per capture', rows: parts, group: 'backend', part: 'part', value: 'us', unit: 'µs per capture' })))}
${table(['backend', 'captures/s', 'µs CPU per capture, all'], cpu.map((c) => [c.backend, n0(c.capturesPerSecond), n1(c.totalUsPerCapture)]))}`);
    const gcRows = cpu.flatMap((c) => (c.gc?.mainPausesMs ?? c.gc?.pausesMs ?? []).slice(0, 20).map((ms, i) => ({ backend: c.backend, rank: i + 1, ms })));
    const longest = (xs: number[] | undefined) => (xs?.[0] !== undefined ? n1(xs[0]) : '-');
    if (gcRows.length) {
      sections.push(`<h2>GC pauses on the service at peak (bench/capture-cpu, BUN_JSC_logGC)</h2>
<p>The longest 20 pauses of the receiver (main) thread, whose pauses hold up acknowledgements; the table adds the shipper worker's, which do not. Target: the longest pause on the capture process under 5 ms. bench/capture reports the same at half peak.</p>
${figure(await renderSvg(lines({ title: 'Longest GC pauses of the receiver thread, longest first', rows: gcRows, x: 'rank', y: 'ms', series: 'backend', xTitle: 'pause rank', yTitle: 'pause ms', rule: { at: 5, text: '5 ms target' } })))}
${table(['backend', 'pauses', 'per second', 'longest ms, receiver thread', 'longest ms, shipper worker', 'KiB allocated per capture (at least)'], cpu.map((c) => [c.backend, c.gc?.collections ?? '-', c.gc ? n1(c.gc.perSecond) : '-', longest(c.gc?.mainPausesMs ?? c.gc?.pausesMs), longest(c.gc?.workerPausesMs), c.gc?.allocatedBytesPerCapture !== undefined ? n1(c.gc.allocatedBytesPerCapture / 1024) : '-']))}`);
    }
  }
  const shipping = ['embedded', 'server'].map((k) => b[`shipping-${k}`] as ShippingResults | undefined).filter((x): x is ShippingResults => !!x);
  if (shipping.length) {
    const parts = shipping.flatMap((r) => [
      { backend: r.backend, part: 'shipper worker', us: Math.round(r.medianWorkerUs * 10) / 10 },
      { backend: r.backend, part: 'ClickHouse', us: Math.round(r.medianStoreUs * 10) / 10 },
    ]);
    sections.push(`<h2>Shipping cost per capture (bench/shipping)</h2>
<p>The real capture log and shipper worker; ${n0(shipping[0]?.captures ?? 0)} captures appended as the receiver appends them, CPU of the worker thread and of ClickHouse (SQLite runs inside the worker) until all are stored; medians of the rounds. Target (issue 15): half of ~24 µs. Load average ${shipping.map((r) => `${r.backend} ${r.loadAverage}`).join(', ')}.</p>
${figure(await renderSvg(stacked({ title: 'µs of CPU per shipped capture', rows: parts, group: 'backend', part: 'part', value: 'us', unit: 'µs per capture' })))}
${table(['backend', 'worker µs', 'ClickHouse µs', 'both'], shipping.map((r) => [r.backend, n1(r.medianWorkerUs), n1(r.medianStoreUs), n1(r.medianWorkerUs + r.medianStoreUs)]))}`);
  }
  const tenants = b.tenants as TenantsResults | undefined;
  if (tenants) {
    const rows = [
      { case: 'one endpoint', rps: Math.round(tenants.one.capturesPerSecond), text: `${n0(tenants.one.capturesPerSecond)}/s` },
      { case: `${n0(tenants.config.spread)} endpoints, warm`, rps: Math.round(tenants.spread.capturesPerSecond), text: `${n0(tenants.spread.capturesPerSecond)}/s (${n0(tenants.ratio * 100)}%)` },
      { case: `${n0(tenants.config.spread)} endpoints, cold pass`, rps: Math.round(tenants.cold.capturesPerSecond), text: `${n0(tenants.cold.capturesPerSecond)}/s` },
    ];
    sections.push(`<h2>Cost in tenants (bench/tenants)</h2>
<p>${n0(tenants.config.endpoints)} endpoints in Postgres; captures to one endpoint against captures spread uniformly over ${n0(tenants.config.spread)} (medians of ${tenants.config.rounds} alternated ${tenants.config.seconds} s rounds); the cold pass sends one capture to each spread endpoint in turn. Target: spread within 10% of one. Load average ${tenants.loadAverage.start} → ${tenants.loadAverage.end}.</p>
${figure(await renderSvg(bars({ title: 'Durable captures/s by how captures spread over endpoints', rows, value: 'rps', label: 'case', unit: 'captures/s', text: 'text', rule: { at: tenants.one.capturesPerSecond * 0.9, text: '90% of one endpoint' } })))}
${table(['case', 'captures/s', 'p50 / p99 ms', 'µs CPU/capture: service / its Postgres', 'GCs, longest ms'], [
  ['one endpoint', n0(tenants.one.capturesPerSecond), `${n2(tenants.one.p50Ms)} / ${n2(tenants.one.p99Ms)}`, `${n1(tenants.one.cpuUsPerCapture.service)} / ${n1(tenants.one.cpuUsPerCapture.postgres)}`, `${tenants.one.gc.collections}, ${n1(tenants.one.gc.longestMs)}`],
  ['spread', n0(tenants.spread.capturesPerSecond), `${n2(tenants.spread.p50Ms)} / ${n2(tenants.spread.p99Ms)}`, `${n1(tenants.spread.cpuUsPerCapture.service)} / ${n1(tenants.spread.cpuUsPerCapture.postgres)}`, `${tenants.spread.gc.collections}, ${n1(tenants.spread.gc.longestMs)}`],
])}
${table(['at the same offered rate (open loop)', 'acknowledged / sent', 'p50 / p99 ms'], [
  [`one endpoint, ${n0(tenants.atRate.one.rate)}/s`, `${n0(tenants.atRate.one.ok)} / ${n0(tenants.atRate.one.sent)}`, `${n2(tenants.atRate.one.p50Ms)} / ${n2(tenants.atRate.one.p99Ms)}`],
  [`spread, ${n0(tenants.atRate.spread.rate)}/s`, `${n0(tenants.atRate.spread.ok)} / ${n0(tenants.atRate.spread.sent)}`, `${n2(tenants.atRate.spread.p50Ms)} / ${n2(tenants.atRate.spread.p99Ms)}`],
])}
<p>Cold pass: ${n0(tenants.cold.queries)} load queries for ${n0(tenants.cold.slugsLoaded)} cold slugs (${n1(tenants.cold.slugsLoaded / Math.max(1, tenants.cold.queries))} per query). Endpoint cache: ${n0(tenants.cache.entries)} entries of ${n0(tenants.cache.max)}, estimated ${n1(tenants.cache.estimatedBytes / 2 ** 20)} MiB (${n0(tenants.cache.estimatedBytesPerEntry)} B each; measured on the heap: ${n0(tenants.cache.measuredBytesPerEntry)} B each).</p>`);
  }
  const search = b.search as SearchResults | undefined;
  if (search) {
    const rows = search.kinds.flatMap((k) => [
      { query: k.name, stat: 'p50', ms: k.p50, label: `${n1(k.p50)} ms` },
      { query: k.name, stat: 'p95', ms: k.p95, label: `${n1(k.p95)} ms` },
    ]);
    sections.push(`<h2>Search over ${n0(search.rows)} captures (bench/search)</h2>
<p>One query at a time over the real HTTP API. Load average ${search.loadAverage}.</p>
${figure(await renderSvg(bars({ title: 'Query latency', rows, value: 'ms', label: 'query', unit: 'ms', color: 'stat', text: 'label' })))}
${table(['query', 'p50 ms', 'p95 ms', 'target'], search.kinds.map((k) => [k.name, n1(k.p50), n1(k.p95), k.targetMs ? `p50 ≤ ${k.targetMs}` : '-']))}`);
  }
  const stream = b.stream as StreamResults | undefined;
  if (stream) {
    const rows = stream.rows.flatMap((r) => [
      { target: r.target, stat: 'ack→client p50', ms: r.ack.p50, label: `${n1(r.ack.p50)} ms` },
      { target: r.target, stat: 'ack→client p99', ms: r.ack.p99, label: `${n1(r.ack.p99)} ms` },
    ]);
    sections.push(`<h2>Live streams: ${n0(stream.config.clients)} SSE clients on one slug (bench/stream)</h2>
<p>Delivery latency from the capture's acknowledgement to a client reading it. Load average ${stream.loadAverage}.</p>
${figure(await renderSvg(bars({ title: 'Delivery latency', rows, value: 'ms', label: 'target', unit: 'ms', color: 'stat', text: 'label' })))}
${table(['target', 'clients', 'ack→client p50 / p99 ms', 'send→client p50 / p99 ms', 'RSS KB per connection'], stream.rows.map((r) => [r.target, r.ready, `${n1(r.ack.p50)} / ${n1(r.ack.p99)}`, `${n1(r.send.p50)} / ${n1(r.send.p99)}`, n1(r.rssPerConn / 1024)]))}`);
  }
  const m = results.machine;
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>hookcap bench report</title>
<style>body{font:15px/1.5 system-ui,sans-serif;max-width:980px;margin:2rem auto;padding:0 1rem;color:#222}table{border-collapse:collapse;margin:.5rem 0 1.5rem}th,td{border:1px solid #ccc;padding:.25rem .5rem;text-align:left}th{background:#f4f4f4}figure{margin:1rem 0}code{background:#f4f4f4;padding:0 .2rem}.failed{color:#c0392b}</style>
</head><body>
<h1>hookcap bench report</h1>
<p>Run ${esc(results.startedAt)}${results.quick ? ' in quick mode (BENCH_QUICK=1: short runs, small datasets; not for comparison)' : ''}. Machine: ${esc(String(m.cpu))}, ${esc(String(m.cores))} cores, ${esc(String(m.memoryGiB))} GiB, Linux ${esc(String(m.kernel))}, Bun ${esc(String(m.bun))}. ${esc(String(m.note))}</p>
${table(['bench', 'result', 'seconds', 'load average start → end'], results.steps.map((s) => [s.name, s.ok ? 'ok' : `FAILED: ${s.error ?? ''}`, n0(s.seconds), `${s.loadAverage.start} → ${s.loadAverage.end}`]))}
${sections.join('\n')}
<p>Figures: results.json beside this page; each bench's own output: logs/. Reproduce: <code>npm run bench</code> (docs/benchmarks.md).</p>
</body></html>
`;
}

if (!existsSync(join(ROOT, 'node_modules', 'vega'))) say('vega is missing: npm install');
process.exit(await main());
