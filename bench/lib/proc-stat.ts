/** CPU time from /proc (Linux), in clock ticks (USER_HZ: 100 per second). */
import { readdirSync, readFileSync } from 'node:fs';

export const TICKS_PER_SECOND = 100;

/** utime + stime and the thread or process name, from a /proc stat file; null if it ended meanwhile. */
export function statTicks(path: string): { name: string; ticks: number } | null {
  try {
    const s = readFileSync(path, 'utf8');
    const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { name: s.slice(s.indexOf('(') + 1, s.lastIndexOf(')')), ticks: Number(fields[11]) + Number(fields[12]) };
  } catch {
    return null;
  }
}

/**
 * Minor page faults and user / system CPU ticks from a /proc stat file (a thread's or a process's);
 * null if it ended meanwhile. A fault is a page the kernel maps (and zeroes) on first touch: memory
 * the allocator gave back to the kernel and took again costs one per 4 KiB page.
 */
export function statFaults(path: string): { minflt: number; utime: number; stime: number } | null {
  try {
    const s = readFileSync(path, 'utf8');
    const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
    return { minflt: Number(fields[7]), utime: Number(fields[11]), stime: Number(fields[12]) };
  } catch {
    return null;
  }
}

/** Every process on the machine: pid → name and CPU ticks so far. */
export function allProcesses(): Map<number, { name: string; ticks: number }> {
  const out = new Map<number, { name: string; ticks: number }>();
  for (const d of readdirSync('/proc')) {
    if (!/^\d+$/.test(d)) continue;
    const p = statTicks(`/proc/${d}/stat`);
    if (p) out.set(Number(d), p);
  }
  return out;
}

/** CPU ticks of this process's children that have exited and been waited for (wrk, after a run). */
export function reapedChildrenTicks(): number {
  const s = readFileSync('/proc/self/stat', 'utf8');
  const fields = s.slice(s.lastIndexOf(')') + 2).split(' ');
  return Number(fields[13]) + Number(fields[14]);
}

/** Busy and total ticks of all cores together (/proc/stat; idle and iowait are not busy). */
export function machineTicks(): { busy: number; total: number } {
  const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
  const v = line.trim().split(/\s+/).slice(1, 9).map(Number);
  const total = v.reduce((a, b) => a + b, 0);
  return { busy: total - (v[3] ?? 0) - (v[4] ?? 0), total };
}
