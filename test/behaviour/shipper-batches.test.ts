/**
 * The shipper stores a batch as soon as it holds SHIP_BATCH_ROWS captures, whatever the age timer
 * (SHIP_MAX_AGE_MS) says: here the age is a minute, so only the size can make captures listable.
 */
import { expect, test } from 'bun:test';
import type { Health } from '../../src/health';
import { call, eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends(
  'shipper batches by size',
  (h) => {
    test('a full batch is stored without waiting for the age timer', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'batches' } })).body;
      // One capture first, so the age timer is already running when the rest arrive.
      expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'first' })).status).toBe(200);
      for (let i = 0; i < 24; i++) expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `n=${i}` })).status).toBe(200);
      // 25 captures at 10 per batch: two full batches (20) are stored long before the minute is up.
      const listed = await eventually(async () => {
        const r = await call<unknown[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key });
        return r.body.length >= 20 ? r.body.length : null;
      }, 10_000);
      expect(listed).toBeGreaterThanOrEqual(20);
      expect(listed).toBeLessThan(25);
    });

    test('/healthz counts the capture log writes, the captures they carried, and how long the writes took', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'log stats' } })).body;
      const before = (await call<Health>(h.url, 'GET', '/healthz')).body.captureLog;
      if (!before) throw new Error('a receiver node reports captureLog');
      const statuses = await Promise.all(Array.from({ length: 40 }, (_, i) => fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `c=${i}` }).then((r) => r.status)));
      expect(statuses.every((s) => s === 200)).toBe(true);
      const after = (await call<Health>(h.url, 'GET', '/healthz')).body.captureLog;
      if (!after) throw new Error('a receiver node reports captureLog');
      expect(after.frames - before.frames).toBe(40);
      const writes = after.groups - before.groups;
      expect(writes).toBeGreaterThanOrEqual(1);
      expect(writes).toBeLessThanOrEqual(40);
      // The recent writes' flush times: real durations, in order.
      const ms = after.writeMs;
      if (!ms) throw new Error('writes were timed');
      expect(ms.writes).toBeGreaterThanOrEqual(writes);
      expect(ms.max).toBeGreaterThan(0);
      expect(ms.p50).toBeGreaterThanOrEqual(0);
      expect(ms.p50).toBeLessThanOrEqual(ms.p99);
      expect(ms.p99).toBeLessThanOrEqual(ms.max);
      expect(ms.max).toBeLessThan(10_000);
    });
  },
  { SHIP_BATCH_ROWS: '10', SHIP_MAX_AGE_MS: '60000' },
);

describeBackends(
  'shipper batches by bytes',
  (h) => {
    test('a batch holding SHIP_BATCH_BYTES of records is stored without waiting for the age timer or the row count', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'batch bytes' } })).body;
      // Each record is well over 1 KiB (its body alone), so a batch fills at a few captures.
      const body = 'x'.repeat(1500);
      for (let i = 0; i < 12; i++) expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: `${i}:${body}` })).status).toBe(200);
      const listed = await eventually(async () => {
        const r = await call<unknown[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests?limit=100`, { token: a.key });
        return r.body.length >= 8 ? r.body.length : null;
      }, 10_000);
      expect(listed).toBeGreaterThanOrEqual(8);
    });
  },
  { SHIP_BATCH_ROWS: '100000', SHIP_BATCH_BYTES: '4096', SHIP_MAX_AGE_MS: '60000' },
);
