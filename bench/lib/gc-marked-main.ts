/**
 * The service's entry point for benches that read JSC's GC log: one full collection on the main
 * thread first, so the log's first-named heap is the receiver's (bench/lib/gc-log.ts), then the
 * real entry point. Without it the shipper worker's heap is sometimes named first.
 */
Bun.gc(true);
await import('../../src/main');
export {};
