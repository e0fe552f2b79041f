/**
 * Deployments created before captures recorded the answered status and the raw query: their table
 * gains the columns on the next start, their old rows read back without `responseStatus` and
 * `query` (readers rebuild the query from queryParams), and new rows carry both.
 */
import { Database } from 'bun:sqlite';
import { describe, expect, setDefaultTimeout, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { captureId, randomId } from '../../src/ids';
import type { Capture } from '../../src/model/capture';
import { createClickHouseCaptureStore } from '../../src/stores/captures/clickhouse';
import { captureToRow, metaSearchText } from '../../src/stores/captures/row';
import { quoteIdentifier } from '../../src/stores/captures/sql-quote';
import { createSqliteCaptureStore } from '../../src/stores/captures/sqlite';
import type { CaptureStore } from '../../src/stores/captures/types';

setDefaultTimeout(60_000);

const T0 = Date.UTC(2024, 5, 1, 8, 0, 0);
const CLICKHOUSE_URL = process.env.CLICKHOUSE_URL ?? 'http://127.0.0.1:8123';

function capture(endpointId: string, receivedAt: number, extra: Partial<Capture> = {}): Capture {
  return {
    id: captureId(receivedAt),
    endpointId,
    method: 'POST',
    path: '/old',
    headers: { 'content-type': 'application/json' },
    body: '{"old":true}',
    bodyEncoding: 'utf8',
    queryParams: {},
    contentType: 'application/json',
    ip: '203.0.113.9',
    size: 12,
    receivedAt,
    detectedProvider: '',
    detectedEvent: '',
    ...extra,
  };
}

/** The row as a store of the first layout wrote it: no response_status nor query column. */
function oldRow(c: Capture): Record<string, string | number> {
  const { response_status: _dropped, query: _noQuery, ...row } = captureToRow(c, metaSearchText(c));
  return row;
}

async function checkMigrated(store: CaptureStore, endpointId: string, old: Capture): Promise<void> {
  await store.migrate();
  // Runs on every start: the second run must find the column and do nothing.
  await store.migrate();
  const read = await store.get(old.id, [{ endpointId, since: 0 }]);
  expect(read).toEqual(old);
  expect(read && 'responseStatus' in read).toBe(false);
  // Its query was not kept: absent, not "" (which would say "no query").
  expect(read && 'query' in read).toBe(false);
  const fresh = capture(endpointId, T0 + 1000, { responseStatus: 404, queryParams: { y: ' a', a: ['1', '2'] }, query: 'y=%20a&a=1&a=2&b&c=&d=%zz' });
  await store.insert([fresh]);
  expect(await store.list({ endpointId, since: 0 }, 10)).toEqual([fresh, old]);
  // Free text finds the old row by a header name with no data migrated (names are read from the
  // stored headers JSON), and by its query rebuilt from the parameters; the new row by its raw query.
  const find = async (q: string) => (await store.search({ scopes: [{ endpointId, since: 0 }], q, limit: 10, offset: 0, order: 'desc' })).map((c) => c.id);
  expect(await find('Content-Type')).toEqual([fresh.id, old.id]);
  expect(await find('x=a b')).toEqual([old.id]);
  expect(await find('y=%20a&A=1')).toEqual([fresh.id]);
}

describe('responseStatus migration', () => {
  test('sqlite: a table of the first layout gains the column; old rows still read', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'hookcap-migrate-'));
    const path = join(dir, 'captures.sqlite');
    try {
      const ep = randomId('ep');
      const old = capture(ep, T0, { queryParams: { x: 'a b' } });
      const db = new Database(path, { create: true, strict: true });
      db.run(`CREATE TABLE captures (
        id TEXT PRIMARY KEY, endpoint_id TEXT NOT NULL, received_at INTEGER NOT NULL, method TEXT NOT NULL,
        path TEXT NOT NULL, headers TEXT NOT NULL, body TEXT NOT NULL, body_encoding TEXT NOT NULL,
        query_params TEXT NOT NULL, content_type TEXT NOT NULL, ip TEXT NOT NULL, size INTEGER NOT NULL,
        detected_provider TEXT NOT NULL, detected_event TEXT NOT NULL, signature TEXT NOT NULL, search_text TEXT NOT NULL)`);
      const row = oldRow(old);
      const columns = Object.keys(row);
      db.query(`INSERT INTO captures (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`).run(...Object.values(row));
      db.close();

      const store = createSqliteCaptureStore({ path });
      try {
        await checkMigrated(store, ep, old);
      } finally {
        await store.close();
      }
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  test('clickhouse (18.16 has no ADD COLUMN IF NOT EXISTS): the first layout gains the column; old rows still read', async () => {
    const database = `hookcap_mig_${randomId('x', 6).slice(2).replace(/[^A-Za-z0-9]/g, '')}`;
    const run = async (query: string, body?: string) => {
      const url = new URL(CLICKHOUSE_URL);
      url.searchParams.set('database', database);
      if (body !== undefined) url.searchParams.set('query', query);
      const r = await fetch(url, { method: 'POST', body: body ?? query });
      if (!r.ok) throw new Error(`clickhouse: ${await r.text()}`);
    };
    await fetch(CLICKHOUSE_URL, { method: 'POST', body: `CREATE DATABASE ${quoteIdentifier(database)}` });
    try {
      // The first layout is clickhouse/001_captures.sql as it is: later changes are new files.
      const ddl = readFileSync(resolve(import.meta.dir, '../../clickhouse/001_captures.sql'), 'utf8')
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('--'))
        .join('\n');
      await run(ddl);
      const ep = randomId('ep');
      const old = capture(ep, T0, { queryParams: { x: 'a b' } });
      await run('INSERT INTO captures FORMAT JSONEachRow', JSON.stringify(oldRow(old)));

      const store = createClickHouseCaptureStore({ url: CLICKHOUSE_URL, database });
      try {
        await checkMigrated(store, ep, old);
      } finally {
        await store.close();
      }
    } finally {
      await fetch(CLICKHOUSE_URL, { method: 'POST', body: `DROP DATABASE IF EXISTS ${quoteIdentifier(database)}` });
    }
  });
});
