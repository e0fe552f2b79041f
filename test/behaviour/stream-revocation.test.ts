/**
 * A live stream ends, with a final `event: end` (`credential_revoked`), once the API key or browser
 * session that opened it is revoked: the key deleted, the session logged out. A capture sent after
 * the revocation never reaches it; streams of the account's other credentials go on. The
 * cross-node case (revoked on an API node, streamed on a stream-only node) is in stream-nodes.
 */
import { expect, test } from 'bun:test';
import { call, newAccount } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends, type Harness } from '../support/suite';

async function capture(base: string, slug: string, body: string): Promise<string> {
  const r = await fetch(`${base}/w/${slug}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

/** The stream's events end with one `event: end` saying `credential_revoked`, after the captures it had. */
function expectRevoked(s: SseClient, captureIds: string[]): void {
  expect(s.events.map((e) => e.event)).toEqual([...captureIds.map(() => 'request'), 'end']);
  expect(JSON.parse(s.events.at(-1)?.data ?? '')).toEqual({ reason: 'credential_revoked' });
  expect(s.events.at(-1)?.id ?? null).toBe(captureIds.at(-1) ?? null);
}

describeBackends('live stream, when its credential is revoked', (h: Harness) => {
  async function setup() {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'revocation' } })).body;
    const extra = (await call(h.url, 'POST', '/api/api-keys', { token: a.session, body: { name: 'to revoke' } })).body;
    return { a, ep, extra };
  }

  test('deleting the API key ends its streams at once; the next capture reaches only the others; reopening → 401', async () => {
    const { a, ep, extra } = await setup();
    const url = `${h.url}/api/stream/${ep.slug}`;
    const revoked = await Promise.all([1, 2].map(() => SseClient.live(url, { token: extra.key })));
    const otherKey = await SseClient.live(url, { token: a.key });
    const session = await SseClient.live(url, { token: a.session });
    const first = await capture(h.url, ep.slug, 'before');
    for (const s of [...revoked, otherKey, session]) await s.until(() => s.events.length === 1);

    const at = Date.now();
    expect((await call(h.url, 'DELETE', `/api/api-keys?id=${extra.id}`, { token: a.session })).status).toBe(204);
    for (const s of revoked) await s.until(() => s.ended, 3_000);
    for (const s of revoked) {
      expect(s.endedAt - at).toBeLessThan(1_500);
      expectRevoked(s, [first]);
    }
    const second = await capture(h.url, ep.slug, 'after');
    for (const s of [otherKey, session]) await s.until(() => s.events.length === 2);
    await Bun.sleep(200);
    for (const s of revoked) expect(s.ids).not.toContain(second);
    expect(otherKey.ids).toEqual([first, second]);
    expect(session.ids).toEqual([first, second]);
    expect(otherKey.ended || session.ended).toBe(false);
    expect((await SseClient.open(url, { token: extra.key })).response.status).toBe(401);
    otherKey.close();
    session.close();
  });

  test('logging out ends the streams of that session only; the next capture reaches the others', async () => {
    const { a, ep } = await setup();
    const url = `${h.url}/api/stream/${ep.slug}`;
    const again = await call(h.url, 'POST', '/api/auth/login', { body: { email: a.email, password: 'correct horse battery' } });
    expect(again.status).toBe(200);
    const leaving = await SseClient.live(url, { token: a.session });
    const staying = await SseClient.live(url, { token: again.body.token });
    const byKey = await SseClient.live(url, { token: a.key });

    const at = Date.now();
    expect((await call(h.url, 'POST', '/api/auth/logout', { token: a.session })).status).toBe(204);
    await leaving.until(() => leaving.ended, 3_000);
    expect(leaving.endedAt - at).toBeLessThan(1_500);
    expectRevoked(leaving, []);
    const id = await capture(h.url, ep.slug, 'after logout');
    for (const s of [staying, byKey]) await s.until(() => s.events.length === 1);
    expect(leaving.events.map((e) => e.event)).toEqual(['end']);
    expect(staying.ids).toEqual([id]);
    expect(byKey.ids).toEqual([id]);
    expect(staying.ended || byKey.ended).toBe(false);
    expect((await SseClient.open(url, { token: a.session })).response.status).toBe(401);
    staying.close();
    byKey.close();
  });
});
