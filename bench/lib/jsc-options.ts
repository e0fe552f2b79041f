/**
 * JSC's own options (BUN_JSC_*) set for a bench, to pass on to the service it starts: GC and JIT
 * settings can be tried without a code change (bench/settings-ab.ts compares them).
 */
export function jscOptions(): Record<string, string> {
  return Object.fromEntries(Object.entries(process.env).filter((e): e is [string, string] => e[0].startsWith('BUN_JSC_') && e[1] !== undefined));
}
