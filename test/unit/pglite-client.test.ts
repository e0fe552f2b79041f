/**
 * PGlite on its own thread (src/stores/state/pglite-client.ts), against a real PGlite: what
 * drizzle and db.ts rely on — rows in both modes, timestamps as text, transactions that commit or
 * roll back and hold other calls until they end, Postgres' error fields, the data directory copy,
 * and calls after close failing rather than hanging. And that the service's state store keeps
 * PGlite off the calling thread's heap (the reason for the thread).
 */
import { afterAll, beforeAll, expect, test } from 'bun:test';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { heapStats } from 'bun:jsc';
import { PGlite } from '@electric-sql/pglite';
import { openPglite } from '../../src/stores/state/db';
import { PgliteClient } from '../../src/stores/state/pglite-client';
import { seedPglite } from '../support/server';

const root = mkdtempSync(join(tmpdir(), 'hookcap-pglite-client-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

/**
 * Creating a PGlite cluster (initdb in WebAssembly) took 13.7 s of CPU at a load average of 20, and
 * over 60 s of wall time: room for that, where a test (or the template's first build) creates one.
 */
const FRESH_CREATE_MS = 180_000;

// The migrated template (test/support/server.ts), built here if this machine has none yet, so the
// tests below each open a copy of it (a reopen, ~1.5 s loaded) instead of creating a cluster. The
// openPglite test still creates one from nothing.
beforeAll(() => seedPglite(join(root, 'warm')), FRESH_CREATE_MS);

/** A PgliteClient on its own copy of the template, with a table `t` of its own. */
async function opened(name: string): Promise<PgliteClient> {
  await seedPglite(join(root, name));
  mkdirSync(join(root, name, 'pglite'), { recursive: true }); // TEST_PGLITE_TEMPLATE=0: no copy
  const pg = await PgliteClient.open(join(root, name, 'pglite'));
  await pg.exec('CREATE TABLE t (id int PRIMARY KEY, at timestamptz NOT NULL DEFAULT now())');
  return pg;
}

test('rows as objects or arrays; timestamps come back as the text Postgres sent', async () => {
  const pg = await opened('rows');
  try {
    await pg.query('INSERT INTO t (id) VALUES ($1), ($2)', [1, 2]);
    expect((await pg.query<{ id: number }>('SELECT id FROM t ORDER BY id')).rows).toEqual([{ id: 1 }, { id: 2 }]);
    expect((await pg.query<unknown[]>('SELECT id FROM t ORDER BY id', [], { rowMode: 'array' })).rows).toEqual([[1], [2]]);
    const at = (await pg.query<{ at: unknown }>('SELECT at FROM t WHERE id = 1')).rows[0]?.at;
    expect(typeof at).toBe('string');
    expect(Number.isNaN(Date.parse(String(at)))).toBe(false);
    const affected = await pg.query('UPDATE t SET id = id + 10');
    expect(affected.affectedRows).toBe(2);
  } finally {
    await pg.close();
  }
});

test('a transaction commits what its callback did; one that throws leaves nothing and rethrows', async () => {
  const pg = await opened('tx');
  try {
    const value = await pg.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (1)');
      return (await tx.query<{ n: number }>('SELECT count(*)::int AS n FROM t')).rows[0]?.n;
    });
    expect(value).toBe(1);
    const boom = new Error('changed my mind');
    // Caught by hand: bun:test's `expect(p).rejects` never settles when p is settled by a worker's
    // message (tried: a plain failing query too, with the worker kept referenced; a timer's works).
    const failed = await pg
      .transaction(async (tx) => {
        await tx.query('INSERT INTO t (id) VALUES (2)');
        throw boom;
      })
      .catch((e: unknown) => e);
    expect(failed).toBe(boom);
    expect((await pg.query<{ id: number }>('SELECT id FROM t')).rows).toEqual([{ id: 1 }]);
  } finally {
    await pg.close();
  }
});

