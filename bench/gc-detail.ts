/**
 * bench/gc-detail — what the receiver thread's GC pauses are made of. Runs the service at a fixed
 * rate with JSC's detailed GC log (`BUN_JSC_logGC=2`), keeps the log, and prints the main thread's
 * pauses by kind (eden, full, a full collection's later increments) with what each one visited.
 *
 *   B=server RATE=15000 SECS=6 node_modules/.bin/bun bench/gc-detail.ts    (OUT: where the log goes)
 */
import { mainHeap } from './lib/gc-log';
import { constantRate } from './lib/rate';
import { startRateService } from './lib/rate-service';
import { postBody } from './lib/wrk';

const body = await postBody();
const backend = (process.env.B ?? 'server') as 'server';
const rate = Number(process.env.RATE ?? 15000);
const out = process.env.OUT ?? '/tmp/hookcap-gc-detail.log';
const svc = await startRateService(backend, { BUN_JSC_logGC: '2' });
const s = svc.server;
try {
  const from = s.output().length;
  const h = await constantRate(svc.url, body, rate, Number(process.env.SECS ?? 6));
  const log = s.output().slice(from);
  await Bun.write(out, log);
  const main = mainHeap(s.output());
  // One piece per log line group of a heap: "[GC<heap>: START M <kb> => EdenCollection … v=<kb> … p=<ms>ms".
  const rows: { kind: string; ms: number; visitedKb: number }[] = [];
  for (const piece of log.split('[GC<').slice(1)) {
    if (piece.slice(0, piece.indexOf('>')) !== main) continue;
    const kind = /=> (Eden|Full)Collection/.exec(piece)?.[1] ?? 'later increment';
    const visited = [...piece.matchAll(/ v=(\d+)kb/g)].at(-1)?.[1];
    for (const m of piece.matchAll(/ p=([\d.]+)ms \(max/g)) rows.push({ kind, ms: Number(m[1]), visitedKb: Number(visited ?? 0) });
  }
  console.log(`bench/gc-detail (${backend}, ${rate}/s for ${process.env.SECS ?? 6} s): p50 ${h.p50.toFixed(2)} p99 ${h.p99.toFixed(2)} ms; log in ${out}\n`);
  console.log('| kind | pauses | median ms | longest ms |\n|---|---|---|---|');
  for (const kind of ['Eden', 'Full', 'later increment']) {
    const ms = rows.filter((r) => r.kind === kind).map((r) => r.ms).sort((x, y) => x - y);
    if (ms.length) console.log(`| ${kind} | ${ms.length} | ${(ms[ms.length >> 1] ?? 0).toFixed(2)} | ${(ms.at(-1) ?? 0).toFixed(2)} |`);
  }
  console.log('\nover 4 ms:');
  for (const r of rows.filter((x) => x.ms > 4).sort((x, y) => y.ms - x.ms)) console.log(`  ${r.ms.toFixed(2)} ms ${r.kind}, visited ${r.visitedKb} KB`);
} finally {
  await svc.stop();
}
