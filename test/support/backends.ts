/**
 * The two backends every behaviour test runs against. "server" uses real PostgreSQL, ClickHouse
 * and NATS (started by scripts/services.sh), each test server in a fresh database and NATS prefix.
 * TEST_BACKENDS=embedded limits a local run to the embedded one.
 */
import postgres from 'postgres';

export type BackendName = 'embedded' | 'server';

export const PG_ADMIN_URL = process.env.TEST_DATABASE_URL ?? 'postgres://postgres:postgres@127.0.0.1:5432/postgres';
export const CLICKHOUSE_URL = process.env.TEST_CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';
export const NATS_URL = process.env.TEST_NATS_URL ?? 'nats://127.0.0.1:4222';

export const BACKENDS: BackendName[] = (process.env.TEST_BACKENDS ?? 'embedded,server')
  .split(',')
  .map((s) => s.trim())
  .filter((s): s is BackendName => s === 'embedded' || s === 'server');

export interface BackendEnv {
  env: Record<string, string>;
  /** Drops what `provision` created. */
  cleanup(): Promise<void>;
}

const rand = () => Math.random().toString(36).slice(2, 10);

/** Fresh, isolated state for one test server (or several sharing it, for multi-node tests). */
export async function provision(name: BackendName): Promise<BackendEnv> {
  if (name === 'embedded') return { env: {}, cleanup: async () => {} };
  const id = `hookcap_t_${rand()}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${id}`);
  await admin.end();
  const pgUrl = new URL(PG_ADMIN_URL);
  pgUrl.pathname = `/${id}`;
  return {
    env: {
      DATABASE_URL: pgUrl.toString(),
      CLICKHOUSE_URL: `${CLICKHOUSE_URL.replace(/\/+$/, '')}/${id}`,
      NATS_URL,
      NATS_PREFIX: id,
    },
    cleanup: async () => {
      const a = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
      await a.unsafe(`DROP DATABASE IF EXISTS ${id} WITH (FORCE)`).catch(() => {});
      await a.end();
      await fetch(`${CLICKHOUSE_URL}/?query=${encodeURIComponent(`DROP DATABASE IF EXISTS ${id}`)}`, { method: 'POST' }).catch(() => {});
    },
  };
}