test('a call made while a transaction is open waits for it, then sees what it committed', async () => {
  const pg = await opened('wait');
  try {
    const order: string[] = [];
    let outside: Promise<unknown> = Promise.resolve();
    await pg.transaction(async (tx) => {
      await tx.query('INSERT INTO t (id) VALUES (1)');
      outside = pg.query<{ n: number }>('SELECT count(*)::int AS n FROM t').then((r) => {
        order.push('outside');
        return r.rows[0]?.n;
      });
      await Bun.sleep(50);
      order.push('commit');
    });
    expect(await outside).toBe(1);
    expect(order).toEqual(['commit', 'outside']);
  } finally {
    await pg.close();
  }
});

test("Postgres' error fields cross the thread: code, constraint, detail", async () => {
  const pg = await opened('errors');
  try {
    await pg.query('INSERT INTO t (id) VALUES (1)');
    const err = (await pg.query('INSERT INTO t (id) VALUES (1)').catch((e: unknown) => e)) as Error & { code?: string; constraint?: string; detail?: string };
    expect(err).toBeInstanceOf(Error);
    expect(err.code).toBe('23505');
    expect(err.constraint).toBe('t_pkey');
    expect(err.detail).toContain('(id)=(1)');
    const inTx = (await pg.transaction(async (tx) => tx.query('SELECT 1 / 0')).catch((e: unknown) => e)) as { code?: string };
    expect(inTx.code).toBe('22012');
    // A parameter that cannot be copied to the other thread fails that call alone.
    const uncopyable = await pg.query('SELECT $1::text AS v', [() => 1]).catch((e: unknown) => e);
    expect(uncopyable).toBeInstanceOf(Error);
    // The failed transaction was rolled back and released: the database answers.
    expect((await pg.query('SELECT 1 AS one')).rows).toEqual([{ one: 1 }]);
  } finally {
    await pg.close();
  }
});

test('copyDataDir: the copy opens with its data; after close every call fails at once', async () => {
  const pg = await opened('copy');
  await pg.query('INSERT INTO t (id) VALUES (7)');
  const to = join(root, 'copy-of');
  await pg.copyDataDir(to);
  await pg.close();
  await expect(pg.query('SELECT 1')).rejects.toThrow('closed');
  const copy = new PGlite(to);
  try {
    expect((await copy.query<{ id: number }>('SELECT id FROM t')).rows).toEqual([{ id: 7 }]);
  } finally {
    await copy.close();
  }
});

// A fresh data dir: this is the test of creating a cluster through the client (initdb, then the
// migrations), as a new DATA_DIR does.
test("openPglite keeps PGlite's memory off this thread's heap", async () => {
  Bun.gc(true);
  const before = heapStats().heapSize;
  const state = await openPglite(join(root, 'service'));
  try {
    expect(state.kind).toBe('pglite');
    Bun.gc(true);
    // PGlite on this thread adds its WebAssembly memory to the heap: over 1 GB here (measured).
    expect(heapStats().heapSize - before).toBeLessThan(64 * 1024 * 1024);
  } finally {
    await state.close();
  }
}, FRESH_CREATE_MS);

/**
 * This test's own time: close waits for the open transaction on purpose, CLOSE_WAIT_MS (5 s,
 * src/stores/state/pglite-client.ts), since a transaction still open at shutdown may yet commit
 * (with none open, close took 10 ms here); only a callback that never ends uses the whole bound.
 * That, with `opened` (a template copy, an open and a CREATE TABLE; the open alone took 1.3 s here,
 * the other tests of this file 2.4–5 s each on a loaded machine), is past bun test's default 5 s;
 * scripts/test.sh's 120 s hid it. Room for a loaded machine.
 */
const STUCK_CLOSE_TEST_MS = 60_000;

test('close with a transaction left open ends the thread after its bound instead of waiting forever', async () => {
  const pg = await opened('stuck');
  let opened_ = false;
  // A transaction whose callback never finishes (a request cut off at shutdown, say).
  void pg.transaction(async (tx) => {
    await tx.query('INSERT INTO t (id) VALUES (1)');
    opened_ = true;
    await new Promise(() => {});
  });
  while (!opened_) await Bun.sleep(10);
  const started = performance.now();
  await pg.close();
  const took = performance.now() - started;
  expect(took).toBeGreaterThan(4_000);
  expect(took).toBeLessThan(15_000);
  await expect(pg.query('SELECT 1')).rejects.toThrow('closed');
}, STUCK_CLOSE_TEST_MS);
