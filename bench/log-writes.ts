/**
 * bench/log-writes — what one group commit costs the disk, in isolation: 9 KB groups (about five
 * captures) written the way the capture log used to (append to a fresh file, then fdatasync) and
 * the way it does now (O_DSYNC into a recycled, already written file). Wall time per group with
 * its percentiles, and this process's CPU per group (the syscalls run on Bun's I/O threads).
 *
 *   node_modules/.bin/bun bench/log-writes.ts      (BENCH_GROUP_BYTES, BENCH_GROUPS, BENCH_DIR)
 */
import { closeSync, constants, fdatasyncSync, mkdtempSync, openSync, rmSync, writeSync } from 'node:fs';
import { open } from 'node:fs/promises';
import { join } from 'node:path';

const groupBytes = Number(process.env.BENCH_GROUP_BYTES ?? 9000);
const groups = Number(process.env.BENCH_GROUPS ?? 3000);
// The same file system as DATA_DIR by default (tmpfs would measure nothing).
const dir = mkdtempSync(join(process.env.BENCH_DIR ?? process.cwd(), '.bench-log-writes-'));
const group = new Uint8Array(groupBytes).fill(65);

async function run(name: string, recycled: boolean): Promise<void> {
  const path = join(dir, name.replace(/\W+/g, '-'));
  if (recycled) {
    const fd = openSync(path, 'w+');
    const chunk = new Uint8Array(1 << 20);
    for (let written = 0; written < groups * groupBytes; written += chunk.length) writeSync(fd, chunk);
    fdatasyncSync(fd);
    closeSync(fd);
  }
  const flags = recycled ? constants.O_RDWR | constants.O_DSYNC : constants.O_RDWR | constants.O_CREAT | constants.O_TRUNC;
  const file = await open(path, flags, 0o644);
  const lat: number[] = [];
  const cpu0 = process.cpuUsage();
  const t0 = performance.now();
  for (let i = 0; i < groups; i++) {
    const t = performance.now();
    await file.write(group, 0, groupBytes, i * groupBytes);
    if (!recycled) await file.datasync();
    lat.push(performance.now() - t);
  }
  const wall = performance.now() - t0;
  const cpu = process.cpuUsage(cpu0);
  await file.close();
  rmSync(path);
  lat.sort((a, b) => a - b);
  const q = (f: number) => (lat[Math.floor(f * lat.length)] ?? Number.NaN).toFixed(2);
  console.log(
    `| ${name} | ${((wall * 1000) / groups).toFixed(0)} | ${q(0.5)} / ${q(0.99)} / ${q(0.999)} | ${((cpu.user + cpu.system) / groups).toFixed(0)} |`,
  );
}

console.log(`bench/log-writes: ${groups} groups of ${groupBytes} bytes\n`);
console.log('| write | µs per group | p50 / p99 / p99.9 ms | CPU µs per group |\n|---|---|---|---|');
try {
  for (let round = 0; round < 2; round++) {
    await run('append to a fresh file + fdatasync', false);
    await run('O_DSYNC into a recycled file', true);
  }
} finally {
  rmSync(dir, { recursive: true, force: true });
}
