/**
 * Environment the service's process is started with (`npm start`, the Docker image, and the test
 * and bench harnesses, so that they measure what is deployed). It is not a config setting: the
 * runtime reads it before any of our code runs. A value already in the environment wins.
 *
 * MIMALLOC_PURGE_DELAY: Bun's allocator (mimalloc) hands freed memory back to the kernel after it
 * has been unused this long (ms; Bun's default 100). Under a steady load the receiver thread frees
 * in bursts, each garbage collection, and allocates continuously, so the memory handed back is
 * taken again at once, one page fault per 4 KiB: ~0.3 faults per capture on the receiver thread at
 * Bun's default. The measured effect of this value, and what it costs in memory, is in
 * docs/configuration.md ("The allocator").
 */
export const PROCESS_ENV_DEFAULTS = Object.freeze({
  MIMALLOC_PURGE_DELAY: '-1',
} as const);
