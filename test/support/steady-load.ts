/**
 * A steady stream of captures for the fault tests: `rate` requests a second (paced, with a cap on
 * requests in flight), each answer recorded. An acknowledged capture is a 200 with its id; every
 * other answer is kept by status (a 503 with its Retry-After), and a request that got no answer at
 * all (the server was killed) counts as `failed`, never as acknowledged.
 */
import { call } from './client';

export interface LoadReport {
  /** Ids of acknowledged captures, in the order their acks arrived. */
  acked: string[];
  /** Answers by status, 200 included. */
  statuses: Record<number, number>;
  /** 503 answers that carried no Retry-After header. */
  unavailableWithoutRetryAfter: number;
  /** Requests that got no HTTP answer (connection refused or reset). */
  failed: number;
  /** Latency of each acknowledged capture, ms. */
  latencies: number[];
  sent: number;
}

export interface SteadyLoad {
  report: LoadReport;
  /** Stops sending, waits for the requests in flight, and returns the report. */
  stop(): Promise<LoadReport>;
}

export interface LoadOptions {
  /** Receiver base URL, http://host:port; may change (a restarted server on another port). */
  url: () => string;
  slug: string;
  rate: number;
  maxInFlight?: number;
}

export function steadyLoad(opts: LoadOptions): SteadyLoad {
  const report: LoadReport = { acked: [], statuses: {}, unavailableWithoutRetryAfter: 0, failed: 0, latencies: [], sent: 0 };
  const maxInFlight = opts.maxInFlight ?? 64;
  const started = performance.now();
  let inFlight = 0;
  let stopped = false;
  const idle: (() => void)[] = [];

  const one = async (seq: number) => {
    inFlight++;
    const t0 = performance.now();
    try {
      const r = await fetch(`${opts.url()}/w/${opts.slug}/load/${seq}`, { method: 'POST', body: JSON.stringify({ seq }), headers: { 'content-type': 'application/json' } });
      const text = await r.text();
      report.statuses[r.status] = (report.statuses[r.status] ?? 0) + 1;
      if (r.status === 200) {
        report.acked.push((JSON.parse(text) as { id: string }).id);
        report.latencies.push(performance.now() - t0);
      } else if (r.status === 503 && !r.headers.get('retry-after')) report.unavailableWithoutRetryAfter++;
    } catch {
      report.failed++;
    } finally {
      inFlight--;
      if (inFlight === 0) for (const r of idle.splice(0)) r();
    }
  };

  let slots = 0;
  const tick = setInterval(() => {
    if (stopped) return;
    const due = Math.floor(((performance.now() - started) / 1000) * opts.rate);
    // Behind schedule (a slow or absent server): slots missed by more than the in-flight cap are
    // skipped, so the load stays at its rate instead of bursting to catch up.
    if (due - slots > maxInFlight) slots = due - maxInFlight;
    while (slots < due && inFlight < maxInFlight) {
      slots++;
      void one(report.sent++);
    }
  }, 10);

  return {
    report,
    async stop() {
      stopped = true;
      clearInterval(tick);
      if (inFlight > 0) await new Promise<void>((r) => idle.push(r));
      return report;
    },
  };
}

/**
 * The acknowledged captures a second that the load reaches over the next `ms`, at most its `rate`:
 * what this machine, as loaded as it is now, gets through. A fault test asks the same of the time
 * of its fault (at 80 %), instead of the nominal rate, which a load average of 20 kept the sender
 * itself from reaching (postgres-down: 1,764 acked in a 10 s outage at 250/s, none refused).
 */
export async function reachedRate(load: SteadyLoad, rate: number, ms = 1_000): Promise<number> {
  const acked = load.report.acked.length;
  const t0 = performance.now();
  await Bun.sleep(ms);
  return Math.min(rate, (load.report.acked.length - acked) / ((performance.now() - t0) / 1000));
}

/** Every capture of an endpoint, through the paginated list (1000 a page). */
export async function listAllIds(base: string, token: string, slug: string): Promise<string[]> {
  const ids: string[] = [];
  let cursor: string | null = null;
  for (;;) {
    const q: string = cursor ? `limit=1000&cursor=${encodeURIComponent(cursor)}` : 'limit=1000';
    const page = await call(base, 'GET', `/api/endpoints/${slug}/requests/paginated?${q}`, { token });
    if (page.status !== 200) throw new Error(`list answered ${page.status}: ${page.text}`);
    for (const r of page.body.items) ids.push(r.id);
    if (!page.body.hasMore || !page.body.cursor) return ids;
    cursor = page.body.cursor;
  }
}

/** Compares acknowledged ids with listed ones: missing (acked, not listed) and duplicated listings. */
export function countCheck(acked: string[], listed: string[]): { missing: string[]; duplicated: string[]; unacked: number } {
  const listedSet = new Set<string>();
  const duplicated: string[] = [];
  for (const id of listed) {
    if (listedSet.has(id)) duplicated.push(id);
    listedSet.add(id);
  }
  const ackedSet = new Set(acked);
  return {
    missing: acked.filter((id) => !listedSet.has(id)),
    duplicated,
    // Listed but never acknowledged: a request whose answer was lost (the server was killed after
    // the append); allowed, as the sender saw no ack.
    unacked: [...listedSet].filter((id) => !ackedSet.has(id)).length,
  };
}

/** The p-th percentile (0–100) of a list of numbers. */
export function percentile(values: number[], p: number): number {
  if (values.length === 0) return 0;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))] ?? 0;
}
