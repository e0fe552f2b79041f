/**
 * hookcap/client against a real server on both backends, imported by its package name as users
 * import it. In the first block the stream is ended by the server every 1.5 s (STREAM_MAX_MS) so
 * reconnects happen.
 */
import { afterAll, expect, test } from 'bun:test';
import { createClient, HookcapError, type Capture, type HookcapClient } from 'hookcap/client';
import { bodyBytes } from '../../src/model/render';
import { joinTeam, paidTeam, TEAMS_ENV } from '../behaviour/teams-support';
import { call, eventually, newAccount } from '../support/client';
import { startHookReceiver } from '../support/hook-receiver';
import { describeBackends } from '../support/suite';

const target = startHookReceiver();
afterAll(() => target.stop());

/** A client with the key of a new account. */
async function clientOf(url: string): Promise<HookcapClient> {
  const a = await newAccount(url);
  return createClient({ apiUrl: url, key: a.key });
}

/** Sends one capture; its id. */
async function sendTo(url: string, slug: string, path: string, body?: string | Uint8Array): Promise<string> {
  const r = await fetch(`${url}/w/${slug}${path}`, { method: 'POST', body });
  return r.headers.get('x-request-id') ?? '';
}

describeBackends(
  'hookcap/client',
  (h) => {
    const client = () => clientOf(h.url);
    const send = (slug: string, path: string, body?: string | Uint8Array) => sendTo(h.url, slug, path, body);

    test('endpoints, requests, search, count, one export; errors are HookcapError with the API code', async () => {
      const c = await client();
      const ep = await c.endpoints.create('client');
      expect((await c.endpoints.list()).map((e) => e.slug)).toEqual([ep.slug]);
      expect((await c.endpoints.get(ep.slug)).url).toBe(`${h.url}/w/${ep.slug}`);
      const id = await send(ep.slug, '/a?x=1', 'hello client');
      const wait = await c.waitForRequest(ep.slug, (r) => r.id === id, { since: Date.now() - 60_000, timeout: 10_000 });
      expect(wait.body).toBe('hello client');
      expect((await c.requests.get(id)).path).toBe('/a');
      expect(await c.endpoints.activity()).toEqual([{ slug: ep.slug, count: 1, lastReceivedAt: wait.receivedAt }]);
      expect(await c.count({ slug: ep.slug, q: 'HELLO' })).toBe(1);
      expect((await c.search({ slug: ep.slug, from: '1h' })).map((r) => r.id)).toEqual([id]);
      // header: one string or several (all must hold); fetch sends user-agent Bun/…, no content-type.
      expect(await c.count({ slug: ep.slug, header: 'User-Agent:bun/' })).toBe(1);
      expect((await c.search({ slug: ep.slug, header: ['host', 'user-agent:BUN'] })).map((r) => r.id)).toEqual([id]);
      expect(await c.count({ header: ['host', 'content-type'] })).toBe(0);
      expect(await c.count({ header: [] })).toBe(1);
      expect(await c.count({ header: 'x a' }).catch((e: unknown) => e)).toMatchObject({ status: 400, code: 'validation' });
      expect((await c.requests.page(ep.slug, { limit: 1 })).items.map((r) => r.id)).toEqual([id]);
      const curl = new TextDecoder().decode(await c.requests.export(id, 'curl'));
      expect(curl).toContain('curl');
      const err = await c.requests.get('req_00000000000000000000000000').catch((e: unknown) => e);
      expect(err).toBeInstanceOf(HookcapError);
      expect(err).toMatchObject({ status: 404, code: 'not_found' });
      const bad = await createClient({ apiUrl: h.url, key: 'svc_nope' }).endpoints.list().catch((e: unknown) => e);
      expect(bad).toMatchObject({ status: 401, code: 'unauthorized' });
      const down = await createClient({ apiUrl: 'http://127.0.0.1:9', key: 'k' }).endpoints.list().catch((e: unknown) => e);
      expect(down).toMatchObject({ status: 0, code: 'network' });
      await c.endpoints.delete(ep.slug);
      expect(await c.endpoints.list()).toEqual([]);
    });

    test('endpoints.create takes expiresIn; expiresAt says when; update moves or clears it; a bad value is a validation HookcapError', async () => {
      const c = await client();
      const before = Date.now();
      const ep = await c.endpoints.create('ci run', { expiresIn: 3600 });
      expect(ep.expiresAt).toBe(ep.createdAt + 3600_000);
      expect(ep.createdAt).toBeGreaterThanOrEqual(before - 1000);
      expect((await c.endpoints.list()).map((e) => e.expiresAt)).toEqual([ep.expiresAt]);
      expect((await c.endpoints.create('kept')).expiresAt).toBeNull();
      expect((await c.endpoints.update(ep.slug, { expiresIn: 120 })).expiresAt ?? 0).toBeLessThan(ep.expiresAt ?? 0);
      expect((await c.endpoints.update(ep.slug, { expiresIn: null })).expiresAt).toBeNull();
      const bad = await c.endpoints.create('too short', { expiresIn: 10 }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(HookcapError);
      expect(bad).toMatchObject({ status: 400, code: 'validation' });
      expect((bad as HookcapError).message).toStartWith('expiresIn');
      expect(await c.endpoints.list()).toHaveLength(2);
    });

    test('the raw query comes back exactly as sent from list, page, get, search, the stream (live and resumed) and every export', async () => {
      const c = await client();
      const ep = await c.endpoints.create('raw query');
      const raw = 'y=%20a&a=1&a=2&b&c=&d=%zz';
      const stop = new AbortController();
      const deadline = setTimeout(() => stop.abort(), 30_000);
      const live: Capture[] = [];
      const stream = c.stream(ep.slug, { signal: stop.signal, onOpen: () => void send(ep.slug, `/q?${raw}`, 'x') });
      for await (const r of stream) {
        live.push(r);
        stop.abort();
      }
      clearTimeout(deadline);
      const id = live[0]?.id ?? '';
      expect(live.map((r) => r.query)).toEqual([raw]);
      await c.waitForRequest(ep.slug, (r) => r.id === id, { since: 0, timeout: 10_000 });
      const got = await c.requests.get(id);
      expect(got.query).toBe(raw);
      // The parsed form is kept as before.
      expect(got.queryParams).toEqual({ y: ' a', a: ['1', '2'], b: '', c: '', d: '%zz' });
      // The answer by id also names the endpoint (docs/api.md); the record itself is the stream's.
      const { endpointSlug, endpointUrl, ...record } = got as Capture & { endpointSlug?: string; endpointUrl?: string };
      expect(endpointSlug).toBe(ep.slug);
      expect(endpointUrl).toContain(`/w/${ep.slug}`);
      expect(live[0]).toEqual(record);
      expect((await c.requests.list(ep.slug)).map((r) => r.query)).toEqual([raw]);
      expect((await c.requests.page(ep.slug, { limit: 5 })).items.map((r) => r.query)).toEqual([raw]);
      expect((await c.search({ slug: ep.slug, q: '/q' })).map((r) => r.query)).toEqual([raw]);
      const resumed: Capture[] = [];
      for await (const r of c.stream(ep.slug, { since: 0, signal: AbortSignal.timeout(20_000) })) {
        resumed.push(r);
        break;
      }
      expect(resumed.map((r) => r.query)).toEqual([raw]);
      const records: Capture[] = [];
      for await (const r of c.exportRecords(ep.slug, { from: 0 })) records.push(r);
      expect(records.map((r) => r.query)).toEqual([raw]);

      const url = `${h.url}/w/${ep.slug}/q?${raw}`;
      const text = async (format: 'curl' | 'har' | 'raw') => new TextDecoder().decode(await c.requests.export(id, format));
      expect(await text('curl')).toContain(`'${url}'`);
      expect(JSON.parse(await text('har')).log.entries[0].request.url).toBe(url);
      expect((await text('raw')).split('\r\n')[0]).toBe(`POST /w/${ep.slug}/q?${raw} HTTP/1.1`);
      const har = JSON.parse(await new Response((await c.export(ep.slug, { format: 'har' })).body).text());
      expect(har.log.entries.map((e: { request: { url: string } }) => e.request.url)).toEqual([url]);
    });

    test('exportRecords walks every capture oldest first; export streams a HAR file', async () => {
      const c = await client();
      const ep = await c.endpoints.create('export');
      const ids: string[] = [];
      for (let i = 0; i < 30; i++) ids.push(await send(ep.slug, `/n/${i}`, new Uint8Array([i, 0xff])));
      await c.waitForRequest(ep.slug, (r) => r.id === ids.at(-1), { since: 0 });
      const seen: Capture[] = [];
      for await (const r of c.exportRecords(ep.slug, { from: 0 })) seen.push(r);
      expect(seen.map((r) => r.id)).toEqual(ids);
      expect(bodyBytes(seen[7] as Capture)).toEqual(new Uint8Array([7, 0xff]));
      const har = await c.export(ep.slug, { format: 'har', q: '/n/2' });
      expect(har.filename).toMatch(/^hookcap-.*\.har$/);
      const doc = JSON.parse(await new Response(har.body).text());
      expect(doc.log.entries.length).toBe(11); // /n/2 and /n/20–29
    });

    test('stream: resumes across the server ending it, each capture once and in order; after and since', async () => {
      const c = await client();
      const ep = await c.endpoints.create('stream');
      const before = await send(ep.slug, '/before');
      await c.waitForRequest(ep.slug, (r) => r.id === before, { since: 0 });
      const stop = new AbortController();
      // A missed capture fails the comparison below rather than hanging the test.
      const deadline = setTimeout(() => stop.abort(), 40_000);
      let opens = 0;
      const stream = c.stream(ep.slug, { signal: stop.signal, onOpen: () => opens++ });
      const got: string[] = [];
      const sent: string[] = [];
      const reading = (async () => {
        for await (const r of stream) {
          got.push(r.id);
          if (got.length === 12) stop.abort();
        }
      })();
      // A stream without after/since starts live when it opens: the first capture waits for that
      // (a loaded CI run sent it before the stream had connected, and it was rightly not streamed).
      await eventually(async () => opens >= 1, 10_000);
      // Spread over more than two server-side stream lifetimes (1.5 s each).
      for (let i = 0; i < 12; i++) {
        sent.push(await send(ep.slug, `/s/${i}`));
        await Bun.sleep(300);
      }
      await reading;
      clearTimeout(deadline);
      expect(got).toEqual(sent);
      expect(opens).toBeGreaterThanOrEqual(3);
      expect(stream.lastEventId).toBe(sent.at(-1) ?? null);

      const replayed: string[] = [];
      for await (const r of c.stream(ep.slug, { after: sent[8] ?? '', signal: AbortSignal.timeout(30_000) })) {
        replayed.push(r.id);
        if (replayed.length === 3) break;
      }
      expect(replayed).toEqual(sent.slice(9));
      const fromStart: string[] = [];
      for await (const r of c.stream(ep.slug, { since: 0, signal: AbortSignal.timeout(30_000) })) {
        fromStart.push(r.id);
        if (fromStart.length === 2) break;
      }
      expect(fromStart).toEqual([before, sent[0] ?? '']);
    });

    test('stream onResume: after a gap the caller learns how many captures wait and may resume after another id', async () => {
      const c = await client();
      const ep = await c.endpoints.create('gap');
      const stop = new AbortController();
      const deadline = setTimeout(() => stop.abort(), 40_000);
      const resumes: { after: string; waiting: number; disconnectedAt: number }[] = [];
      const stream = c.stream(ep.slug, {
        signal: stop.signal,
        onResume: async ({ after, waiting, disconnectedAt }) => {
          const n = await waiting();
          resumes.push({ after, waiting: n, disconnectedAt });
          // Over 2 waiting: skip to the newest stored one, as listen's --backlog skip does.
          if (n > 2) return c.newestId(ep.slug);
        },
      });
      const it = stream[Symbol.asyncIterator]();
      const next = it.next();
      await Bun.sleep(500);
      const first = await send(ep.slug, '/first');
      expect((await next).value?.id).toBe(first);
      // The caller stops reading (a laptop asleep): the server ends the stream (1.5 s) meanwhile,
      // then three captures arrive with no stream open for it.
      await Bun.sleep(2_000);
      const wentAt = Date.now();
      const missed = [await send(ep.slug, '/m1'), await send(ep.slug, '/m2'), await send(ep.slug, '/m3')];
      for (let i = 0; i < 50 && (await c.count({ slug: ep.slug })) < 4; i++) await Bun.sleep(200);
      // Reading again: the reconnect asks first, is told 3 wait after `first`, and skips them.
      const after = it.next();
      await Bun.sleep(2_000);
      const live = await send(ep.slug, '/live');
      expect((await after).value?.id).toBe(live);
      const gap = resumes.find((r) => r.waiting === 3);
      expect(gap?.after).toBe(first);
      // When the loss was noticed: a caller that was not reading notices it when it reads again.
      expect(gap?.disconnectedAt ?? 0).toBeGreaterThanOrEqual(wentAt);
      expect(stream.lastEventId).toBe(live);
      stop.abort();
      clearTimeout(deadline);
      await it.return?.();
      // Skipped, not lost: a stream from `first` gets them.
      const all: string[] = [];
      for await (const r of c.stream(ep.slug, { after: first, signal: AbortSignal.timeout(20_000) })) {
        all.push(r.id);
        if (all.length === 4) break;
      }
      expect(all).toEqual([...missed, live]);
    });

    test('stream ends with endpoint_deleted; a stream of an unknown slug throws not_found', async () => {
      const c = await client();
      const ep = await c.endpoints.create('gone');
      const err = (async () => {
        try {
          for await (const _ of c.stream(ep.slug)) {
            // none expected
          }
        } catch (e) {
          return e;
        }
        return null;
      })();
      await Bun.sleep(500);
      await c.endpoints.delete(ep.slug);
      expect(await err).toMatchObject({ code: 'endpoint_deleted' });
      const missing = await (async () => {
        try {
          for await (const _ of c.stream('nosuchslug22')) {
            // none
          }
        } catch (e) {
          return e;
        }
        return null;
      })();
      expect(missing).toMatchObject({ status: 404, code: 'not_found' });
    });

    test('a stream read through a team ends with access_revoked (404) when the member is removed; it does not reconnect', async () => {
      const [owner, member] = await Promise.all([newAccount(h.url), newAccount(h.url)]);
      const team = await paidTeam(h.url, owner, 5, 'Client team');
      await joinTeam(h.url, owner, team, member);
      const ep = await createClient({ apiUrl: h.url, key: owner.key }).endpoints.create('team stream');
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } })).status).toBe(201);
      const c = createClient({ apiUrl: h.url, key: member.key });
      let opened = 0;
      const err = (async () => {
        try {
          for await (const _ of c.stream(ep.slug, { onOpen: () => void opened++ })) {
            // none expected
          }
        } catch (e) {
          return e;
        }
        return null;
      })();
      while (opened === 0) await Bun.sleep(20);
      expect((await call(h.url, 'DELETE', `/api/teams/${team.id}/members/${member.userId}`, { token: owner.key })).status).toBe(204);
      const e = await err;
      expect(e).toBeInstanceOf(HookcapError);
      expect(e).toMatchObject({ status: 404, code: 'access_revoked' });
      expect((e as Error).message).toContain('through a team ended');
      expect(opened).toBe(1);
    });
  },
  { STREAM_MAX_MS: '1500', OUTBOUND_ALLOW: '127.0.0.1', ...TEAMS_ENV },
);

