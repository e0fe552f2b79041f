/**
 * Where a bench leaves its figures for `npm run bench` (bench/report.ts): a JSON file named after
 * the bench in BENCH_RESULTS_DIR. Run alone (no BENCH_RESULTS_DIR) a bench only prints its table.
 */
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

export function saveResults(bench: string, data: unknown): void {
  const dir = process.env.BENCH_RESULTS_DIR;
  if (!dir) return;
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, `${bench}.json`), `${JSON.stringify(data, null, 2)}\n`);
}

/** The 1-minute load average now (figures taken on a busy machine say so). */
export function loadAverage(): number {
  try {
    return Number(readFileSync('/proc/loadavg', 'utf8').split(' ')[0]);
  } catch {
    return Number.NaN;
  }
}

/** A progress line on stderr: what is running, how far, and the time left at the rate so far. */
export function progress(label: string, done: number, total: number, startedMs: number): void {
  const f = total > 0 ? done / total : 1;
  const elapsed = (performance.now() - startedMs) / 1000;
  const eta = f > 0 && f < 1 ? ` ETA ${Math.round((elapsed / f) * (1 - f))} s` : '';
  const width = 30;
  const bar = '#'.repeat(Math.round(f * width)).padEnd(width, '.');
  process.stderr.write(`\r${label} [${bar}] ${(f * 100).toFixed(0)}% (${done.toLocaleString('en')}/${total.toLocaleString('en')})${eta}   ${f >= 1 ? '\n' : ''}`);
}
