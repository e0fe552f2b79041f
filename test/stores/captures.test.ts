import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import fc from 'fast-check';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { captureId, randomId } from '../../src/ids';
import type { Capture } from '../../src/model/capture';
import { queryString } from '../../src/model/render';
import { createClickHouseCaptureStore } from '../../src/stores/captures/clickhouse';
import { JsonRecordBatch } from '../../src/stores/captures/json-records';
import { quoteIdentifier } from '../../src/stores/captures/sql-quote';
import { createSqliteCaptureStore } from '../../src/stores/captures/sqlite';
import { BACKENDS } from '../support/backends';
import type { CaptureStore, EndpointScope, PageCursor } from '../../src/stores/captures/types';

/** A store under test and how to remove everything it left behind. */
export interface StoreHarness {
  store: CaptureStore;
  teardown(): Promise<void>;
}

// bunfig's [test] timeout is not applied by this Bun (tests stopped at the 5 s default), and a
// ClickHouse purge is a background mutation the suite waits for.
setDefaultTimeout(60_000);

// A fixed day keeps ClickHouse rows in a handful of daily partitions.
const T0 = Date.UTC(2024, 2, 10, 12, 0, 0);

let pathSeq = 0;

function capture(endpointId: string, receivedAt: number, fields: Partial<Capture> = {}): Capture {
  const body = fields.body ?? `{"n":${pathSeq}}`;
  return {
    id: captureId(receivedAt),
    endpointId,
    method: 'POST',
    path: `/p/${pathSeq++}`,
    headers: { 'content-type': 'application/json', 'user-agent': 'conformance' },
    body,
    bodyEncoding: 'utf8',
    queryParams: {},
    contentType: 'application/json',
    ip: '203.0.113.7',
    size: Buffer.byteLength(body),
    receivedAt,
    detectedProvider: '',
    detectedEvent: '',
    ...fields,
    // The receiver keeps the query as sent; a fixture's is its parameters written out.
    query: fields.query ?? queryString(fields.queryParams ?? {}),
  };
}

const newEndpoint = () => randomId('ep');
const all = (endpointId: string, since = 0): EndpointScope => ({ endpointId, since });
const cursorOf = (c: Capture): PageCursor => ({ receivedAt: c.receivedAt, id: c.id });
const ids = (captures: readonly Capture[]) => captures.map((c) => c.id);

function compareDesc(a: Capture, b: Capture): number {
  if (a.receivedAt !== b.receivedAt) return b.receivedAt - a.receivedAt;
  return a.id < b.id ? 1 : a.id > b.id ? -1 : 0;
}
const newestFirst = (captures: readonly Capture[]) => [...captures].sort(compareDesc);
const oldestFirst = (captures: readonly Capture[]) => newestFirst(captures).reverse();

function shuffled<T>(items: readonly T[]): T[] {
  const out = [...items];
  for (let i = out.length - 1; i > 0; i--) {
    const j = Math.floor(Math.random() * (i + 1));
    const a = out[i];
    const b = out[j];
    if (a === undefined || b === undefined) continue;
    out[i] = b;
    out[j] = a;
  }
  return out;
}

/** Retries an assertion until it passes or the time is up (for asynchronous purges). */
async function eventually(check: () => Promise<void>, timeoutMs = 30_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      await check();
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await Bun.sleep(200);
    }
  }
}

/**
 * The one suite every CaptureStore implementation passes. `flush` runs after each write, for a
 * store that makes writes visible later.
 */