// waitForRequest and replay on a server that keeps its streams (STREAM_MAX_MS at its default): a
// wait resumes after a capture that never went live on the node, so every reconnect starts with a
// catch-up that waits for the shipper (SHIP_MAX_AGE_MS + 500 ms) before reading the store. On a
// loaded CI machine a 1.5 s stream could end inside that wait each time, the wait timing out with
// the capture stored; what ending streams do to a wait is the stream tests' concern above.
describeBackends(
  'hookcap/client, waiting',
  (h) => {
    const client = () => clientOf(h.url);
    const send = (slug: string, path: string, body?: string | Uint8Array) => sendTo(h.url, slug, path, body);

    test('waitForRequest: a request sent after the call is found, an older one is not; timeout', async () => {
      const c = await client();
      const ep = await c.endpoints.create('wait');
      const old = await send(ep.slug, '/old', JSON.stringify({ type: 'invoice.paid' }));
      await c.waitForRequest(ep.slug, (r) => r.id === old, { since: 0 });
      const waiting = c.waitForRequest(ep.slug, (r) => r.body.includes('invoice.paid'), { timeout: 15_000 });
      await Bun.sleep(200);
      await send(ep.slug, '/other', JSON.stringify({ type: 'customer.created' }));
      const fresh = await send(ep.slug, '/new', JSON.stringify({ type: 'invoice.paid' }));
      expect((await waiting).id).toBe(fresh);
      const started = Date.now();
      const late = await c.waitForRequest(ep.slug, () => false, { timeout: 1000 }).catch((e: unknown) => e);
      expect(late).toMatchObject({ code: 'timeout' });
      expect(Date.now() - started).toBeLessThan(10_000);
    });

    test('replay and sendTest', async () => {
      const c = await client();
      const ep = await c.endpoints.create('replay');
      const sent = await c.sendTest(ep.slug, { body: '{"hello":"replay"}', headers: { 'x-test': '1' } });
      expect(sent.response.status).toBe(200);
      const id = sent.id ?? '';
      await c.waitForRequest(ep.slug, (r) => r.id === id, { since: 0 });
      const result = await c.replay(id, { url: `${target.url}/client-replay`, headers: { 'x-more': 'yes' } });
      expect(result.status).toBe(200);
      const got = target.received('/client-replay')[0];
      expect(got?.body).toBe('{"hello":"replay"}');
      expect(got?.headers['x-test']).toBe('1');
      expect(got?.headers['x-more']).toBe('yes');
      // An address the server does not send to: the API's own code, for the caller to offer `hookcap replay`.
      const refused = await c.replay(id, { url: 'http://10.1.2.3/hook' }).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(HookcapError);
      expect(refused).toMatchObject({ status: 400, code: 'address_not_public' });
    });
  },
  { OUTBOUND_ALLOW: '127.0.0.1' },
);
