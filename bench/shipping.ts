/**
 * bench/shipping — what shipping costs per capture: the shipper worker's CPU and the capture
 * store's (ClickHouse's process; SQLite runs inside the worker). The real capture log and the real
 * shipper worker: captures are appended as the receiver appends them (groups of 64, as many as
 * wrk's connections), the worker is told of them and ships them as it does in the service, and the
 * bench waits until all are stored. Counted: this process's threads other than the main one
 * (the worker, and the GC, allocator and HTTP-client threads working for it; JIT and Bun's file
 * pool excluded) and ClickHouse's processes; the appends run on the main thread and are not.
 *
 *   node_modules/.bin/bun bench/shipping.ts   (BENCH_BACKEND=server|embedded, BENCH_CAPTURES, BENCH_ROUNDS;
 *   SHIP_BATCH_ROWS, SHIP_BATCH_BYTES and SHIP_MAX_AGE_MS: the service's defaults for the backend unless set)
 */
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { defaultShipMaxAgeMs, loadConfig } from '../src/config';
import { CaptureLog } from '../src/engine/capture-log';
import { Shipper } from '../src/engine/shipper';
import type { Capture } from '../src/model/capture';
import { captureStoreSpec, openCaptureStore } from '../src/stores/captures/open';
import { captureId } from '../src/ids';
import { provision, type BackendName } from '../test/support/backends';
import { statTicks } from './lib/proc-stat';
import { loadAverage, saveResults } from './lib/results';

const backend = (process.env.BENCH_BACKEND ?? 'server') as BackendName;
const total = Number(process.env.BENCH_CAPTURES ?? 100_000);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const GROUP = 64;
// The service's defaults for the backend, unless set here.
const defaults = loadConfig({ DATA_DIR: tmpdir() });
const batchRows = Number(process.env.SHIP_BATCH_ROWS ?? defaults.shipBatchRows);
const batchBytes = Number(process.env.SHIP_BATCH_BYTES ?? defaults.shipBatchBytes);
const maxAgeMs = Number(process.env.SHIP_MAX_AGE_MS ?? defaultShipMaxAgeMs(backend === 'server'));

/** A signed Stripe delivery as the receiver records it (~1.3 KB of JSON). */
function capture(endpointId: string, i: number): Capture {
  const receivedAt = Date.now();
  const body = JSON.stringify({
    id: `evt_${i}`,
    object: 'event',
    api_version: '2023-10-16',
    created: 1700000000 + i,
    data: { object: { id: `pi_${i}`, object: 'payment_intent', amount: 2000 + i, currency: 'usd', status: 'succeeded', customer: 'cus_OdE2', metadata: { order_id: String(i) } } },
    livemode: false,
    pending_webhooks: 1,
    request: { id: `req_${i}`, idempotency_key: `k${i}` },
    type: 'payment_intent.succeeded',
  });
  return {
    id: captureId(receivedAt),
    endpointId,
    method: 'POST',
    path: '/',
    headers: {
      host: '127.0.0.1:3000',
      'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
      'content-type': 'application/json; charset=utf-8',
      'content-length': String(body.length),
      'stripe-signature': `t=${Math.floor(receivedAt / 1000)},v1=5257a869e7ecebeda32affa62cdca3fa51cad7e77a0e56ff536d0ce8e108d8bd`,
      accept: '*/*; q=0.5, application/xml',
      'cache-control': 'no-cache',
    },
    body,
    bodyEncoding: 'utf8',
    queryParams: {},
    contentType: 'application/json; charset=utf-8',
    ip: '127.0.0.1',
    size: body.length,
    receivedAt,
    detectedProvider: 'stripe',
    detectedEvent: 'payment_intent.succeeded',
    responseStatus: 200,
  };
}

/** CPU ticks of this process's threads but the main, JIT and file-pool ones, and of every ClickHouse process. */
function ticks(): { worker: number; clickhouse: number } {
  let worker = 0;
  for (const tid of readdirSync('/proc/self/task')) {
    const t = statTicks(`/proc/self/task/${tid}/stat`);
    if (t && t.name !== 'bun' && t.name !== 'bun.exe' && !t.name.startsWith('JIT') && !t.name.startsWith('Bun Pool')) worker += t.ticks;
  }
  let clickhouse = 0;
  for (const pid of readdirSync('/proc').filter((d) => /^\d+$/.test(d))) {
    const p = statTicks(`/proc/${pid}/stat`);
    if (p?.name.startsWith('clickhouse')) clickhouse += p.ticks;
  }
  return { worker, clickhouse };
}

const encoder = new TextEncoder();
const p = await provision(backend);
const results: { round: number; workerUs: number; storeUs: number; seconds: number }[] = [];
try {
  for (let round = 1; round <= rounds; round++) {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-ship-'));
    const spec = captureStoreSpec(p.env.CLICKHOUSE_URL ?? null, dir);
    const store = openCaptureStore(spec);
    await store.migrate();
    await store.close();
    const opened = await CaptureLog.open(join(dir, 'log'), 64 * 1024 * 1024);
    const shipper = new Shipper(opened.log, opened.end, opened.unshipped, { store: spec, batchRows, batchBytes, maxAgeMs });
    await Bun.sleep(500); // the worker's start and the store's connection are not shipping
    const before = ticks();
    const started = performance.now();
    const endpointId = `ep_bench_${round}`;
    for (let i = 0; i < total; i += GROUP) {
      const group: Promise<unknown>[] = [];
      for (let j = i; j < Math.min(total, i + GROUP); j++) group.push(opened.log.append(encoder.encode(JSON.stringify(capture(endpointId, j)))));
      await Promise.all(group);
      // Let the backlog stay near what a loaded receiver leaves (the shipper's batch size).
      while (shipper.backlog > 2 * batchRows) await Bun.sleep(5);
    }
    while (shipper.backlog > 0) await Bun.sleep(5);
    const seconds = (performance.now() - started) / 1000;
    const after = ticks();
    const workerUs = ((after.worker - before.worker) * 10_000) / total;
    const storeUs = ((after.clickhouse - before.clickhouse) * 10_000) / total;
    results.push({ round, workerUs, storeUs, seconds });
    console.log(`round ${round}: ${total} captures shipped in ${seconds.toFixed(1)} s; µs per capture: worker ${workerUs.toFixed(1)}, ClickHouse ${storeUs.toFixed(1)}, both ${(workerUs + storeUs).toFixed(1)} (load ${loadAverage()})`);
    await opened.log.close();
    await shipper.stop();
    rmSync(dir, { recursive: true, force: true });
  }
} finally {
  await p.cleanup();
}
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)] ?? Number.NaN;
const w = median(results.map((r) => r.workerUs));
const s = median(results.map((r) => r.storeUs));
console.log(`bench/shipping (${backend}): median µs per capture: worker ${w.toFixed(1)}, ClickHouse ${s.toFixed(1)}, both ${(w + s).toFixed(1)}`);
saveResults(`shipping-${backend}`, { bench: 'shipping', backend, at: new Date().toISOString(), loadAverage: loadAverage(), captures: total, rounds: results, medianWorkerUs: w, medianStoreUs: s });
