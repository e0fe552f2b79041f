/**
 * Finding 2: one anonymous capture with query or header names like `toString`, `constructor` or
 * `__proto__` must neither break an endpoint's reads (list, page, search, count, one, team
 * members' views, stream catch-up) nor lose those keys: every key is stored and returned as sent.
 */
import { expect, test } from 'bun:test';
import type { Capture } from '../../src/model/capture';
import { call, eventually } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import { joinTeam, paidTeam, TEAMS_ENV } from '../behaviour/teams-support';
import { accountWithEndpoint, captured, portOf, rawHttp, rawRequest } from './support';

const PROTO_NAMES = ['toString', 'constructor', 'hasOwnProperty', 'valueOf', '__proto__', '__defineGetter__', 'isPrototypeOf'];
const QUERY = `${PROTO_NAMES.map((n) => `${encodeURIComponent(n)}=${n.length}`).join('&')}&twice=1&twice=2&toString=again`;

describeBackends(
  'security: hostile query and header names',
  (h) => {
    /** Sends the hostile capture over a raw socket (fetch would refuse some header names) and returns its id. */
    async function hostileCapture(slug: string): Promise<string> {
      // Pairs, not an object literal: assigning "__proto__" on {} would drop it here already.
      const headers = PROTO_NAMES.map((n): [string, string] => [n, `h-${n}`]);
      const ex = await rawHttp(portOf(h.url), rawRequest('POST', `/w/${slug}/hostile?${QUERY}`, { headers, body: 'payload' }));
      expect(ex.responses[0]?.status).toBe(200);
      return JSON.parse(ex.responses[0]?.body ?? '{}').id;
    }

    function expectHostileRecord(rec: Capture | undefined): void {
      if (!rec) throw new Error('no record');
      const q = rec.queryParams;
      expect(q['toString']).toEqual(['8', 'again']);
      for (const n of PROTO_NAMES.filter((n) => n !== 'toString')) expect({ n, v: q[n] }).toEqual({ n, v: String(n.length) });
      expect(q.twice).toEqual(['1', '2']);
      // Every key as an own property, including __proto__ (JSON.parse makes it one).
      expect(Object.keys(q).sort()).toEqual([...PROTO_NAMES, 'twice'].sort());
      for (const n of PROTO_NAMES) expect({ n, v: rec.headers[n.toLowerCase()] }).toEqual({ n, v: `h-${n}` });
    }

    test('the capture is stored with every key, and every read of the endpoint still answers', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const other = await call(h.url, 'POST', '/api/endpoints', { token: account.key, body: { name: 'second' } });
      await fetch(`${h.url}/w/${other.body.slug}/plain`, { method: 'POST', body: 'fine' });
      const id = await hostileCapture(endpoint.slug);

      const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
      expect(rec?.id).toBe(id);
      expectHostileRecord(rec);

      const page = await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}/requests/paginated?limit=10`, { token: account.key });
      expect(page.status).toBe(200);
      expectHostileRecord(page.body.items[0]);
      const one = await call(h.url, 'GET', `/api/requests/${id}`, { token: account.key });
      expect(one.status).toBe(200);
      expectHostileRecord(one.body);
      const search = await call(h.url, 'GET', `/api/search/requests?slug=${endpoint.slug}&q=again`, { token: account.key });
      expect(search.status).toBe(200);
      expect(search.body.length).toBe(1);
      expectHostileRecord(search.body[0]);
      // Search over all of the owner's endpoints reads the hostile row next to the others.
      const all = await eventually(async () => {
        const r = await call(h.url, 'GET', '/api/search/requests', { token: account.key });
        return r.status === 200 && r.body.length === 2 ? r : null;
      });
      expect(all.body.map((r) => r.path).sort()).toEqual(['/hostile', '/plain']);
      expect((await call(h.url, 'GET', '/api/search/requests/count?q=h-constructor', { token: account.key })).body).toEqual({ count: 1 });
    });

    test('a team member reads the shared endpoint and searches it', async () => {
      const { account: owner, endpoint } = await accountWithEndpoint(h.url);
      const { account: member } = await accountWithEndpoint(h.url);
      const team = await paidTeam(h.url, owner);
      await joinTeam(h.url, owner, team, member);
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: endpoint.id } })).status).toBe(201);
      await hostileCapture(endpoint.slug);
      await captured(h.url, owner.key, endpoint.slug, 1);
      const list = await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}/requests`, { token: member.key });
      expect(list.status).toBe(200);
      expectHostileRecord(list.body[0]);
      const search = await call(h.url, 'GET', '/api/search/requests', { token: member.key });
      expect(search.status).toBe(200);
      expect(search.body.length).toBe(1);
    });

    test('Last-Event-ID catch-up sends the hostile capture and what followed it', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const first = await fetch(`${h.url}/w/${endpoint.slug}/first`, { method: 'POST', body: '1' });
      const firstId = ((await first.json()) as { id: string }).id;
      const hostileId = await hostileCapture(endpoint.slug);
      await fetch(`${h.url}/w/${endpoint.slug}/after`, { method: 'POST', body: '3' });
      await captured(h.url, account.key, endpoint.slug, 3);
      const sse = await SseClient.open(`${h.url}/api/stream/${endpoint.slug}`, { token: account.key, lastEventId: firstId });
      try {
        expect(sse.response.status).toBe(200);
        await sse.until(() => sse.events.length >= 2);
        expect(sse.ids[0]).toBe(hostileId);
        expectHostileRecord(JSON.parse(sse.events[0]?.data ?? '{}'));
        expect(JSON.parse(sse.events[1]?.data ?? '{}').path).toBe('/after');
        expect(sse.ended).toBe(false);
      } finally {
        sse.close();
      }
    });

    test('a header named __proto__ given to send-test or replay is a 400, never sent without it', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const sent = await fetch(`${h.url}/w/${endpoint.slug}/original`, { method: 'POST', body: 'x' });
      const id = ((await sent.json()) as { id: string }).id;
      // Raw JSON text: an object literal would lose "__proto__" before it is sent.
      const post = (path: string, raw: string) => call<{ error: string; code: string }>(h.url, 'POST', path, { token: account.key, headers: { 'content-type': 'application/json' }, raw });
      const refusals = [
        await post('/api/send-test', `{"slug":"${endpoint.slug}","headers":{"__proto__":"v","x-other":"w"}}`),
        await post(`/api/requests/${id}/replay`, '{"url":"http://127.0.0.1:1/","headers":{"__proto__":"v"}}'),
      ];
      for (const r of refusals) {
        expect([r.status, r.body.code]).toEqual([400, 'validation']);
        expect(r.body.error).toBe('headers.__proto__: a key named __proto__ cannot be kept (it is a JavaScript prototype key)');
      }
      // Nothing was sent: the endpoint still holds only the original capture.
      expect((await captured(h.url, account.key, endpoint.slug, 1)).map((c) => c.path)).toEqual(['/original']);
    });
  },
  TEAMS_ENV,
);
