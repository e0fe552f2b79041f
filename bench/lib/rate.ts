/**
 * Open-loop load at a fixed rate: requests are scheduled on a clock and latency is measured from
 * the scheduled send time, so a slow server cannot hide its queueing (no coordinated omission).
 */
export interface RateResult {
  sent: number;
  ok: number;
  p50: number;
  p99: number;
  max: number;
}

export async function constantRate(url: string, body: string, rps: number, seconds: number): Promise<RateResult> {
  const total = Math.floor(rps * seconds);
  const latencies: number[] = [];
  let ok = 0;
  const start = performance.now();
  const inflight = new Set<Promise<void>>();
  for (let i = 0; i < total; i++) {
    const due = start + (i * 1000) / rps;
    const wait = due - performance.now();
    if (wait > 1) await Bun.sleep(wait);
    const p = fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json' } })
      .then(async (r) => {
        await r.arrayBuffer();
        if (r.status === 200) ok++;
        latencies.push(performance.now() - due);
      })
      .catch(() => {})
      .finally(() => inflight.delete(p));
    inflight.add(p);
  }
  await Promise.all(inflight);
  latencies.sort((a, b) => a - b);
  const q = (f: number) => latencies[Math.min(latencies.length - 1, Math.floor(f * latencies.length))] ?? Number.NaN;
  return { sent: total, ok, p50: q(0.5), p99: q(0.99), max: latencies.at(-1) ?? Number.NaN };
}
