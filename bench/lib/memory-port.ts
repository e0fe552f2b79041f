/**
 * The control port bench/stream reads memory from: every request runs a full GC and answers the
 * process's RSS and JS heap (heapSize: live objects; heapCapacity: the heap's blocks, live or not),
 * so memory per connection is not lost in GC noise. Listens on BENCH_CONTROL_PORT.
 */
import { heapStats } from 'bun:jsc';

export function serveMemoryPort(): void {
  Bun.serve({
    hostname: '127.0.0.1',
    port: Number(process.env.BENCH_CONTROL_PORT),
    fetch() {
      Bun.gc(true);
      const h = heapStats();
      return Response.json({ rss: process.memoryUsage().rss, heapSize: h.heapSize, heapCapacity: h.heapCapacity });
    },
  });
}