export function runCaptureStoreConformance(
  name: string,
  factory: () => Promise<StoreHarness>,
  flush: (store: CaptureStore) => Promise<void> = async () => {},
): void {
  describe(`CaptureStore conformance: ${name}`, () => {
    let harness: StoreHarness | undefined;

    function store(): CaptureStore {
      if (!harness) throw new Error('store not set up');
      return harness.store;
    }

    async function insert(batch: Capture[], opts?: { dedupe?: boolean }): Promise<void> {
      await store().insert(batch, opts);
      await flush(store());
    }

    /** Every capture in newest-first order, read through list pages of `pageSize`. */
    async function listAll(scope: EndpointScope, pageSize: number): Promise<Capture[]> {
      const out: Capture[] = [];
      let before: PageCursor | undefined;
      for (let pages = 0; pages < 10_000; pages++) {
        const page = await store().list(scope, pageSize, before);
        out.push(...page);
        const last = page.at(-1);
        if (page.length < pageSize || !last) return out;
        before = cursorOf(last);
      }
      throw new Error('listAll: no end');
    }

    beforeAll(async () => {
      harness = await factory();
      await store().migrate();
      // migrate() runs on every start, so it must be harmless to repeat.
      await store().migrate();
    });

    afterAll(async () => {
      await harness?.teardown();
    });

    test('kind names the implementation', () => {
      expect(['clickhouse', 'sqlite']).toContain(store().kind);
    });

    test('insert then list: newest first, limited, every field round-trips', async () => {
      const ep = newEndpoint();
      const rows = [0, 1, 2, 3, 4].map((i) =>
        capture(ep, T0 + i * 1000, {
          method: i % 2 ? 'GET' : 'POST',
          queryParams: { page: String(i), tag: ['a', 'b'] },
          detectedProvider: 'stripe',
          detectedEvent: 'invoice.paid',
        }),
      );
      const signed: Capture = {
        ...capture(ep, T0 + 5000),
        signatureVerified: false,
        signatureError: null,
        signingProvider: 'github',
      };
      const failed: Capture = { ...capture(ep, T0 + 6000), signatureVerified: false, signatureError: 'bad mac' };
      const all6 = [...rows, signed, failed];
      await insert(shuffled(all6));

      expect(await store().list(all(ep), 100)).toEqual(newestFirst(all6));
      expect(ids(await store().list(all(ep), 3))).toEqual(ids(newestFirst(all6).slice(0, 3)));
      expect(await store().list(all(ep), 0)).toEqual([]);
      expect(await store().list(all(newEndpoint()), 10)).toEqual([]);
    });

    test('an empty batch is a no-op', async () => {
      await insert([]);
      await insert([], { dedupe: true });
    });

    test('cursor paging visits every row once, including rows with equal receivedAt', async () => {
      const ep = newEndpoint();
      const rows: Capture[] = [];
      for (let t = 0; t < 40; t++) for (let k = 0; k < 3; k++) rows.push(capture(ep, T0 + t * 10));
      // Another endpoint interleaved in time must not leak into the pages.
      await insert(shuffled([...rows, ...rows.slice(0, 20).map((r) => capture(newEndpoint(), r.receivedAt))]));

      const expected = ids(newestFirst(rows));
      for (const pageSize of [1, 7, 50, 200]) {
        expect(ids(await listAll(all(ep), pageSize))).toEqual(expected);
      }
      const middle = newestFirst(rows)[59];
      if (!middle) throw new Error('fixture');
      expect(ids(await store().list(all(ep), 5, cursorOf(middle)))).toEqual(expected.slice(60, 65));
    });

    test('since hides cleared captures (exclusive) in list, search, count and listAfter', async () => {
      const ep = newEndpoint();
      const rows = [0, 1, 2, 3, 4, 5].map((i) => capture(ep, T0 + i * 1000));
      await insert(rows);
      const since = T0 + 2000;
      const visible = newestFirst(rows.filter((r) => r.receivedAt > since));
      expect(visible.length).toBe(3);

      const scope = all(ep, since);
      expect(ids(await store().list(scope, 100))).toEqual(ids(visible));
      expect(ids(await store().search({ scopes: [scope], limit: 100, offset: 0, order: 'desc' }))).toEqual(ids(visible));
      expect(await store().count({ scopes: [scope] })).toBe(3);
      const first = rows[0];
      if (!first) throw new Error('fixture');
      expect(ids(await store().listAfter(scope, cursorOf(first), 100))).toEqual(ids(oldestFirst(visible)));
    });

    test('activity: per endpoint, the count list pages through and the newest receivedAt, each with its own since', async () => {
      const busy = newEndpoint();
      const cleared = newEndpoint();
      const partly = newEndpoint();
      const empty = newEndpoint();
      const stranger = newEndpoint();
      const busyRows = [0, 1, 2, 3, 4].map((i) => capture(busy, T0 + i * 1000));
      // Two captures in the same millisecond: both count.
      busyRows.push(capture(busy, T0 + 4000));
      const clearedRows = [0, 1].map((i) => capture(cleared, T0 + i * 1000));
      const partlyRows = [0, 1, 2, 3].map((i) => capture(partly, T0 + i * 1000));
      await insert([...busyRows, ...clearedRows, ...partlyRows, capture(stranger, T0 + 9000)]);
      const scopes = [all(busy), all(cleared, T0 + 1000), all(partly, T0 + 1000), all(empty)];
      const got = (await store().activity(scopes)).sort((a, b) => a.endpointId.localeCompare(b.endpointId));
      const want = [
        { endpointId: busy, count: 6, lastReceivedAt: T0 + 4000 },
        { endpointId: partly, count: 2, lastReceivedAt: T0 + 3000 },
      ].sort((a, b) => a.endpointId.localeCompare(b.endpointId));
      expect(got).toEqual(want);
      // The same as count and list, endpoint by endpoint.
      for (const scope of scopes) {
        const n = got.find((a) => a.endpointId === scope.endpointId)?.count ?? 0;
        expect(n).toBe(await store().count({ scopes: [scope] }));
        expect(n).toBe((await listAll(scope, 100)).length);
      }
      expect(await store().activity([])).toEqual([]);
    });

    test('activity answers 1,000 endpoints in one call', async () => {
      const ep = newEndpoint();
      await insert([capture(ep, T0 + 500)]);
      const many = [...Array.from({ length: 999 }, () => all(newEndpoint())), all(ep)];
      expect(await store().activity(many)).toEqual([{ endpointId: ep, count: 1, lastReceivedAt: T0 + 500 }]);
    });

    test('get returns a capture only inside the given scopes and after since', async () => {
      const ep = newEndpoint();
      const other = newEndpoint();
      const row = capture(ep, T0 + 42_000, { body: 'get me' });
      await insert([row, capture(other, T0 + 42_000)]);

      expect(await store().get(row.id, [all(ep)])).toEqual(row);
      expect(await store().get(row.id, [all(other), all(ep)])).toEqual(row);
      expect(await store().get(row.id, [all(other)])).toBeNull();
      expect(await store().get(row.id, [])).toBeNull();
      expect(await store().get(row.id, [all(ep, row.receivedAt)])).toBeNull();
      expect(await store().get(row.id, [all(ep, row.receivedAt - 1)])).toEqual(row);
      expect(await store().get(captureId(T0 + 42_000), [all(ep)])).toBeNull();
      expect(await store().get('req_not-a-ulid', [all(ep)])).toBeNull();
      expect(await store().get("req_' OR 1=1 --", [all(ep)])).toBeNull();
    });

    test('dedupe insert skips stored ids and keeps new ones', async () => {
      const ep = newEndpoint();
      const first = [0, 1, 2, 3].map((i) => capture(ep, T0 + i * 500));
      await insert(first);
      const fresh = [4, 5].map((i) => capture(ep, T0 + i * 500));
      const replay = [...first, ...fresh, ...fresh];
      await insert(shuffled(replay), { dedupe: true });
      await insert(shuffled(replay), { dedupe: true });

      expect(ids(await store().list(all(ep), 100))).toEqual(ids(newestFirst([...first, ...fresh])));
      expect(await store().count({ scopes: [all(ep)] })).toBe(6);
    });

    test('a batch of 75 (the SQLite store binds 32 rows per statement, then one by one) reads back whole, a duplicate inside one statement stored once', async () => {
      const ep = newEndpoint();
      const rows = Array.from({ length: 74 }, (_, i) => ({ ...capture(ep, T0 + i * 10), body: `row ${i} ${'é'.repeat(i)}`, size: i }));
      const batch = [...rows.slice(0, 5), rows[2] as Capture, ...rows.slice(5)];
      await insert(batch, { dedupe: true });
      const stored = await listAll(all(ep), 1000);
      expect(stored).toEqual(newestFirst(rows));
      expect(await store().count({ scopes: [all(ep)] })).toBe(74);
    });

    test('dedupe works for a batch larger than one lookup query', async () => {
      const ep = newEndpoint();
      const rows = Array.from({ length: 2500 }, (_, i) => capture(ep, T0 + i));
      await insert(rows.slice(0, 1500));
      await insert(rows, { dedupe: true });
      expect(await store().count({ scopes: [all(ep)] })).toBe(2500);
      expect(new Set(ids(await listAll(all(ep), 1000))).size).toBe(2500);
    });

    describe('search', () => {
      const ep = newEndpoint();
      const ep2 = newEndpoint();
      const rows: Capture[] = [
        capture(ep, T0 + 1000, { method: 'GET', body: '' }),
        capture(ep, T0 + 2000, { body: '{"greeting":"Hello World"}' }),
        capture(ep, T0 + 3000, { method: 'PUT', path: '/Orders/Paid' }),
        capture(ep, T0 + 4000, { headers: { 'x-custom': 'SuperSecretValue', 'x-header-name-only': '1' } }),
        capture(ep, T0 + 5000, { method: 'GET', queryParams: { page: '2', tag: ['red', 'Blue'] } }),
        capture(ep, T0 + 6000, { body: `it's 100% a\\b_c "quoted" {x:String}` }),
        capture(ep, T0 + 7000, { body: 'abc plain' }),
        capture(ep, T0 + 8000, { body: 'Grüße ÜBER alles, ПРИВЕТ мир' }),
        capture(ep2, T0 + 1500, { method: 'GET', body: 'hello from ep2' }),
        capture(ep2, T0 + 9000, { body: 'HELLO again' }),
      ];
      const scopes = [all(ep), all(ep2)];
      const byIndex = (...indexes: number[]) => indexes.flatMap((i) => rows[i] ?? []);

      async function matches(filter: { method?: string; q?: string; from?: number; to?: number }) {
        const found = await store().search({ scopes, ...filter, limit: 1000, offset: 0, order: 'desc' });
        expect(await store().count({ scopes, ...filter })).toBe(found.length);
        return found;
      }

      beforeAll(async () => {
        await insert(rows);
      });

      test('no filter: every capture in scope, newest first', async () => {
        expect(ids(await matches({}))).toEqual(ids(newestFirst(rows)));
      });

      test('by method', async () => {
        expect(ids(await matches({ method: 'GET' }))).toEqual(ids(newestFirst(byIndex(0, 4, 8))));
        expect(ids(await matches({ method: 'PUT' }))).toEqual(ids(byIndex(2)));
        expect(await matches({ method: 'PATCH' })).toEqual([]);
      });

      test('q is a case-insensitive substring of the body', async () => {
        expect(ids(await matches({ q: 'hello WORLD' }))).toEqual(ids(byIndex(1)));
        expect(ids(await matches({ q: 'hello' }))).toEqual(ids(newestFirst(byIndex(1, 8, 9))));
      });

      test('q matches the path, header values and the query string', async () => {
        expect(ids(await matches({ q: 'orders/PAID' }))).toEqual(ids(byIndex(2)));
        expect(ids(await matches({ q: 'supersecret' }))).toEqual(ids(byIndex(3)));
        expect(ids(await matches({ q: 'page=2' }))).toEqual(ids(byIndex(4)));
        expect(ids(await matches({ q: 'tag=blue' }))).toEqual(ids(byIndex(4)));
        // A whole header name matches too (below); part of a name does not.
        expect(ids(await matches({ q: 'x-header-name-only' }))).toEqual(ids(byIndex(3)));
        expect(await matches({ q: 'header-name' })).toEqual([]);
      });

      test('q matches a whole header name in any case, not part of one', async () => {
        expect(ids(await matches({ q: 'X-Custom' }))).toEqual(ids(byIndex(3)));
        expect(ids(await matches({ q: 'X-HEADER-NAME-ONLY' }))).toEqual(ids(byIndex(3)));
        // Every fixture but index 3 (its own headers) carries these two.
        const withDefaults = rows.filter((_, i) => i !== 3);
        expect(ids(await matches({ q: 'Content-Type' }))).toEqual(ids(newestFirst(withDefaults)));
        expect(ids(await matches({ q: 'user-agent' }))).toEqual(ids(newestFirst(withDefaults)));
        // Parts of names ("content" would otherwise match every capture), or a name with more around it.
        for (const q of ['custom', 'x-cust', 'content', 'type', 'user', 'agent', 'x-custom:', ' x-custom', '"x-custom"']) {
          expect(await matches({ q })).toEqual([]);
        }
      });

      test('q folds case beyond ASCII', async () => {
        expect(ids(await matches({ q: 'grüße über' }))).toEqual(ids(byIndex(7)));
        expect(ids(await matches({ q: 'привет МИР' }))).toEqual(ids(byIndex(7)));
      });

      test('hostile q is matched literally', async () => {
        const hostile = byIndex(5);
        for (const q of ["it's", '100%', 'a\\b_c', '"quoted"', '{x:String}', "'s 100% a\\b"]) {
          expect(ids(await matches({ q }))).toEqual(ids(hostile));
        }
        // LIKE wildcards would match every row; here they are plain characters.
        expect(ids(await matches({ q: '%' }))).toEqual(ids(hostile));
        expect(ids(await matches({ q: '_c' }))).toEqual(ids(hostile));
        expect(await matches({ q: "'; DROP TABLE captures; --" })).toEqual([]);
        expect(await matches({ q: '\\' + "'" })).toEqual([]);
        expect(await matches({ q: 'a\\\\b' })).toEqual([]);
        expect(await store().count({ scopes })).toBe(rows.length);
      });

      test('an empty q filters nothing', async () => {
        expect((await matches({ q: '' })).length).toBe(rows.length);
      });

      test('from and to are inclusive bounds', async () => {
        const inRange = rows.filter((r) => r.receivedAt >= T0 + 2000 && r.receivedAt <= T0 + 5000);
        expect(ids(await matches({ from: T0 + 2000, to: T0 + 5000 }))).toEqual(ids(newestFirst(inRange)));
        expect((await matches({ from: T0 + 9000 })).length).toBe(1);
        expect((await matches({ to: T0 + 1000 })).length).toBe(1);
        expect(await matches({ from: T0 + 5001, to: T0 + 5999 })).toEqual([]);
      });

      test('filters combine', async () => {
        expect(ids(await matches({ method: 'GET', q: 'hello', from: T0 }))).toEqual(ids(byIndex(8)));
      });

      test('order asc/desc with limit and offset', async () => {
        const asc = oldestFirst(rows);
        const page = (order: 'asc' | 'desc', limit: number, offset: number) =>
          store().search({ scopes, limit, offset, order });
        expect(ids(await page('asc', 3, 0))).toEqual(ids(asc.slice(0, 3)));
        expect(ids(await page('asc', 3, 2))).toEqual(ids(asc.slice(2, 5)));
        expect(ids(await page('desc', 4, 3))).toEqual(ids(newestFirst(rows).slice(3, 7)));
        expect(await page('desc', 5, rows.length)).toEqual([]);
        expect(await page('desc', 0, 0)).toEqual([]);
      });

      test('scopes limit the search, each with its own since', async () => {
        const only2 = await store().search({ scopes: [all(ep2)], limit: 100, offset: 0, order: 'desc' });
        expect(ids(only2)).toEqual(ids(newestFirst(byIndex(8, 9))));
        const mixed = [all(ep, T0 + 6000), all(ep2, T0 + 1500)];
        const found = await store().search({ scopes: mixed, limit: 100, offset: 0, order: 'asc' });
        expect(ids(found)).toEqual(ids(oldestFirst(byIndex(6, 7, 9))));
        expect(await store().count({ scopes: mixed })).toBe(3);
      });

      test('a caller with 20,000 endpoints can still search and count', async () => {
        const many = [...scopes, ...Array.from({ length: 20_000 }, () => all(newEndpoint()))];
        expect((await store().search({ scopes: many, q: 'hello', limit: 10, offset: 0, order: 'desc' })).length).toBe(3);
        expect(await store().count({ scopes: many })).toBe(rows.length);
      });

      test('no scopes match nothing', async () => {
        expect(await store().search({ scopes: [], limit: 10, offset: 0, order: 'desc' })).toEqual([]);
        expect(await store().count({ scopes: [] })).toBe(0);
      });
    });

    test('listAfter: oldest first, strictly after the cursor, limited', async () => {
      const ep = newEndpoint();
      const rows: Capture[] = [];
      for (let t = 0; t < 5; t++) for (let k = 0; k < 2; k++) rows.push(capture(ep, T0 + t * 100));
      await insert(shuffled(rows));
      const asc = oldestFirst(rows);
      const cut = asc[2];
      if (!cut) throw new Error('fixture');

      expect(ids(await store().listAfter(all(ep), cursorOf(cut), 100))).toEqual(ids(asc.slice(3)));
      expect(ids(await store().listAfter(all(ep), cursorOf(cut), 4))).toEqual(ids(asc.slice(3, 7)));
      expect(ids(await store().listAfter(all(ep), { receivedAt: 0, id: '' }, 100))).toEqual(ids(asc));
      const last = asc.at(-1);
      if (!last) throw new Error('fixture');
      expect(await store().listAfter(all(ep), cursorOf(last), 100)).toEqual([]);
    });

    test('purge removes every capture of the given endpoints only', async () => {
      const gone = [newEndpoint(), newEndpoint()];
      const kept = newEndpoint();
      const rows = [...gone, kept].flatMap((ep) => [0, 1, 2].map((i) => capture(ep, T0 + i)));
      await insert(rows);
      await store().purge(gone);
      await store().purge([]);

      await eventually(async () => {
        expect(await store().count({ scopes: gone.map((ep) => all(ep)) })).toBe(0);
      });
      for (const ep of gone) expect(await store().list(all(ep), 10)).toEqual([]);
      expect((await store().list(all(kept), 10)).length).toBe(3);
      const first = rows[0];
      if (!first) throw new Error('fixture');
      expect(await store().get(first.id, [all(first.endpointId)])).toBeNull();
    });

    test('expire removes captures before each rule\'s cutoff, never kept ones, and nothing of other endpoints', async () => {
      const [short, long, other] = [newEndpoint(), newEndpoint(), newEndpoint()];
      const rows = [short, long, other].flatMap((ep) => [0, 1, 2, 3, 4].map((i) => capture(ep, T0 + i)));
      await insert(rows);
      const pinned = rows.find((r) => r.endpointId === short && r.receivedAt === T0 + 1);
      if (!pinned) throw new Error('fixture');
      const input = {
        // Cutoffs inside T0's week, so no partition is whole-week expired (the suite shares it);
        // othersBefore is before every capture of the suite, so `other` (no rule) keeps all of its.
        othersBefore: T0,
        rules: [
          { before: T0 + 3, endpointIds: [short] },
          { before: T0 + 1, endpointIds: [long] },
        ],
        keptOf: async (ids: string[]) => (ids.includes(short) ? [{ id: pinned.id, endpointId: short, receivedAt: pinned.receivedAt }] : []),
        keptBetween: async () => [{ id: pinned.id, endpointId: short, receivedAt: pinned.receivedAt }],
        batchRows: 1,
      };
      // A mutation of another test may still run (ClickHouse then issues none): sweep until done.
      await eventually(async () => {
        await store().expire(input);
        await flush(store());
        expect((await store().list(all(short), 10)).map((c) => c.receivedAt).sort()).toEqual([T0 + 1, T0 + 3, T0 + 4]);
        expect((await store().list(all(long), 10)).map((c) => c.receivedAt).sort()).toEqual([T0 + 1, T0 + 2, T0 + 3, T0 + 4]);
      });
      expect((await store().list(all(other), 10)).length).toBe(5);
      const again = await store().expire(input);
      expect(again.partitionsDropped).toBe(0);
      expect(again.rowsDeleted).toBe(0);
    });

    test('expire: endpoints no rule names go from othersBefore but kept captures, a rule names endpoints with earlier or later cutoffs', async () => {
      // othersBefore applies to every endpoint no rule names, so this runs on a store of its own.
      const own = await factory();
      try {
        const s = own.store;
        await s.migrate();
        const [shorter, pinnedOne, deleted, longest] = [newEndpoint(), newEndpoint(), newEndpoint(), newEndpoint()];
        // Weeks apart: with ClickHouse the oldest week is dropped whole, the rest goes by mutation.
        const WEEK = 7 * 86_400_000;
        const times = [T0 - 2 * WEEK, T0, T0 + 1, T0 + 2, T0 + 3];
        const rows = [shorter, pinnedOne, deleted, longest].flatMap((ep) => times.map((t) => capture(ep, t)));
        await s.insert(rows);
        await flush(s);
        const pinned = rows.find((r) => r.endpointId === pinnedOne && r.receivedAt === T0);
        if (!pinned) throw new Error('fixture');
        const keep = { id: pinned.id, endpointId: pinnedOne, receivedAt: pinned.receivedAt };
        const input = {
          othersBefore: T0 + 1,
          rules: [
            { before: T0 + 3, endpointIds: [shorter] },
            { before: T0 - WEEK, endpointIds: [longest] },
          ],
          keptOf: async (ids: string[]) => (ids.includes(pinnedOne) ? [keep] : []),
          keptBetween: async (from: number, to: number) => (from <= keep.receivedAt && keep.receivedAt < to ? [keep] : []),
          batchRows: 2,
        };
        const timesOf = async (ep: string) => (await s.list(all(ep), 10)).map((c) => c.receivedAt).sort((x, y) => x - y);
        await eventually(async () => {
          await s.expire(input);
          await flush(s);
          expect(await timesOf(shorter)).toEqual([T0 + 3]);
          expect(await timesOf(pinnedOne)).toEqual([T0, T0 + 1, T0 + 2, T0 + 3]);
          expect(await timesOf(deleted)).toEqual([T0 + 1, T0 + 2, T0 + 3]);
          // A longer retention than the others': only what is older than its own cutoff goes.
          expect(await timesOf(longest)).toEqual([T0, T0 + 1, T0 + 2, T0 + 3]);
        });
        // Nothing left to remove: a second sweep deletes nothing and issues no mutation.
        const again = await s.expire(input);
        expect(again.rowsDeleted + again.mutations + again.partitionsDropped).toBe(0);
      } finally {
        await own.teardown();
      }
    });

    test('search and count with ids: only those captures; an empty list matches nothing', async () => {
      const ep = newEndpoint();
      const rows = [0, 1, 2, 3].map((i) => capture(ep, T0 + i));
      await insert(rows);
      const chosen = [rows[1], rows[3]].map((r) => r?.id ?? '');
      const found = await store().search({ scopes: [all(ep)], ids: chosen, limit: 10, offset: 0, order: 'asc' });
      expect(ids(found)).toEqual(chosen);
      expect(await store().count({ scopes: [all(ep)], ids: chosen })).toBe(2);
      expect(await store().search({ scopes: [all(ep)], ids: [], limit: 10, offset: 0, order: 'asc' })).toEqual([]);
      expect(await store().count({ scopes: [all(ep)], ids: [] })).toBe(0);
    });

    test('a non-UTF-8 body (base64) round-trips byte for byte', async () => {
      const ep = newEndpoint();
      const bytes = Buffer.from([0xff, 0xfe, 0x00, 0x80, 0xc3, 0x28, 0x41]);
      const row = capture(ep, T0 + 77, {
        body: bytes.toString('base64'),
        bodyEncoding: 'base64',
        size: bytes.length,
        contentType: 'application/octet-stream',
      });
      await insert([row]);
      const got = await store().get(row.id, [all(ep)]);
      expect(got).toEqual(row);
      expect(Buffer.from(got?.body ?? '', 'base64').equals(bytes)).toBe(true);
    });

    test('prototype-named keys round-trip, and stored maps of any shape still read', async () => {
      const ep = newEndpoint();
      // JSON.parse makes "__proto__" an own key, as a parsed capture-log record has it.
      const hostile = capture(ep, T0 + 90, {
        headers: JSON.parse('{"__proto__":"h","constructor":"c","tostring":"t"}'),
        queryParams: JSON.parse('{"toString":"x","__proto__":["a","b"],"hasOwnProperty":"y"}'),
      });
      // Shapes older code stored or a store may hand back: [null, v] for inherited names, numbers, nulls.
      const legacy = capture(ep, T0 + 91, {
        headers: JSON.parse('{"a":"b","n":3,"gone":null,"list":["x",1,null]}'),
        queryParams: JSON.parse('{"toString":[null,"x"],"constructor":[null,"z","w"],"n":5,"gone":null,"obj":{"k":"v"}}'),
      });
      await insert([hostile, legacy]);
      const [gotLegacy, gotHostile] = await store().list(all(ep), 10);
      expect(JSON.stringify(gotHostile?.headers)).toBe(JSON.stringify(hostile.headers));
      expect(JSON.stringify(gotHostile?.queryParams)).toBe(JSON.stringify(hostile.queryParams));
      expect(JSON.stringify(gotLegacy?.headers)).toBe('{"a":"b","n":"3","list":"x, 1"}');
      expect(JSON.stringify(gotLegacy?.queryParams)).toBe('{"toString":"x","constructor":["z","w"],"n":"5"}');
      expect(ids(await store().listAfter(all(ep), { receivedAt: T0, id: '' }, 10))).toEqual([hostile.id, legacy.id]);
      expect(await store().count({ scopes: [all(ep)], q: 'x' })).toBe(2);
    });

    test('unicode and control characters round-trip everywhere', async () => {
      const ep = newEndpoint();
      const text = 'ünïcödé 🎉 中文 עברית e\u0301 \u0000 \u0001 \t\r\n "q" \\ \' /';
      const row = capture(ep, T0 + 88, {
        path: '/ünï/🎉/a b',
        headers: { 'x-unicode': text, 'content-type': 'text/plain; charset=utf-8' },
        queryParams: { 'ключ': 'значение', emoji: ['🎉', '✓'] },
        body: text,
        size: Buffer.byteLength(text),
        ip: '2001:db8::1',
        detectedEvent: 'événement',
      });
      await insert([row]);
      expect(await store().get(row.id, [all(ep)])).toEqual(row);
      expect(await store().list(all(ep), 1)).toEqual([row]);
      const found = await store().search({ scopes: [all(ep)], q: '🎉 中文', limit: 10, offset: 0, order: 'desc' });
      expect(ids(found)).toEqual([row.id]);
    });

    test('any text round-trips byte for byte in every text field (property-based)', async () => {
      // ClickHouse takes inserts as TabSeparated: the escapes it decodes (\\, \t, \n, \r, \0,
      // \x41, \N, \') must come only from the encoder, never from the data.
      const tricky = fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\\N', '\\x41', "\\'", "'", '"', '\\t', '\u2028', '🎉', 'é');
      const text = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), tricky), { maxLength: 12 }).map((parts) => parts.join(''));
      const ep = newEndpoint();
      const rows = fc.sample(fc.tuple(text, text, text, text), { numRuns: 60, seed: 20261124 }).map(([body, path, header, query], i) =>
        capture(ep, T0 + 200 + i, {
          path: `/${path}`,
          headers: { 'x-text': header, 'content-type': 'text/plain' },
          queryParams: { [query || 'q']: [query, body] },
          body,
          size: Buffer.byteLength(body),
          detectedEvent: header,
        }),
      );
      await insert(rows);
      for (const row of rows) expect(await store().get(row.id, [all(ep)])).toEqual(row);
    });

    test('records inserted as their JSON text (the shipper\'s path) read back as inserted, and are found by search (property-based)', async () => {
      const tricky = fc.constantFrom('\\', '\t', '\n', '\r', '\0', '\\N', '\\x41', '"', '\u2028', '🎉', 'é', 'İ', 'ΑΣ', 'Ab');
      const text = fc.array(fc.oneof(fc.string({ unit: 'binary', maxLength: 12 }), fc.string({ maxLength: 12 }), tricky), { maxLength: 8 }).map((parts) => parts.join(''));
      const ep = newEndpoint();
      const rows = fc.sample(fc.tuple(text, text, text, text, fc.boolean()), { numRuns: 60, seed: 20261125 }).map(([body, path, header, query, signed], i) => {
        const row = capture(ep, T0 + 700 + i, {
          path: `/${path}`,
          headers: { 'x-text': header, 'content-type': 'text/plain' },
          queryParams: { [query || 'q']: [query, body], n: `${i}` },
          body,
          size: Buffer.byteLength(body),
          detectedEvent: header,
          ...(i % 3 === 0 ? {} : { responseStatus: 200 + i }),
        });
        if (signed) Object.assign(row, { signatureVerified: i % 2 === 0, signatureError: i % 2 === 0 ? null : header, signingProvider: 'stripe' });
        return row;
      });
      const plain = capture(ep, T0 + 699, { path: '/Orders/ABC', headers: { 'x-trace': 'Needle-7Q' }, queryParams: { Tag: ['X', 'y'] } });
      const batch = new JsonRecordBatch();
      for (const row of [plain, ...rows]) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      for (const row of [plain, ...rows]) expect(await store().get(row.id, [all(ep)])).toEqual(row);
      for (const q of ['orders/abc', 'tag=x&tag=y', 'needle-7q']) {
        expect(ids(await store().search({ scopes: [all(ep)], q, limit: 10, offset: 0, order: 'desc' }))).toEqual([plain.id]);
      }
    });

    test('records inserted again as JSON text with dedupe are not stored twice', async () => {
      const ep = newEndpoint();
      const rows = [capture(ep, T0 + 801), capture(ep, T0 + 802)];
      const batch = new JsonRecordBatch();
      for (const row of rows) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      await store().insertRecords(batch, { dedupe: true });
      await flush(store());
      expect(await listAll(all(ep), 10)).toEqual(newestFirst(rows));
    });

    test('the raw query round-trips exactly, through insert and the JSON-record (no-parse) path; a record without one reads back without one', async () => {
      const ep = newEndpoint();
      const raw = 'y=%20a&a=1&a=2&b&c=&d=%zz';
      const queryParams = { y: ' a', a: ['1', '2'], b: '', c: '', d: '%zz' };
      const inserted = capture(ep, T0 + 93, { queryParams, query: raw });
      const asRecord = capture(ep, T0 + 94, { queryParams, query: `${raw}&e=%E9;f=\\` });
      const none = capture(ep, T0 + 95, { query: '' });
      // Logged before the raw query was kept: no `query` in its JSON.
      const { query: _omitted, ...legacy } = capture(ep, T0 + 96, { queryParams: { x: 'a b' } });
      await insert([inserted]);
      const batch = new JsonRecordBatch();
      for (const row of [asRecord, none, legacy]) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      for (const c of [inserted, asRecord, none]) expect(await store().get(c.id, [all(ep)])).toEqual(c);
      const old = await store().get(legacy.id, [all(ep)]);
      expect(old).toEqual(legacy);
      expect(old && 'query' in old).toBe(false);
      expect(await listAll(all(ep), 10)).toEqual([legacy, none, asRecord, inserted]);
      const found = await store().search({ scopes: [all(ep)], q: '/p/', limit: 10, offset: 0, order: 'asc' });
      expect(found.map((c) => c.query)).toEqual([raw, `${raw}&e=%E9;f=\\`, '', undefined]);
    });

    test('q matches header names through insert and the JSON-record path: whole names, in any case', async () => {
      const ep = newEndpoint();
      const github = capture(ep, T0 + 61, { headers: { 'content-type': 'application/json', 'x-github-event': 'push', 'x-hub-signature-256': 'sha256=ab' } });
      const stripe = capture(ep, T0 + 62, { headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=cd' } });
      const other = capture(ep, T0 + 63, { headers: { 'x-hub-signature': 'sha1=ef', 'x-note': 'see Stripe-Signature' } });
      await insert([github]);
      const batch = new JsonRecordBatch();
      for (const row of [stripe, other]) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      const find = async (q: string) => {
        const found = await store().search({ scopes: [all(ep)], q, limit: 10, offset: 0, order: 'asc' });
        expect(await store().count({ scopes: [all(ep)], q })).toBe(found.length);
        return ids(found);
      };
      expect(await find('x-github-event')).toEqual([github.id]);
      expect(await find('X-GitHub-Event')).toEqual([github.id]);
      expect(await find('x-hub-signature-256')).toEqual([github.id]);
      // A name that is the start of another matches only itself.
      expect(await find('X-Hub-Signature')).toEqual([other.id]);
      expect(await find('content-type')).toEqual([github.id, stripe.id]);
      // Values still match as substrings: other's x-note holds the name as text.
      expect(await find('stripe-signature')).toEqual([stripe.id, other.id]);
      expect(await find('PUSH')).toEqual([github.id]);
      expect(await find('v1=cd')).toEqual([stripe.id]);
      for (const q of ['github-event', 'x-github', 'hub-signature', 'x-hub', 'x-github-event: push']) expect(await find(q)).toEqual([]);
    });

    test('header filters: a whole name in any case, its value as a literal case-insensitive substring, through insert and the JSON-record path', async () => {
      const ep = newEndpoint();
      const push = capture(ep, T0 + 71, { headers: { 'x-github-event': 'push', 'user-agent': 'GitHub-Hookshot/0a1b', 'content-type': 'application/json' } });
      // Names and "name: value" only as values; a value holding ':'.
      const pr = capture(ep, T0 + 72, { headers: { 'x-github-event': 'pull_request', 'x-note': 'x-github-event: push', 'x-time': '12:30:00' } });
      const hostile = capture(ep, T0 + 73, { headers: { 'x-quote': `it's "quoted" a\\b 100%_x`, 'x-only-value': 'x-github-event' } });
      const unicode = capture(ep, T0 + 74, { headers: { 'x-unicode': 'ÉTÉ Grüße ПРИВЕТ 🎉', 'x-github-event-extra': 'push', 'x-x-github-event': 'push' } });
      await insert([push, hostile]);
      const batch = new JsonRecordBatch();
      for (const row of [pr, unicode]) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      const find = async (headers: { name: string; value: string }[], q?: string) => {
        const filter = { scopes: [all(ep)], headers, ...(q === undefined ? {} : { q }) };
        const found = await store().search({ ...filter, limit: 10, offset: 0, order: 'asc' });
        expect(await store().count(filter)).toBe(found.length);
        return ids(found);
      };
      const h = (name: string, value = '') => ({ name, value });
      expect(await find([h('x-github-event', 'push')])).toEqual([push.id]);
      expect(await find([h('x-github-event', 'PuSh')])).toEqual([push.id]);
      expect(await find([h('x-github-event', 'request')])).toEqual([pr.id]);
      // Present with any value: not where the name is only a value, or part of a longer name.
      expect(await find([h('x-github-event')])).toEqual([push.id, pr.id]);
      expect(await find([h('x-github-event-extra')])).toEqual([unicode.id]);
      expect(await find([h('github-event')])).toEqual([]);
      expect(await find([h('x-github', 'push')])).toEqual([]);
      expect(await find([h('x-note', 'x-github-event: push')])).toEqual([pr.id]);
      expect(await find([h('x-time', '12:30')])).toEqual([pr.id]);
      expect(await find([h('x-only-value', 'X-GITHUB-EVENT')])).toEqual([hostile.id]);
      for (const value of ["it's", '"quoted"', 'a\\b', '100%_x', '%', '_x', `it's "quoted" a\\b 100%_x`]) {
        expect(await find([h('x-quote', value)])).toEqual([hostile.id]);
      }
      // LIKE wildcards and escapes are plain characters.
      expect(await find([h('x-github-event', '%')])).toEqual([]);
      expect(await find([h('x-github-event', '_')])).toEqual([pr.id]);
      expect(await find([h('x-quote', 'a\\\\b')])).toEqual([]);
      expect(await find([h('x-quote', "'; DROP TABLE captures; --")])).toEqual([]);
      expect(await find([h('x-unicode', 'été grüße привет')])).toEqual([unicode.id]);
      expect(await find([h('x-unicode', '🎉')])).toEqual([unicode.id]);
      // Several: all must hold; with q, both.
      expect(await find([h('x-github-event', 'push'), h('user-agent', 'hookshot')])).toEqual([push.id]);
      expect(await find([h('x-github-event', 'push'), h('x-note')])).toEqual([]);
      expect(await find([h('x-github-event')], 'pull')).toEqual([pr.id]);
      expect(await find([h('content-type', 'json')], 'x-github-event')).toEqual([push.id]);
      expect(await find([])).toEqual([push.id, pr.id, hostile.id, unicode.id]);
    });

    test('q matches the raw query as sent, and the query rebuilt from its parameters; a capture stored without one by the rebuilt text only', async () => {
      const ep = newEndpoint();
      const raw = 'msg=a%20b&plus=a+b&email=u%40Example.com&Tag=X';
      const queryParams = { msg: 'a b', plus: 'a b', email: 'u@Example.com', Tag: 'X' };
      const inserted = capture(ep, T0 + 71, { queryParams, query: raw });
      const asRecord = capture(ep, T0 + 72, { queryParams, query: raw });
      // Logged before the raw query was kept: no `query` in its JSON.
      const { query: _omitted, ...legacy } = capture(ep, T0 + 73, { queryParams });
      await insert([inserted]);
      const batch = new JsonRecordBatch();
      for (const row of [asRecord, legacy]) batch.push(Buffer.from(JSON.stringify(row)));
      await store().insertRecords(batch);
      await flush(store());
      const find = async (q: string) => {
        const found = await store().search({ scopes: [all(ep)], q, limit: 10, offset: 0, order: 'asc' });
        expect(await store().count({ scopes: [all(ep)], q })).toBe(found.length);
        return ids(found);
      };
      for (const q of ['%20', 'a+b', 'plus=A+B', raw, raw.toUpperCase(), '%40example', 'email=u%40example.com&tag=x']) {
        expect(await find(q)).toEqual([inserted.id, asRecord.id]);
      }
      // The decoded text still matches, on every capture.
      for (const q of ['msg=a b', 'email=u@example.com', 'tag=x']) {
        expect(await find(q)).toEqual([inserted.id, asRecord.id, legacy.id]);
      }
    });

    test('responseStatus round-trips; a capture without one reads back without one', async () => {
      const ep = newEndpoint();
      const answered = capture(ep, T0 + 91, { responseStatus: 418 });
      const unknown = capture(ep, T0 + 92);
      await insert([answered, unknown]);
      expect(await store().get(answered.id, [all(ep)])).toEqual(answered);
      const got = await store().get(unknown.id, [all(ep)]);
      expect(got).toEqual(unknown);
      expect(got && 'responseStatus' in got).toBe(false);
    });

    test('search with a cursor walks every match once, in either order (keyset paging for exports)', async () => {
      const ep = newEndpoint();
      const rows: Capture[] = [];
      for (let t = 0; t < 30; t++) for (let k = 0; k < 2; k++) rows.push(capture(ep, T0 + 5000 + t, { method: k === 0 ? 'POST' : 'PUT' }));
      await insert(shuffled(rows));
      for (const order of ['asc', 'desc'] as const) {
        const walked: Capture[] = [];
        let cursor: PageCursor | undefined;
        for (;;) {
          const page = await store().search({ scopes: [all(ep)], method: 'POST', limit: 7, offset: 0, order, cursor });
          walked.push(...page);
          const last = page.at(-1);
          if (page.length < 7 || !last) break;
          cursor = cursorOf(last);
        }
        const posts = rows.filter((r) => r.method === 'POST');
        expect(ids(walked)).toEqual(ids(order === 'asc' ? oldestFirst(posts) : newestFirst(posts)));
      }
    });
  });
}

