/**
 * bench/retention-sweep — how long one retention sweep takes with many endpoints, and how long it
 * holds the event loop of the node it runs on (an API node that is usually a receiver too).
 * Runs the real `sweepRetention` against the endpoints bench/tenants seeded (1,000,000 by default,
 * database hookcap_bench_tenants: run bench/tenants once first) and an empty ClickHouse database,
 * with a 1 ms timer recording the longest gap between its ticks.
 *
 * With BENCH_PAID=N, a `pro` account owning N endpoints is added first (kept for later runs):
 * the mixed shape of a hosted service, many free endpoints and a few paid ones.
 *
 *   node_modules/.bin/bun bench/retention-sweep.ts        (BENCH_DB, BENCH_ROUNDS (3), BENCH_PAID (0))
 */
import { loadConfig } from '../src/config';
import { sweepRetention } from '../src/services/retention';
import { createClickHouseCaptureStore } from '../src/stores/captures/clickhouse';
import { count, eq } from 'drizzle-orm';
import { openPostgres } from '../src/stores/state/db';
import { endpoints, users } from '../src/stores/state/schema';
import { seedEndpoints } from '../test/support/seed-endpoints';
import { systemClock } from '../src/clock';
import { CLICKHOUSE_URL, PG_ADMIN_URL } from '../test/support/backends';

const dbName = process.env.BENCH_DB ?? 'hookcap_bench_tenants';
if (!/^[a-z_][a-z0-9_]*$/.test(dbName)) throw new Error(`BENCH_DB must be a plain identifier, got ${dbName}`);
const rounds = Number(process.env.BENCH_ROUNDS ?? 3);
const paid = Number(process.env.BENCH_PAID ?? 0);
const PAID_USER = 'usr_bench_sweep_pro';
const pgUrl = new URL(PG_ADMIN_URL);
pgUrl.pathname = `/${dbName}`;

const state = await openPostgres(pgUrl.toString(), 2);
const captures = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database: 'hookcap_bench_sweep' });
await captures.migrate();
const config = loadConfig({ ...process.env, DATA_DIR: '/tmp/hookcap-bench-sweep' });
if (paid > 0) {
  await state.db.insert(users).values({ id: PAID_USER, email: 'bench-sweep-pro@example.com', createdAt: Date.now(), plan: 'pro' }).onConflictDoNothing();
  const have = (await state.db.select({ n: count() }).from(endpoints).where(eq(endpoints.userId, PAID_USER)))[0]?.n ?? 0;
  // A base of its own, far from bench/tenants' (seedBase picks at random).
  if (have < paid) await seedEndpoints(state.db, { userId: PAID_USER, base: 2 ** 50, from: have, to: paid });
}
const n = (await state.db.select({ n: count() }).from(endpoints))[0]?.n ?? 0;
console.log(`bench/retention-sweep: ${n.toLocaleString('en')} endpoints in ${dbName}, ${paid.toLocaleString('en')} of them on pro`);
try {
  for (let r = 1; r <= rounds; r++) {
    let longest = 0;
    let last = performance.now();
    const timer = setInterval(() => {
      const now = performance.now();
      longest = Math.max(longest, now - last - 1);
      last = now;
    }, 1);
    const t0 = performance.now();
    await sweepRetention({ db: state.db, config, captures, clock: systemClock });
    const seconds = (performance.now() - t0) / 1000;
    clearInterval(timer);
    console.log(`round ${r}: sweep ${seconds.toFixed(2)} s, longest event-loop hold ${longest.toFixed(0)} ms`);
  }
} finally {
  await captures.close();
  await fetch(`${CLICKHOUSE_URL}/?query=${encodeURIComponent('DROP DATABASE IF EXISTS hookcap_bench_sweep')}`, { method: 'POST' });
  await state.close();
}
