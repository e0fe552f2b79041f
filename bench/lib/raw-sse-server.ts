/**
 * The ceiling for bench/stream: bare Bun.serve SSE with the same wire format and the same
 * ReadableStream-per-client fan-out, no auth, bus, store or framework. POST /w/* "captures"
 * (fans the body out to every client, then answers {id}); GET /api/stream/* streams.
 * BENCH_CONTROL_PORT answers memory after a full GC (memory-port.ts), as the service's bench runner does.
 */
import { ulid } from '../../src/ids';
import { serveMemoryPort } from './memory-port';

const encoder = new TextEncoder();
const clients = new Set<ReadableStreamDefaultController<Uint8Array>>();

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.PORT),
  async fetch(req, server) {
    if (req.method === 'POST') {
      const id = `req_${ulid(Date.now())}`;
      const frame = encoder.encode(`id: ${id}\nevent: request\ndata: ${JSON.stringify({ id, body: await req.text() })}\n\n`);
      for (const c of clients) c.enqueue(frame);
      return Response.json({ ok: true, id });
    }
    if (req.url.endsWith('/healthz')) return Response.json({ ok: true, stream: { topics: 1, clients: clients.size } });
    server.timeout(req, 0);
    let self: ReadableStreamDefaultController<Uint8Array> | null = null;
    const stream = new ReadableStream<Uint8Array>(
      {
        start(c) {
          self = c;
          clients.add(c);
          c.enqueue(encoder.encode(':ok\n\n'));
        },
        cancel() {
          if (self) clients.delete(self);
        },
      },
      new CountQueuingStrategy({ highWaterMark: 1000 }),
    );
    return new Response(stream, { headers: { 'content-type': 'text/event-stream' } });
  },
});

serveMemoryPort();
console.log('ready');
