/**
 * bench/faults-probe — minor page faults per request on the serving thread of one bench/capture-stages
 * stage (or raw Bun.serve) at a fixed rate: how much memory the allocator gives back to the kernel
 * and takes again. Passes its environment on (MIMALLOC_PURGE_DELAY=… to compare allocator settings).
 *
 *   STAGE=raw|elysia|record|record+log|full RATE=15000 node_modules/.bin/bun bench/faults-probe.ts
 */
import { freePort } from '../test/support/server';
import { statFaults } from './lib/proc-stat';
import { constantRate } from './lib/rate';
import { postBody } from './lib/wrk';

const body = await postBody();
const port = await freePort();
const stage = process.env.STAGE ?? 'full';
const entry = stage === 'raw' ? new URL('./lib/raw-server.ts', import.meta.url).pathname : new URL('./capture-stages.ts', import.meta.url).pathname;
const proc = Bun.spawn([process.execPath, entry], { env: { ...process.env, STAGE: stage, PORT: String(port) }, stdout: 'ignore', stderr: 'inherit' });
await Bun.sleep(1000);
const url = `http://127.0.0.1:${port}/w/x`;
const rate = Number(process.env.RATE ?? 15000);
await constantRate(url, body, rate, 2);
const a = statFaults(`/proc/${proc.pid}/task/${proc.pid}/stat`);
const r = await constantRate(url, body, rate, 5);
const b = statFaults(`/proc/${proc.pid}/task/${proc.pid}/stat`);
proc.kill();
await proc.exited;
if (a && b) console.log(`${stage} ${process.env.MIMALLOC_PURGE_DELAY ?? ''}: ${((b.minflt - a.minflt) / (rate * 5)).toFixed(3)} faults per request, p99 ${r.p99.toFixed(2)} ms`);
