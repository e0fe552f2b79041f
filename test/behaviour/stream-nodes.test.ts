/**
 * Nodes as roles: a receiver-only node and a stream-only node (plus an API node for accounts)
 * share one Postgres, ClickHouse and NATS. A capture taken by one reaches an SSE client of the
 * other. Needs the server backend by nature: the embedded bus is in-process.
 */
import { describe, expect, test } from 'bun:test';
import { BACKENDS } from '../support/backends';
import { call, eventually, newAccount } from '../support/client';
import { useNodes } from '../support/nodes';
import { SseClient } from '../support/sse';
import type { Health } from '../../src/health';
import { parsePromText, sampleValue } from '../support/prometheus';

const METRICS_TOKEN = 'stream-nodes-metrics-token-0123456789';

describe.skipIf(!BACKENDS.includes('server'))('stream and receiver on separate nodes [server]', () => {
  const node = useNodes(['api', 'receiver', 'stream'], { METRICS_TOKEN });
  const api = () => node(0);
  const receiver = () => node(1);
  const streamer = () => node(2);

  async function endpoint() {
    const a = await newAccount(api().url);
    const ep = (await call(api().url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'nodes' } })).body;
    return { a, ep };
  }

  async function captureAt(slug: string, body: string): Promise<string> {
    const r = await fetch(`${receiver().url}/w/${slug}`, { method: 'POST', body });
    expect(r.status).toBe(200);
    return ((await r.json()) as { id: string }).id;
  }

  test('each node serves only its roles', async () => {
    const { a, ep } = await endpoint();
    // receiver-only: no API, no stream
    expect((await call(receiver().url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(404);
    expect((await SseClient.open(`${receiver().url}/api/stream/${ep.slug}`, { token: a.key })).response.status).toBe(404);
    // stream-only: the stream and /healthz, nothing else
    expect((await call<Health>(streamer().url, 'GET', '/healthz')).body.roles).toEqual(['stream']);
    expect((await call(streamer().url, 'GET', '/api/endpoints', { token: a.key })).status).toBe(404);
    expect((await fetch(`${streamer().url}/w/${ep.slug}`, { method: 'POST', body: 'x' })).status).toBe(404);
    // api-only: no stream
    expect((await SseClient.open(`${api().url}/api/stream/${ep.slug}`, { token: a.key })).response.status).toBe(404);
  });

  test('every role serves /metrics, each with its own parts: the receiver the capture log, the stream node its clients, the API node neither; /w/ refusals on every node', async () => {
    const scrape = async (url: string) => {
      const res = await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${METRICS_TOKEN}` } });
      expect(res.status).toBe(200);
      const parsed = parsePromText(await res.text());
      expect(parsed.problems).toEqual([]);
      return parsed;
    };
    const names = (p: ReturnType<typeof parsePromText>) => new Set(p.samples.map((s) => s.name));
    for (const [n, role] of [[0, 'api'], [1, 'receiver'], [2, 'stream']] as const) {
      const p = await scrape(node(n).url);
      for (const r of ['api', 'receiver', 'stream']) expect(sampleValue(p, 'hookcap_node_role', { role: r }), `${role} node, role ${r}`).toBe(r === role ? 1 : 0);
      expect(names(p).has('hookcap_captures_acknowledged_total'), role).toBe(role === 'receiver');
      expect(names(p).has('hookcap_shipper_backlog'), role).toBe(role === 'receiver');
      expect(names(p).has('hookcap_stream_clients'), role).toBe(role === 'stream');
      expect(sampleValue(p, 'hookcap_bus_connected'), role).toBe(1);
      // Every node answers /w/, so every node counts its refusals: one sent to a node without the
      // receiver is no_receiver there, a real slug or not.
      const refused = (q: typeof p) => sampleValue(q, 'hookcap_receiver_refusals_total', { reason: 'no_receiver', status: '404' });
      const before = refused(p);
      const sent = await fetch(`${node(n).url}/w/aaaaaaaaaaaa`, { method: 'POST', body: 'x' });
      expect(sent.status).toBe(404);
      expect(refused(await scrape(node(n).url)) - before, role).toBe(role === 'receiver' ? 0 : 1);
    }
  });

  test('a capture sent to the receiver node reaches an SSE client of the stream node', async () => {
    const { a, ep } = await endpoint();
    const other = await newAccount(api().url);
    expect((await SseClient.open(`${streamer().url}/api/stream/${ep.slug}`, { token: other.key })).response.status).toBe(404);
    const clients = await Promise.all([1, 2, 3].map(() => SseClient.live(`${streamer().url}/api/stream/${ep.slug}`, { token: a.key })));
    expect((await call<Health>(streamer().url, 'GET', '/healthz')).body.stream).toMatchObject({ topics: 1, clients: 3 });
    const id = await captureAt(ep.slug, '{"across":"nodes"}');
    for (const c of clients) await c.until(() => c.events.length === 1);
    for (const c of clients) c.close();
    const record = JSON.parse(clients[0]?.events[0]?.data ?? '');
    expect(record).toMatchObject({ id, endpointId: ep.id, body: '{"across":"nodes"}' });
    await eventually(async () => {
      const s = (await call<Health>(streamer().url, 'GET', '/healthz')).body.stream;
      return s?.topics === 0 && s.clients === 0;
    });
  });

  test('deleting the endpoint on the API node ends its streams on the stream node at once, with `event: end`', async () => {
    const { a, ep } = await endpoint();
    const clients = await Promise.all([1, 2].map(() => SseClient.live(`${streamer().url}/api/stream/${ep.slug}`, { token: a.key })));
    const id = await captureAt(ep.slug, 'before delete');
    for (const c of clients) await c.until(() => c.events.length === 1);
    const deletedAt = Date.now();
    expect((await call(api().url, 'DELETE', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(204);
    for (const c of clients) await c.until(() => c.ended, 3_000);
    for (const c of clients) {
      expect(c.endedAt - deletedAt).toBeLessThan(1_500);
      expect(c.events.map((e) => e.event)).toEqual(['request', 'end']);
      expect(JSON.parse(c.events[1]?.data ?? '')).toEqual({ reason: 'endpoint_deleted' });
      expect(c.events[1]?.id).toBe(id);
    }
    await eventually(async () => {
      const s = (await call<Health>(streamer().url, 'GET', '/healthz')).body.stream;
      return s?.topics === 0 && s.clients === 0;
    });
    expect((await SseClient.open(`${streamer().url}/api/stream/${ep.slug}`, { token: a.key })).response.status).toBe(404);
  });

  test('deleting an API key, or logging out, on the API node ends its streams on the stream node at once; the next capture reaches only the others', async () => {
    const { a, ep } = await endpoint();
    const url = `${streamer().url}/api/stream/${ep.slug}`;
    const extra = (await call(api().url, 'POST', '/api/api-keys', { token: a.session, body: { name: 'to revoke' } })).body;
    const login = await call(api().url, 'POST', '/api/auth/login', { body: { email: a.email, password: 'correct horse battery' } });
    expect(login.status).toBe(200);
    const byRevokedKey = await SseClient.live(url, { token: extra.key });
    const bySession = await SseClient.live(url, { token: login.body.token });
    const byOtherKey = await SseClient.live(url, { token: a.key });
    const first = await captureAt(ep.slug, 'before');
    for (const c of [byRevokedKey, bySession, byOtherKey]) await c.until(() => c.events.length === 1);

    let at = Date.now();
    expect((await call(api().url, 'DELETE', `/api/api-keys?id=${extra.id}`, { token: a.session })).status).toBe(204);
    await byRevokedKey.until(() => byRevokedKey.ended, 3_000);
    expect(byRevokedKey.endedAt - at).toBeLessThan(1_500);
    at = Date.now();
    expect((await call(api().url, 'POST', '/api/auth/logout', { token: login.body.token })).status).toBe(204);
    await bySession.until(() => bySession.ended, 3_000);
    expect(bySession.endedAt - at).toBeLessThan(1_500);
    for (const c of [byRevokedKey, bySession]) {
      expect(c.events.map((e) => e.event)).toEqual(['request', 'end']);
      expect(JSON.parse(c.events[1]?.data ?? '')).toEqual({ reason: 'credential_revoked' });
      expect(c.events[1]?.id).toBe(first);
    }
    const second = await captureAt(ep.slug, 'after');
    await byOtherKey.until(() => byOtherKey.events.length === 2);
    expect(byOtherKey.ids).toEqual([first, second]);
    expect(byOtherKey.ended).toBe(false);
    byOtherKey.close();
    expect((await SseClient.open(url, { token: extra.key })).response.status).toBe(401);
    expect((await SseClient.open(url, { token: login.body.token })).response.status).toBe(401);
  });

  test('Last-Event-ID on the stream node catches up from ClickHouse, then goes live', async () => {
    const { a, ep } = await endpoint();
    const ids: string[] = [];
    for (let i = 0; i < 4; i++) ids.push(await captureAt(ep.slug, `n=${i}`));
    await eventually(async () => (await call(api().url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body.length === 4);
    const s = await SseClient.live(`${streamer().url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: ids[0] });
    await s.until(() => s.events.length === 3);
    ids.push(await captureAt(ep.slug, 'live'));
    await s.until(() => s.events.length === 4);
    await Bun.sleep(300);
    s.close();
    expect(s.ids).toEqual(ids.slice(1));
  });
});
