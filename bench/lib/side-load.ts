/**
 * A load beside the service, once a second, for bench/settings-ab's `BENCH_SIDE` setting: what a
 * burst of the kind shipping makes does to the receiver's latency, without shipping.
 *
 *   BENCH_SIDE=cpu:80     80 ms of CPU on one thread every second
 *   BENCH_SIDE=disk:15    15 MiB written and fsynced into DIR every second (four files in turn); settings-ab
 *                         passes the directory the test harness makes data directories in
 */
import { closeSync, fsyncSync, openSync, rmSync, writeSync } from 'node:fs';
import { join } from 'node:path';

const [kind, amount] = (process.env.BENCH_SIDE ?? '').split(':');
const n = Number(amount);
if ((kind !== 'cpu' && kind !== 'disk') || !(n > 0)) throw new Error(`BENCH_SIDE must be cpu:<ms> or disk:<MiB>, got "${process.env.BENCH_SIDE}"`);
const dir = process.env.DIR ?? '/tmp';
const chunk = Buffer.alloc(1 << 20, 7);
process.on('SIGTERM', () => {
  for (let i = 0; i < 4; i++) rmSync(join(dir, `side-load-${i}.tmp`), { force: true });
  process.exit(0);
});
for (let round = 0; ; round++) {
  const started = performance.now();
  if (kind === 'cpu') {
    let x = 0;
    while (performance.now() - started < n) x += Math.sqrt(x + 1);
  } else {
    const fd = openSync(join(dir, `side-load-${round % 4}.tmp`), 'w');
    for (let i = 0; i < n; i++) writeSync(fd, chunk);
    fsyncSync(fd);
    closeSync(fd);
  }
  await Bun.sleep(Math.max(0, 1000 - (performance.now() - started)));
}
