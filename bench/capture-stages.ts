/**
 * bench/capture-stages — where a capture's time goes. Serves POST /w/:slug from one Elysia route
 * at increasing depths of the real capture pipeline and drives each with wrk:
 *
 *   elysia          read the body, answer 200 (routing + HTTP only)
 *   record          + build the request record (header map, strict UTF-8, ULID) and stringify it
 *   record+detect   + provider detection
 *   record+log      + group-commit append to a real capture log (fsync), no detection
 *   full            + detection + log append (no shipping, no bus)
 *
 *   node_modules/.bin/bun bench/capture-stages.ts      (BENCH_SECONDS, BENCH_CONNECTIONS)
 *
 * With BENCH_RATE (captures/s) each stage, and raw Bun.serve before them, is driven at that fixed
 * rate instead (the open-loop generator of bench/capture) with JSC's GC log on, and the table gives
 * p50/p99 and the receiver thread's GC pauses: what the pipeline costs in pauses without the rest
 * of the service (BENCH_ROUNDS, 2 by default; BENCH_STAGES picks stages, comma-separated).
 * With BENCH_RATE, PGLITE_BALLAST=1 loads an idle PGlite into each stage's process: what PGlite's heap on the
 * receiver's thread costs its collections. IMPORT_BALLAST=<module>,<module> (paths from the repo's
 * root, e.g. src/app.ts) imports those modules, unused, into each stage's process: what loading
 * the rest of the service costs the receiver's collections.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/server';
import { mainHeap, parseGcLog } from './lib/gc-log';
import { constantRate } from './lib/rate';
import { postBody, wrk } from './lib/wrk';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const STAGES = ['elysia', 'record', 'record+detect', 'record+log', 'full'] as const;

if (process.env.STAGE) {
  // First, so that the GC log's first heap is this (main) thread's (bench/lib/gc-log.ts).
  Bun.gc(true);
  await serveStage(process.env.STAGE, Number(process.env.PORT));
} else if (process.env.BENCH_RATE) {
  await atRate(Number(process.env.BENCH_RATE));
} else {
  console.log(`bench/capture-stages: ${seconds}s per stage, ${connections} connections, ~1 KB JSON POST\n`);
  console.log('| stage | requests/s (2xx) |\n|---|---|');
  for (const stage of STAGES) {
    const port = await freePort();
    const proc = Bun.spawn([process.execPath, import.meta.path], { env: { ...process.env, STAGE: stage, PORT: String(port) }, stdout: 'ignore' });
    await Bun.sleep(800);
    await wrk(`http://127.0.0.1:${port}/w/x`, { connections, seconds: 1 });
    const r = await wrk(`http://127.0.0.1:${port}/w/x`, { connections, seconds });
    proc.kill();
    await proc.exited;
    console.log(`| ${stage} | ${r.rps.toFixed(0)} |`);
  }
}

async function atRate(rate: number): Promise<void> {
  const body = await postBody();
  const stages = process.env.BENCH_STAGES?.split(',') ?? ['raw', ...STAGES];
  const unknown = stages.filter((s) => s !== 'raw' && !(STAGES as readonly string[]).includes(s));
  if (unknown.length > 0) throw new Error(`unknown stage(s) ${unknown.join(', ')}: raw, ${STAGES.join(', ')}`);
  console.log(`bench/capture-stages at ${rate}/s: 6 s per stage and round, ~1 KB JSON POST\n`);
  console.log('| round | stage | p50 / p99 ms | receiver GC pauses: count, median, longest ms |\n|---|---|---|---|');
  for (let round = 1; round <= Number(process.env.BENCH_ROUNDS ?? 2); round++) {
    for (const stage of stages) {
      const port = await freePort();
      // raw: the ceiling server bench/capture measures (one thread, so its heap is the GC log's only one).
      const entry = stage === 'raw' ? new URL('./lib/raw-server.ts', import.meta.url).pathname : import.meta.path;
      const proc = Bun.spawn([process.execPath, entry], {
        env: { ...process.env, BENCH_RATE: '', STAGE: stage, PORT: String(port), BUN_JSC_logGC: '1' },
        stdout: 'pipe',
        stderr: 'pipe',
      });
      let log = '';
      const dec = new TextDecoder();
      for (const s of [proc.stdout, proc.stderr]) void (async () => { for await (const c of s) log += dec.decode(c); })();
      await Bun.sleep(process.env.PGLITE_BALLAST ? 4000 : 1000);
      const url = `http://127.0.0.1:${port}/w/x`;
      await constantRate(url, body, rate, 2);
      const from = log.length;
      const r = await constantRate(url, body, rate, 6);
      const pauses = parseGcLog(log.slice(from), mainHeap(log)).main;
      proc.kill();
      await proc.exited;
      const median = pauses[Math.floor(pauses.length / 2)] ?? 0;
      console.log(`| ${round} | ${stage} | ${r.p50.toFixed(2)} / ${r.p99.toFixed(2)} | ${pauses.length}, ${median.toFixed(1)}, ${(pauses[0] ?? 0).toFixed(1)} |`);
    }
  }
}

async function serveStage(stage: string, port: number): Promise<void> {
  const { Elysia } = await import('elysia');
  const { CaptureLog } = await import('../src/engine/capture-log');
  const { decodeBody, headersObject, parseQuery } = await import('../src/engine/capture');
  const { detectProvider } = await import('../src/engine/providers');
  const { captureId } = await import('../src/ids');
  const dir = mkdtempSync(join(tmpdir(), 'capture-stages-'));
  process.on('SIGTERM', () => {
    rmSync(dir, { recursive: true, force: true });
    process.exit(0);
  });
  const { log } = await CaptureLog.open(dir, 64 << 20);
  if (process.env.PGLITE_BALLAST) {
    // An idle PGlite on this thread, as the embedded service had before it got a thread of its own.
    const { PGlite } = await import('@electric-sql/pglite');
    const pg = new PGlite();
    await pg.query('SELECT 1');
    (globalThis as { ballast?: unknown }).ballast = pg;
  }
  for (const m of process.env.IMPORT_BALLAST?.split(',').filter(Boolean) ?? []) {
    (globalThis as { imported?: unknown[] }).imported = [...((globalThis as { imported?: unknown[] }).imported ?? []), await import(join(import.meta.dir, '..', m))];
  }
  const detect = stage === 'record+detect' || stage === 'full';
  const append = stage === 'record+log' || stage === 'full';
  const enc = new TextEncoder();
  new Elysia()
    .all(
      '/w/:slug',
      async ({ request, server }) => {
        const body = new Uint8Array(await request.arrayBuffer());
        if (stage === 'elysia') return new Response('{"ok":true}');
        const headers = headersObject(request.headers);
        const decoded = decodeBody(body);
        const queryParams = parseQuery('');
        const contentType = headers['content-type'] ?? '';
        const found = detect
          ? detectProvider({ headers, body: decoded.body, contentType, method: request.method, query: queryParams })
          : { provider: '', event: '' };
        const receivedAt = Date.now();
        const id = captureId(receivedAt);
        const record = {
          id, endpointId: 'ep_bench', method: request.method, path: '/', headers, ...decoded, queryParams, query: '', contentType,
          ip: server?.requestIP(request)?.address ?? '', size: body.length, receivedAt,
          detectedProvider: found.provider, detectedEvent: found.event,
        };
        const payload = enc.encode(JSON.stringify(record));
        if (append) await log.append(payload);
        return new Response(`{"ok":true,"id":"${id}"}`, { headers: { 'content-type': 'application/json', 'x-request-id': id } });
      },
      { parse: 'none' },
    )
    .listen({ port, hostname: '127.0.0.1' });
}
