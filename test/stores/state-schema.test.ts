/**
 * The Postgres schema is written once, in sql/*.sql (run on Postgres and PGlite alike);
 * src/stores/state/schema.ts describes it to drizzle. This test migrates a fresh database on each
 * backend and compares every table, column, type, nullability, default and primary key that
 * schema.ts declares with information_schema, so the two cannot drift apart.
 */
import { afterAll, beforeAll, describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { is, sql } from 'drizzle-orm';
import { getTableConfig, PgTable } from 'drizzle-orm/pg-core';
import postgres from 'postgres';
import { openPglite, openPostgres, type StateDb } from '../../src/stores/state/db';
import * as schema from '../../src/stores/state/schema';
import { BACKENDS, PG_ADMIN_URL, type BackendName } from '../support/backends';
import { seedPglite } from '../support/server';

setDefaultTimeout(60_000);

interface ColumnShape {
  type: string;
  notNull: boolean;
  hasDefault: boolean;
}
type Shape = Record<string, { columns: Record<string, ColumnShape>; primaryKey: string[] }>;

/** information_schema's name of a type drizzle writes as SQL (`text[]` is ARRAY of `_text`). */
function infoType(dataType: string, udtName: string): string {
  if (dataType === 'ARRAY') return `${udtName.replace(/^_/, '')}[]`;
  return dataType;
}

const DRIZZLE_TO_INFO: Record<string, string> = {
  timestamp: 'timestamp without time zone',
  'timestamp with time zone': 'timestamp with time zone',
};

function declared(): Shape {
  const out: Shape = {};
  for (const value of Object.values(schema)) {
    if (!is(value, PgTable)) continue;
    const config = getTableConfig(value);
    const columns: Record<string, ColumnShape> = {};
    const primaryKey: string[] = [];
    for (const c of config.columns) {
      const type = c.getSQLType();
      columns[c.name] = { type: DRIZZLE_TO_INFO[type] ?? type, notNull: c.notNull, hasDefault: c.hasDefault };
      if (c.primary) primaryKey.push(c.name);
    }
    for (const pk of config.primaryKeys) primaryKey.push(...pk.columns.map((c) => c.name));
    out[config.name] = { columns, primaryKey: primaryKey.sort() };
  }
  return out;
}

interface InfoColumn {
  table_name: string;
  column_name: string;
  data_type: string;
  udt_name: string;
  is_nullable: string;
  column_default: string | null;
}

async function actual(state: StateDb): Promise<Shape> {
  const rows = (await state.db.execute(sql`
    SELECT table_name, column_name, data_type, udt_name, is_nullable, column_default
    FROM information_schema.columns
    WHERE table_schema = 'public' AND table_name <> 'schema_migrations'
    ORDER BY table_name, ordinal_position`)) as unknown as InfoColumn[] | { rows: InfoColumn[] };
  const keys = (await state.db.execute(sql`
    SELECT tc.table_name, kcu.column_name
    FROM information_schema.table_constraints tc
    JOIN information_schema.key_column_usage kcu
      ON kcu.constraint_name = tc.constraint_name AND kcu.table_schema = tc.table_schema AND kcu.table_name = tc.table_name
    WHERE tc.table_schema = 'public' AND tc.constraint_type = 'PRIMARY KEY'`)) as unknown as
    | { table_name: string; column_name: string }[]
    | { rows: { table_name: string; column_name: string }[] };
  // postgres-js answers an array, PGlite `{ rows }`.
  const columnRows = Array.isArray(rows) ? rows : rows.rows;
  const keyRows = Array.isArray(keys) ? keys : keys.rows;
  const out: Shape = {};
  for (const r of columnRows) {
    const table = (out[r.table_name] ??= { columns: {}, primaryKey: [] });
    table.columns[r.column_name] = { type: infoType(r.data_type, r.udt_name), notNull: r.is_nullable === 'NO', hasDefault: r.column_default !== null };
  }
  for (const k of keyRows) out[k.table_name]?.primaryKey.push(k.column_name);
  for (const t of Object.values(out)) t.primaryKey.sort();
  return out;
}

async function open(backend: BackendName): Promise<{ state: StateDb; cleanup: () => Promise<void> }> {
  if (backend === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-schema-'));
    await seedPglite(dir);
    const state = await openPglite(dir);
    return { state, cleanup: async () => { await state.close(); rmSync(dir, { recursive: true, force: true }); } };
  }
  const name = `hookcap_schema_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const state = await openPostgres(url.toString(), 2);
  return {
    state,
    cleanup: async () => {
      await state.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}

for (const backend of BACKENDS) {
  describe(`state schema: schema.ts matches the migrated database [${backend === 'embedded' ? 'PGlite' : 'Postgres'}]`, () => {
    let db: Awaited<ReturnType<typeof open>> | undefined;
    beforeAll(async () => {
      db = await open(backend);
    });
    afterAll(async () => {
      await db?.cleanup();
    });

    test('same tables, columns, types, nullability, defaults and primary keys', async () => {
      if (!db) throw new Error('not opened');
      const have = await actual(db.state);
      const want = declared();
      expect(Object.keys(want).length).toBeGreaterThan(10);
      expect(Object.keys(have).sort()).toEqual(Object.keys(want).sort());
      const drift: string[] = [];
      for (const [table, shape] of Object.entries(want)) {
        const got = have[table];
        if (!got) continue;
        if (got.primaryKey.join() !== shape.primaryKey.join()) drift.push(`${table}: primary key (${got.primaryKey}) in SQL, (${shape.primaryKey}) in schema.ts`);
        for (const name of new Set([...Object.keys(shape.columns), ...Object.keys(got.columns)])) {
          const a = got.columns[name];
          const b = shape.columns[name];
          if (!a || !b) drift.push(`${table}.${name}: only in ${a ? 'SQL' : 'schema.ts'}`);
          else if (JSON.stringify(a) !== JSON.stringify(b)) drift.push(`${table}.${name}: SQL ${JSON.stringify(a)}, schema.ts ${JSON.stringify(b)}`);
        }
      }
      expect(drift).toEqual([]);
    });
  });
}
