/**
 * The backstop for a lost revocation announcement: every STREAM_RECHECK_MS a stream node re-reads
 * the credentials of all its open streams (one query) and ends those that are gone. Here the
 * revocation is written straight in Postgres and announced to nobody, which is exactly what a
 * node sees when the announcement was lost on NATS. Real Postgres and NATS only: the embedded
 * bus cannot lose a message, and its PGlite cannot be written from outside while it runs.
 */
import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import postgres from 'postgres';
import { BACKENDS, provision, type BackendEnv } from '../support/backends';
import { call, newAccount } from '../support/client';
import { startServer, stopServer, type TestServer } from '../support/server';
import { SseClient } from '../support/sse';

const RECHECK_MS = 500;

describe.skipIf(!BACKENDS.includes('server'))('live stream, when its credential is revoked and nobody is told [server]', () => {
  let provisioned: BackendEnv | undefined;
  let server: TestServer | undefined;
  let sql: postgres.Sql | undefined;
  beforeAll(async () => {
    provisioned = await provision('server');
    server = await startServer({ env: { ...provisioned.env, STREAM_RECHECK_MS: String(RECHECK_MS) } });
    sql = postgres(provisioned.env.DATABASE_URL ?? '', { max: 1, onnotice: () => {} });
  });
  afterAll(async () => {
    await sql?.end();
    if (server) await stopServer(server);
    await provisioned?.cleanup();
  });
  const base = () => server?.url ?? '';
  const db = () => {
    if (!sql) throw new Error('not started');
    return sql;
  };

  async function capture(slug: string, body: string): Promise<string> {
    const r = await fetch(`${base()}/w/${slug}`, { method: 'POST', body });
    expect(r.status).toBe(200);
    return ((await r.json()) as { id: string }).id;
  }

  test('a key revoked in the store without an announcement ends its stream within the re-check interval; the others go on', async () => {
    const a = await newAccount(base());
    const ep = (await call(base(), 'POST', '/api/endpoints', { token: a.key, body: { name: 'recheck' } })).body;
    const extra = (await call(base(), 'POST', '/api/api-keys', { token: a.session, body: { name: 'lost' } })).body;
    const url = `${base()}/api/stream/${ep.slug}`;
    const revoked = await Promise.all([1, 2].map(() => SseClient.live(url, { token: extra.key })));
    const byKey = await SseClient.live(url, { token: a.key });
    const bySession = await SseClient.live(url, { token: a.session });
    const first = await capture(ep.slug, 'before');
    for (const s of [...revoked, byKey, bySession]) await s.until(() => s.events.length === 1);

    const at = Date.now();
    expect((await db()`UPDATE api_keys SET revoked_at = ${at} WHERE id = ${extra.id}`).count).toBe(1);
    for (const s of revoked) await s.until(() => s.ended, RECHECK_MS * 6);
    for (const s of revoked) {
      expect(s.endedAt - at).toBeLessThan(RECHECK_MS + 1_000);
      expect(s.events.map((e) => [e.event, e.data])).toEqual([
        ['request', expect.any(String)],
        ['end', '{"reason":"credential_revoked"}'],
      ]);
      expect(s.events[1]?.id).toBe(first);
    }
    const second = await capture(ep.slug, 'after');
    for (const s of [byKey, bySession]) await s.until(() => s.events.length === 2);
    // Several re-checks later, the live credentials' streams are still open.
    await Bun.sleep(RECHECK_MS * 3);
    for (const s of [byKey, bySession]) {
      expect(s.ids).toEqual([first, second]);
      expect(s.ended).toBe(false);
      s.close();
    }
    expect((await SseClient.open(url, { token: extra.key })).response.status).toBe(401);
  });

  test('a session deleted in the store without an announcement ends its stream within the re-check interval', async () => {
    const a = await newAccount(base());
    const ep = (await call(base(), 'POST', '/api/endpoints', { token: a.key, body: { name: 'recheck session' } })).body;
    const url = `${base()}/api/stream/${ep.slug}`;
    const bySession = await SseClient.live(url, { token: a.session });
    const byKey = await SseClient.live(url, { token: a.key });
    const hash = new Bun.CryptoHasher('sha256').update(a.session).digest('hex');

    const at = Date.now();
    expect((await db()`DELETE FROM sessions WHERE token_hash = ${hash}`).count).toBe(1);
    await bySession.until(() => bySession.ended, RECHECK_MS * 6);
    expect(bySession.endedAt - at).toBeLessThan(RECHECK_MS + 1_000);
    expect(bySession.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"credential_revoked"}']]);
    await Bun.sleep(RECHECK_MS * 2);
    expect(byKey.ended).toBe(false);
    byKey.close();
  });
});
