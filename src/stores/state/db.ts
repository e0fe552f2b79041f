/**
 * The account-state database: Postgres (DATABASE_URL) or PGlite under DATA_DIR. Both speak the
 * same SQL, run the same migrations from sql/, and are used through the same drizzle API.
 */
import { readdirSync, readFileSync, mkdirSync } from 'node:fs';
import { cp } from 'node:fs/promises';
import { join } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import type { PgDatabase, PgQueryResultHKT } from 'drizzle-orm/pg-core';
import { drizzle as drizzlePglite } from 'drizzle-orm/pglite';
import { drizzle as drizzlePostgres } from 'drizzle-orm/postgres-js';
import postgres from 'postgres';
import { PgliteClient } from './pglite-client';
import * as schema from './schema';

export type Db = PgDatabase<PgQueryResultHKT, typeof schema>;

/** An open transaction of `Db`. */
export type Tx = Parameters<Parameters<Db['transaction']>[0]>[0];
/** A database handle or an open transaction. */
export type Q = Db | Tx;

/** Runs `fn` in one transaction: everything or nothing. */
export function inTransaction<T>(db: Db, fn: (tx: Tx) => Promise<T>): Promise<T> {
  return db.transaction(fn);
}

export interface StateDb {
  readonly kind: 'postgres' | 'pglite';
  readonly db: Db;
  /**
   * PGlite only: copies its data directory into `to` (a new folder), with no query running
   * meanwhile (PGlite runs one at a time), so the copy is consistent while the service works.
   * Null on Postgres (use pg_dump).
   */
  readonly copyDataDir: ((to: string) => Promise<void>) | null;
  close(): Promise<void>;
}

const MIGRATIONS_DIR = join(import.meta.dir, '..', '..', '..', 'sql');
/** Serialises migrations when several nodes start at once against one Postgres. */
const MIGRATION_LOCK = 727_311;

interface RawExec {
  exec(sqlText: string): Promise<void>;
  applied(): Promise<Set<string>>;
}

async function migrate(raw: RawExec): Promise<void> {
  await raw.exec(
    'CREATE TABLE IF NOT EXISTS schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now())',
  );
  const done = await raw.applied();
  const files = readdirSync(MIGRATIONS_DIR).filter((f) => f.endsWith('.sql')).sort();
  for (const file of files) {
    if (done.has(file)) continue;
    const body = readFileSync(join(MIGRATIONS_DIR, file), 'utf8');
    // The file name comes from our own sql/ folder, never from input; still quote it as a literal.
    const name = file.replace(/'/g, "''");
    await raw.exec(`BEGIN;\n${body}\nINSERT INTO schema_migrations (name) VALUES ('${name}');\nCOMMIT;`);
  }
}

/** `max`: connections this process opens at most (DATABASE_POOL_MAX); every node has its own pool. */
export async function openPostgres(url: string, max = 10): Promise<StateDb> {
  const client = postgres(url, { max, onnotice: () => {} });
  const reserved = await client.reserve();
  try {
    await reserved`SELECT pg_advisory_lock(${MIGRATION_LOCK})`;
    await migrate({
      exec: async (text) => {
        await reserved.unsafe(text);
      },
      applied: async () => new Set((await reserved`SELECT name FROM schema_migrations`).map((r) => String(r.name))),
    });
    await reserved`SELECT pg_advisory_unlock(${MIGRATION_LOCK})`;
  } finally {
    reserved.release();
  }
  return {
    kind: 'postgres',
    db: drizzlePostgres(client, { schema }) as unknown as Db,
    copyDataDir: null,
    close: () => client.end({ timeout: 5 }),
  };
}

export async function openPglite(dataDir: string): Promise<StateDb> {
  const dir = join(dataDir, 'pglite');
  mkdirSync(dir, { recursive: true });
  // On a thread of its own: its heap off the receiver's thread (pglite-client.ts).
  const pg = await PgliteClient.open(dir);
  try {
    await migrate({
      exec: async (text) => {
        await pg.exec(text);
      },
      applied: async () =>
        new Set((await pg.query<{ name: string }>('SELECT name FROM schema_migrations')).rows.map((r) => r.name)),
    });
  } catch (err) {
    await pg.close().catch(() => {});
    throw err;
  }
  return {
    kind: 'pglite',
    // drizzle's PGlite driver calls only query() and transaction() on its client.
    db: drizzlePglite({ client: pg as unknown as PGlite, schema }) as unknown as Db,
    // PGlite's dumpDataDir reads the files synchronously; the worker's copy is asynchronous and
    // runs with no query in flight (bench/backup.ts).
    copyDataDir: (to) => pg.copyDataDir(to),
    close: () => pg.close(),
  };
}

/**
 * Makes DATA_DIR/pglite from a `copyDataDir` copy, checks it opens and answers, and closes it.
 * DATA_DIR must not hold a database yet.
 */
export async function restorePglite(dataDir: string, from: string): Promise<void> {
  const dir = join(dataDir, 'pglite');
  await cp(from, dir, { recursive: true, errorOnExist: true, force: false });
  const pg = new PGlite(dir);
  try {
    await pg.waitReady;
    await pg.query('SELECT count(*) FROM schema_migrations');
  } finally {
    await pg.close();
  }
}
