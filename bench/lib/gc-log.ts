/**
 * Reads JSC's GC log (`BUN_JSC_logGC=1`) from a service's output. Every line names its heap
 * (`[GC<0x…>: …`), one heap per JS thread, so pauses are split by thread: the receiver's (main)
 * thread, whose pauses hold up acknowledgements, and the shipper worker's, whose do not.
 *
 * The main heap is the first one the log names when the service was started through
 * `GC_MARKED_ENTRY` (bench/lib/gc-marked-main.ts collects once on the main thread before anything
 * else runs). Two threads' lines can interleave mid-line; a pause is counted for the heap whose
 * line it appears in, so an interleaved one may be misattributed (rare: lines are short and
 * written whole).
 */

export interface GcLog {
  /** Pause increments (ms) of the receiver's thread, longest first. */
  main: number[];
  /** Pause increments (ms) of the other JS threads (the shipper worker), longest first. */
  others: number[];
  /** Bytes allocated, summed over the collections that say so (a floor). */
  allocatedBytes: number;
}

/** The service's entry point for a run whose GC log is read. */
export const GC_MARKED_ENTRY = new URL('./gc-marked-main.ts', import.meta.url).pathname;

const HEAP = /\[GC<(0x[0-9a-f]+)>/g;
const PAUSE = / p=([\d.]+)ms \(max/g;

/** The first heap named in the whole output: the main thread's. */
export function mainHeap(output: string): string | null {
  HEAP.lastIndex = 0;
  return HEAP.exec(output)?.[1] ?? null;
}

/** Parses `slice` (the part of the output during a run); `main` comes from mainHeap on the whole output. */
export function parseGcLog(slice: string, main: string | null): GcLog {
  const out: GcLog = { main: [], others: [], allocatedBytes: 0 };
  // Each piece starts at a heap's tag and runs to the next tag.
  const pieces = slice.split('[GC<');
  for (let i = 0; i < pieces.length; i++) {
    const piece = pieces[i] as string;
    const heap = i === 0 ? null : piece.slice(0, piece.indexOf('>'));
    for (const m of piece.matchAll(PAUSE)) (heap !== null && heap === main ? out.main : out.others).push(Number(m[1]));
  }
  for (const m of slice.matchAll(/bytes allocated this cycle: (\d+)/g)) out.allocatedBytes += Number(m[1]);
  out.main.sort((a, b) => b - a);
  out.others.sort((a, b) => b - a);
  return out;
}
