/**
 * The usage meter against a real state store (PGlite, and Postgres when the server backend is
 * tested): month rollover, two meters (nodes) on one store, a failing store, a deleted account.
 * The clock is set with setSystemTime; the timer is not started, each pass is run with sync().
 */
import { afterAll, afterEach, describe, expect, setSystemTime, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sql } from 'drizzle-orm';
import postgres from 'postgres';
import type { EndpointSnapshot } from '../../src/engine/endpoint-cache';
import { UsageMeter } from '../../src/engine/usage';
import { setLogLevel } from '../../src/log';
import type { Capture } from '../../src/model/capture';
import { deleteUser, insertUser } from '../../src/stores/state/accounts';
import { openPglite, openPostgres, type StateDb } from '../../src/stores/state/db';
import { usageStoreOn, usedInPeriod } from '../../src/stores/state/usage';
import { BACKENDS, PG_ADMIN_URL } from '../support/backends';
import { seedPglite } from '../support/server';

const PLANS = { free: { limit: 5 }, pro: { limit: 100 } };
// The failing-store test logs a warning by design.
setLogLevel('error');

type Opened = { state: StateDb; cleanup: () => Promise<void> };

async function openState(kind: 'pglite' | 'postgres'): Promise<Opened> {
  if (kind === 'pglite') {
    const dir = mkdtempSync(join(tmpdir(), 'usage-meter-'));
    await seedPglite(dir);
    const state = await openPglite(dir);
    return { state, cleanup: async () => rmSync(dir, { recursive: true, force: true }) };
  }
  const name = `hookcap_meter_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const state = await openPostgres(url.toString());
  return {
    state,
    cleanup: async () => {
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`);
      await admin.end();
    },
  };
}

const endpoint = (userId: string | null): EndpointSnapshot => ({
  id: `ep_${userId ?? 'sandbox'}`,
  slug: 'slugslugslug',
  userId,
  ownerKeyId: userId ? null : 'key_agent',
  mockResponse: null,
  notificationUrl: null,
  signing: null,
  notificationKey: null,
  expiresAt: null,
});

const capture = (endpointId: string): Capture => ({
  id: 'req_x',
  endpointId,
  method: 'POST',
  path: '/',
  headers: {},
  body: '',
  bodyEncoding: 'utf8',
  queryParams: {},
  contentType: '',
  ip: '127.0.0.1',
  size: 0,
  receivedAt: Date.now(),
  detectedProvider: '',
  detectedEvent: '',
});

/** What the receiver does for one request: admit, then count once stored. */
function take(meter: UsageMeter, ep: EndpointSnapshot): boolean {
  if (meter.admit(ep)) return false;
  meter.captured(capture(ep.id), ep);
  return true;
}

const kinds = BACKENDS.includes('server') ? (['pglite', 'postgres'] as const) : (['pglite'] as const);

