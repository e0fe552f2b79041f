/**
 * The service as src/main.ts runs it, plus a control port for bench/stream: GET /memory runs a
 * full GC and answers the process's memory (RSS, JS heap live and committed), so memory per
 * connection is not lost in GC noise.
 */
import { heapStats } from 'bun:jsc';
import { startService } from '../../src/app';
import { loadConfigOrExit } from '../../src/config';
import { setLogLevel } from '../../src/log';

const config = loadConfigOrExit();
setLogLevel(config.logLevel);
const service = await startService(config);

Bun.serve({
  hostname: '127.0.0.1',
  port: Number(process.env.BENCH_CONTROL_PORT),
  fetch() {
    Bun.gc(true);
    const h = heapStats();
    // heapSize: live JS objects; heapCapacity: the JS heap's blocks, live or not (fragmentation).
    return Response.json({ rss: process.memoryUsage().rss, heapSize: h.heapSize, heapCapacity: h.heapCapacity });
  },
});

process.on('SIGTERM', () => {
  void service.stop().then(() => process.exit(0));
});
