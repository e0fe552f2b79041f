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
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../test/support/server';
import { wrk } from './lib/wrk';

const seconds = Number(process.env.BENCH_SECONDS ?? 5);
const connections = Number(process.env.BENCH_CONNECTIONS ?? 64);
const STAGES = ['elysia', 'record', 'record+detect', 'record+log', 'full'] as const;

if (process.env.STAGE) {
  await serveStage(process.env.STAGE, Number(process.env.PORT));
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
          id, endpointId: 'ep_bench', method: request.method, path: '/', headers, ...decoded, queryParams, contentType,
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