for (const kind of kinds) {
  describe(`usage meter [${kind}]`, () => {
    const opened: Opened[] = [];
    const open = async () => {
      const o = await openState(kind);
      opened.push(o);
      return o.state;
    };
    afterEach(() => setSystemTime());
    afterAll(async () => {
      for (const o of opened) {
        await o.state.close();
        await o.cleanup();
      }
    });
    const newUser = async (state: StateDb, id: string, plan = 'free') =>
      insertUser(state.db, { id, email: `${id}@example.com`, plan, createdAt: Date.now() });

    test('counts before a month ends go to that month; the new month starts from zero', async () => {
      const state = await open();
      await newUser(state, 'usr_roll');
      const ep = endpoint('usr_roll');
      const meter = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      setSystemTime(new Date('2031-01-31T23:59:59.000Z'));
      for (let i = 0; i < 4; i++) expect(take(meter, ep)).toBe(true);
      setSystemTime(new Date('2031-02-01T00:00:00.500Z'));
      // Four used in January do not count against February.
      for (let i = 0; i < 5; i++) expect(take(meter, ep)).toBe(true);
      expect(take(meter, ep)).toBe(false);
      await meter.sync();
      expect(await usedInPeriod(state.db, 'usr_roll', Date.UTC(2031, 0, 1))).toBe(4);
      expect(await usedInPeriod(state.db, 'usr_roll', Date.UTC(2031, 1, 1))).toBe(5);
      const refused = meter.admit(ep);
      expect(refused?.code).toBe('quota_exceeded');
      // Retry-After: until March 1st, 00:00 UTC.
      expect(refused?.headers['retry-after']).toBe(String(Math.ceil((Date.UTC(2031, 2, 1) - Date.now()) / 1000)));
    });

    test('two meters on one store see each other after a flush and a read', async () => {
      const state = await open();
      await newUser(state, 'usr_two');
      const ep = endpoint('usr_two');
      const a = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      const b = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      for (let i = 0; i < 3; i++) expect(take(a, ep)).toBe(true);
      expect(take(b, ep)).toBe(true);
      await a.sync();
      await b.sync();
      // b now knows 3 + 1 = 4.
      expect(take(b, ep)).toBe(true);
      expect(take(b, ep)).toBe(false);
      // a learns of b's at b's flush plus a's read.
      expect(take(a, ep)).toBe(true);
      await b.sync();
      await a.sync();
      expect(take(a, ep)).toBe(false);
      // The bounded overshoot: one over the quota, admitted by a before it read b's count.
      expect(await usedInPeriod(state.db, 'usr_two', Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1))).toBe(6);
    });

    test('a plan read from the store replaces the free plan a new account is first judged by', async () => {
      const state = await open();
      await newUser(state, 'usr_pro', 'pro');
      const ep = endpoint('usr_pro');
      const meter = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      for (let i = 0; i < 5; i++) expect(take(meter, ep)).toBe(true);
      expect(take(meter, ep)).toBe(false);
      await meter.sync();
      expect(take(meter, ep)).toBe(true);
    });

    test('a failing store keeps the counts for the next pass; a deleted account blocks nobody', async () => {
      const state = await open();
      await newUser(state, 'usr_keep');
      await newUser(state, 'usr_gone');
      const keep = endpoint('usr_keep');
      const gone = endpoint('usr_gone');
      const meter = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      take(meter, keep);
      take(meter, keep);
      take(meter, gone);
      await state.db.execute(sql`ALTER TABLE usage_counters RENAME TO usage_counters_away`);
      await meter.sync().catch(() => {});
      await state.db.execute(sql`ALTER TABLE usage_counters_away RENAME TO usage_counters`);
      await deleteUser(state.db, 'usr_gone');
      take(meter, keep);
      await meter.sync();
      const period = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1);
      expect(await usedInPeriod(state.db, 'usr_keep', period)).toBe(3);
      expect(await usedInPeriod(state.db, 'usr_gone', period)).toBe(0);
    });

    test('sandbox endpoints (no account) are neither counted nor refused', async () => {
      const state = await open();
      const ep = endpoint(null);
      const meter = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      for (let i = 0; i < 20; i++) expect(take(meter, ep)).toBe(true);
      await meter.sync();
      const rows = await state.db.execute(sql`SELECT count(*)::int AS n FROM usage_counters`);
      expect(JSON.stringify(rows)).toContain('"n":0');
    });

    test('stop writes what the timer had not', async () => {
      const state = await open();
      await newUser(state, 'usr_stop');
      const ep = endpoint('usr_stop');
      const meter = new UsageMeter({ store: usageStoreOn(state.db), plans: PLANS, flushMs: 60_000 });
      meter.start();
      take(meter, ep);
      take(meter, ep);
      await meter.stop();
      const period = Date.UTC(new Date().getUTCFullYear(), new Date().getUTCMonth(), 1);
      expect(await usedInPeriod(state.db, 'usr_stop', period)).toBe(2);
    });
  });
}