runCaptureStoreConformance('sqlite', async () => {
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-captures-'));
  const store = createSqliteCaptureStore({ path: join(dir, 'captures.db') });
  return {
    store,
    async teardown() {
      await store.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
});

const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

function skipConformance(name: string): void {
  describe.skip(`CaptureStore conformance: ${name} (skipped: needs the server backend)`, () => {
    test('the conformance suite', () => {});
  });
}

// ClickHouse is a service: a `TEST_BACKENDS=embedded` run has none and reports this suite skipped.
(BACKENDS.includes('server') ? runCaptureStoreConformance : skipConformance)('clickhouse', async () => {
  const database = `hookcap_test_${randomId('x', 6).slice(2).replace(/[^A-Za-z0-9]/g, '')}`;
  const ping = await fetch(new URL('/ping', CLICKHOUSE_URL)).catch((err: unknown) => err);
  if (!(ping instanceof Response) || !ping.ok) {
    throw new Error(`ClickHouse is not answering at ${CLICKHOUSE_URL} (run scripts/services.sh): ${String(ping)}`);
  }
  const store = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database });
  return {
    store,
    async teardown() {
      await store.close();
      await fetch(CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${quoteIdentifier(database)}` });
    },
  };
});

// What only the ClickHouse store does: its inserts are a POST of TabSeparated bytes of its own
// (src/stores/captures/clickhouse.ts), with a buffer kept from one batch to the next.
(BACKENDS.includes('server') ? describe : describe.skip)('ClickHouse inserts', () => {
  const database = `hookcap_test_${randomId('x', 6).slice(2).replace(/[^A-Za-z0-9]/g, '')}`;
  const good = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database });
  beforeAll(() => good.migrate());
  afterAll(async () => {
    await good.close();
    await fetch(CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${quoteIdentifier(database)}` });
  });

  test('a refused insert fails with the answer of ClickHouse, stores nothing, and does not repeat the password', async () => {
    const password = 'not-the-password-5b1f';
    const bad = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database, username: 'default', password });
    const ep = newEndpoint();
    const row = capture(ep, T0 + 1);
    const err = await bad.insert([row]).then(() => null, (e: unknown) => e);
    await bad.close();
    expect(err).toBeInstanceOf(Error);
    expect(String(err)).toMatch(/clickhouse insert: \d{3} /);
    expect(String(err)).not.toContain(password);
    expect(await good.list(all(ep), 10)).toEqual([]);
  });

  test('batches that grow the kept buffer, then smaller ones written over it, read back exactly', async () => {
    const ep = newEndpoint();
    const big = Array.from({ length: 3 }, (_, i) => capture(ep, T0 + 10 + i, { body: `${'é\t\\'.repeat(40_000)}${i}`, size: 0 }));
    const small = Array.from({ length: 5 }, (_, i) => capture(ep, T0 + 20 + i, { body: `{"n":${i}}` }));
    for (const c of big) c.size = Buffer.byteLength(c.body);
    await good.insert(big);
    await good.insert(small);
    await good.insert(small.slice(0, 2).map((c, i) => ({ ...c, id: captureId(T0 + 30 + i), receivedAt: T0 + 30 + i })));
    const stored = await good.list(all(ep), 100);
    expect(stored.length).toBe(10);
    for (const c of [...big, ...small]) expect(await good.get(c.id, [all(ep)])).toEqual(c);
  });
});
