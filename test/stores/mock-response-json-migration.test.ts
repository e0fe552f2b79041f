/**
 * sql/016_mock_response_json.sql turns endpoints.mock_response from jsonb into json, so a mock's
 * headers keep the order saved. A database migrated up to 015 with mocks already stored (jsonb:
 * their keys sorted) is opened as a deployment would open it on its next start: the rows survive
 * and read back as the same objects (still in jsonb's order, which is all that is left of them),
 * and a mock saved afterwards reads back in the order written, on Postgres and PGlite alike.
 */
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { PGlite } from '@electric-sql/pglite';
import postgres from 'postgres';
import { openPglite, openPostgres, type StateDb } from '../../src/stores/state/db';
import { findEndpointBySlug, updateEndpoint } from '../../src/stores/state/endpoints';
import { BACKENDS, PG_ADMIN_URL } from '../support/backends';

setDefaultTimeout(60_000);

const SQL_DIR = resolve(import.meta.dir, '../../sql');
const BEFORE = readdirSync(SQL_DIR).filter((f) => f.endsWith('.sql') && f < '016_').sort();
const MOCK = { status: 202, body: 'old', headers: { 'x-zeta': '1', 'x-a': '2', 'content-type': 'text/plain' } };
const SEED = [
  "INSERT INTO users (id, email, created_at) VALUES ('u1', 'old@example.com', 1)",
  `INSERT INTO endpoints (id, slug, name, user_id, mock_response, created_at) VALUES ('e1', 'oldmock', 'old', 'u1', '${JSON.stringify(MOCK)}'::jsonb, 1)`,
  "INSERT INTO endpoints (id, slug, name, user_id, created_at) VALUES ('e2', 'nomock', 'none', 'u1', 1)",
];

/** The migrator's bookkeeping for the files before 016, then the seed rows: a deployment as it was. */
function before(): string {
  const files = BEFORE.map((f) => `${readFileSync(join(SQL_DIR, f), 'utf8')}\nINSERT INTO schema_migrations (name) VALUES ('${f}');`);
  return ['CREATE TABLE schema_migrations (name text PRIMARY KEY, applied_at timestamptz NOT NULL DEFAULT now());', ...files, ...SEED.map((s) => `${s};`)].join('\n');
}

async function openOld(backend: string): Promise<{ state: StateDb; columnType: () => Promise<string>; cleanup: () => Promise<void> }> {
  const typeQuery = "SELECT data_type FROM information_schema.columns WHERE table_name = 'endpoints' AND column_name = 'mock_response'";
  if (backend === 'embedded') {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-mockjson-'));
    const old = new PGlite(join(dir, 'pglite'));
    await old.exec(before());
    await old.close();
    const state = await openPglite(dir);
    return {
      state,
      columnType: async () => ((await state.db.execute(typeQuery)) as unknown as { rows: { data_type: string }[] }).rows[0]!.data_type,
      cleanup: async () => { await state.close(); rmSync(dir, { recursive: true, force: true }); },
    };
  }
  const name = `hookcap_mockjson_${Math.random().toString(36).slice(2, 10)}`;
  const admin = postgres(PG_ADMIN_URL, { max: 1, onnotice: () => {} });
  await admin.unsafe(`CREATE DATABASE ${name}`);
  const url = new URL(PG_ADMIN_URL);
  url.pathname = `/${name}`;
  const old = postgres(url.toString(), { max: 1, onnotice: () => {} });
  await old.unsafe(before());
  await old.end();
  const state = await openPostgres(url.toString(), 2);
  return {
    state,
    columnType: async () => ((await state.db.execute(typeQuery)) as unknown as { data_type: string }[])[0]!.data_type,
    cleanup: async () => {
      await state.close();
      await admin.unsafe(`DROP DATABASE IF EXISTS ${name} WITH (FORCE)`).catch(() => {});
      await admin.end();
    },
  };
}

for (const backend of BACKENDS) {
  describe(`mock_response becomes json [${backend === 'embedded' ? 'PGlite' : 'Postgres'}]`, () => {
    test('stored mocks survive (in the order jsonb left them); mocks saved afterwards keep their order', async () => {
      const db = await openOld(backend);
      try {
        expect(await db.columnType()).toBe('json');
        const old = await findEndpointBySlug(db.state.db, 'oldmock');
        expect(old!.mockResponse).toEqual(MOCK);
        // jsonb had sorted them: shorter first, then bytewise.
        expect(Object.keys(old!.mockResponse!.headers)).toEqual(['x-a', 'x-zeta', 'content-type']);
        expect((await findEndpointBySlug(db.state.db, 'nomock'))!.mockResponse).toBeNull();

        await db.state.db.transaction((tx) => updateEndpoint({ tx, changed: new Set() }, 'e1', { mockResponse: MOCK }, 2));
        const saved = await findEndpointBySlug(db.state.db, 'oldmock');
        expect(saved!.mockResponse).toEqual(MOCK);
        expect(Object.keys(saved!.mockResponse!.headers)).toEqual(['x-zeta', 'x-a', 'content-type']);
      } finally {
        await db.cleanup();
      }
    });
  });
}
