import { expect, test } from 'bun:test';
import { call, eventually, newAccount } from '../support/client';
import { SseClient } from '../support/sse';
import { describeBackends, type Harness } from '../support/suite';
import type { Health } from '../../src/health';

async function endpoint(h: Harness) {
  const a = await newAccount(h.url);
  const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'live' } })).body;
  return { a, ep };
}

async function capture(h: Harness, slug: string, body: string, path = '/'): Promise<string> {
  const r = await fetch(`${h.url}/w/${slug}${path}`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } });
  expect(r.status).toBe(200);
  return ((await r.json()) as { id: string }).id;
}

async function streamStats(h: Harness): Promise<{ topics: number; clients: number }> {
  return (await call<Health>(h.url, 'GET', '/healthz')).body.stream ?? { topics: -1, clients: -1 };
}

const listed = (h: Harness, slug: string, token: string, n: number) =>
  eventually(async () => {
    const r = await call(h.url, 'GET', `/api/endpoints/${slug}/requests?limit=1000`, { token });
    return r.body.length === n ? r.body : null;
  });

describeBackends(
  'live stream',
  (h) => {
    test('a capture arrives as `event: request` with its id and the record', async () => {
      const { a, ep } = await endpoint(h);
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      expect(s.response.headers.get('content-type')).toStartWith('text/event-stream');
      const id = await capture(h, ep.slug, '{"hello":"world"}', '/hooks/x?y=1');
      await s.until(() => s.events.length === 1);
      s.close();
      const [ev] = s.events;
      expect(ev?.event).toBe('request');
      expect(ev?.id).toBe(id);
      const record = JSON.parse(ev?.data ?? '');
      expect(record).toMatchObject({ id, endpointId: ep.id, method: 'POST', path: '/hooks/x', body: '{"hello":"world"}', queryParams: { y: '1' } });
      // The live record is the record the API lists.
      const [stored] = await listed(h, ep.slug, a.key, 1);
      expect(record).toEqual(stored);
    });

    test('a capture too large for one bus message (900 KB binary, ~1.2 MB as base64) is streamed in full', async () => {
      const { a, ep } = await endpoint(h);
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      const body = new Uint8Array(900_000).map((_, i) => (i * 7919) & 255);
      const r = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body });
      expect(r.status).toBe(200);
      const { id } = (await r.json()) as { id: string };
      const small = await capture(h, ep.slug, 'after');
      await s.until(() => s.events.length === 2, 15_000);
      s.close();
      const big = s.events.find((e) => e.id === id);
      expect(JSON.parse(big?.data ?? '{}')).toMatchObject({ id, bodyEncoding: 'base64', size: body.length, body: Buffer.from(body).toString('base64') });
      expect(s.ids).toContain(small);
    });

    test('every client of a slug gets every capture in order, over one subscription; leaving unsubscribes', async () => {
      const { a, ep } = await endpoint(h);
      const before = await streamStats(h);
      const clients = await Promise.all(Array.from({ length: 5 }, () => SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key })));
      expect(await streamStats(h)).toMatchObject({ topics: before.topics + 1, clients: before.clients + 5 });
      const ids: string[] = [];
      for (let i = 0; i < 10; i++) ids.push(await capture(h, ep.slug, `n=${i}`));
      for (const c of clients) await c.until(() => c.events.length === 10);
      for (const c of clients) expect(c.ids).toEqual(ids);
      for (const c of clients) c.close();
      await eventually(async () => {
        const now = await streamStats(h);
        return now.topics === before.topics && now.clients === before.clients;
      });
    });

    test('sends a :ping comment every STREAM_PING_MS', async () => {
      const { a, ep } = await endpoint(h);
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      await s.until(() => s.comments.filter((c) => c === 'ping').length >= 2, 3_000);
      s.close();
    });

    test('auth: 401 without credentials, 404 for another account or an unknown slug, the session cookie works', async () => {
      const { a, ep } = await endpoint(h);
      const other = await endpoint(h);
      expect((await SseClient.open(`${h.url}/api/stream/${ep.slug}`)).response.status).toBe(401);
      expect((await SseClient.open(`${h.url}/api/stream/${ep.slug}`, { token: 'svc_nope' })).response.status).toBe(401);
      const denied = await SseClient.open(`${h.url}/api/stream/${ep.slug}`, { token: other.a.key });
      expect(denied.response.status).toBe(404);
      expect(((await denied.response.json()) as { error: unknown }).error).toBeString();
      expect((await SseClient.open(`${h.url}/api/stream/zzzzzzzzzzzz`, { token: a.key })).response.status).toBe(404);
      // A browser's EventSource cannot set headers: the session cookie authenticates it.
      const browser = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { cookie: `session=${a.session}` });
      // The other account's own stream never sees this endpoint's captures.
      const theirs = await SseClient.live(`${h.url}/api/stream/${other.ep.slug}`, { token: other.a.key });
      const id = await capture(h, ep.slug, 'private');
      await browser.until(() => browser.events.length === 1);
      expect(browser.ids).toEqual([id]);
      await Bun.sleep(200);
      expect(theirs.events).toEqual([]);
      browser.close();
      theirs.close();
    });

    test('an unclaimed agent key gets 403 (SPEC 3.2)', async () => {
      const { ep } = await endpoint(h);
      const reg = await call(h.url, 'POST', '/api/agent/auth', {
        body: { type: 'anonymous', requested_credential_type: 'api_key', client_name: 'stream-test' },
      });
      expect(reg.body.credential).toStartWith('svc_');
      const s = await SseClient.open(`${h.url}/api/stream/${ep.slug}`, { token: reg.body.credential });
      expect(s.response.status).toBe(403);
    });

    test('Last-Event-ID: the missed captures from the store first, then live, each once', async () => {
      const { a, ep } = await endpoint(h);
      const ids: string[] = [];
      for (let i = 0; i < 5; i++) ids.push(await capture(h, ep.slug, `n=${i}`));
      await listed(h, ep.slug, a.key, 5);
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: ids[1] });
      await s.until(() => s.events.length === 3);
      ids.push(await capture(h, ep.slug, 'live'));
      await s.until(() => s.events.length === 4);
      await Bun.sleep(300);
      s.close();
      expect(s.ids).toEqual(ids.slice(2));
      expect(s.events.every((e) => e.event === 'request' && JSON.parse(e.data).id === e.id)).toBe(true);
    });

    test('captures sent while a client reconnects are neither lost nor doubled', async () => {
      const { a, ep } = await endpoint(h);
      let first = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      const sent: string[] = [];
      let sending = true;
      const sender = (async () => {
        while (sending) {
          sent.push(await capture(h, ep.slug, `n=${sent.length}`));
          await Bun.sleep(5);
        }
      })();
      await first.until(() => first.events.length >= 10);
      first.close();
      const resumeAfter = first.ids.at(-1) ?? '';
      const second = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: resumeAfter });
      await Bun.sleep(800);
      sending = false;
      await sender;
      const last = sent.at(-1);
      await second.until(() => second.ids.includes(last ?? '-'));
      await Bun.sleep(300);
      second.close();
      const cut = sent.indexOf(resumeAfter);
      expect(cut).toBeGreaterThanOrEqual(9);
      // Exactly what was sent after the client's last event, once each, in order.
      expect(second.ids).toEqual(sent.slice(cut + 1));
    });

    test('a reconnect does not replay cleared captures', async () => {
      const { a, ep } = await endpoint(h);
      const first = await capture(h, ep.slug, 'a');
      await capture(h, ep.slug, 'b');
      await listed(h, ep.slug, a.key, 2);
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
      const after = await capture(h, ep.slug, 'c');
      await listed(h, ep.slug, a.key, 1);
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: first });
      await s.until(() => s.events.length >= 1);
      await Bun.sleep(300);
      s.close();
      expect(s.ids).toEqual([after]);
    });

    test('a long catch-up is read page by page, in store order, each once', async () => {
      const { a, ep } = await endpoint(h);
      const ids: string[] = [];
      // More than one catch-up page (500), sent 50 at a time.
      for (let i = 0; i < 1100; i += 50) {
        ids.push(...(await Promise.all(Array.from({ length: 50 }, (_, j) => capture(h, ep.slug, `n=${i + j}`)))));
      }
      await listed(h, ep.slug, a.key, 1000);
      await Bun.sleep(300);
      // Capture ids sort in (receivedAt, id) order: the store's order.
      const ordered = [...ids].sort();
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: ordered[0] });
      await s.until(() => s.events.length >= ordered.length - 1, 20_000);
      await Bun.sleep(300);
      s.close();
      expect(s.ids).toEqual(ordered.slice(1));
    });

    test('a Last-Event-ID that is not a capture id → 400', async () => {
      const { a, ep } = await endpoint(h);
      const s = await SseClient.open(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: 'nonsense' });
      expect(s.response.status).toBe(400);
      expect(((await s.response.json()) as { code: unknown }).code).toBe('validation');
    });
  },
  { STREAM_PING_MS: '300' },
);

describeBackends(
  'live stream, reconnect before the store has the capture',
  (h) => {
    // The shipper holds captures for up to SHIP_MAX_AGE_MS before they reach the store; a client
    // reconnecting within that time must still get what it missed.
    test('a capture acknowledged just before a reconnect is delivered once', async () => {
      const { a, ep } = await endpoint(h);
      const s1 = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      const seen = await capture(h, ep.slug, 'seen');
      await s1.until(() => s1.events.length === 1);
      s1.close();
      const missed = await capture(h, ep.slug, 'missed');
      const s2 = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: seen });
      // Not in the store yet: only the catch-up's wait for the shipper can find it.
      const stored = await call(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
      expect(stored.status, stored.text).toBe(200);
      expect(stored.body.map((r: { id: string }) => r.id)).not.toContain(missed);
      await s2.until(() => s2.events.length === 1, 5_000);
      const live = await capture(h, ep.slug, 'live');
      await s2.until(() => s2.events.length === 2);
      await Bun.sleep(200);
      s2.close();
      expect(s2.ids).toEqual([missed, live]);
    });
  },
  { SHIP_MAX_AGE_MS: '800' },
);

describeBackends(
  'live stream, maximum duration',
  (h) => {
    test('the stream ends after STREAM_MAX_MS and leaves no subscription behind', async () => {
      const { a, ep } = await endpoint(h);
      const opened = Date.now();
      const s = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      await s.until(() => s.ended, 5_000);
      expect(s.endedAt - opened).toBeGreaterThanOrEqual(1_400);
      expect(await streamStats(h)).toMatchObject({ topics: 0, clients: 0 });
    });
  },
  { STREAM_MAX_MS: '1500' },
);

describeBackends(
  'live stream, slow clients',
  (h) => {
    test('a client that stops reading is dropped and its socket closed; the others keep up', async () => {
      const { a, ep } = await endpoint(h);
      const reader = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      const stuck = await stuckClient(h, `/api/stream/${ep.slug}`, a.key);
      await eventually(async () => (await streamStats(h)).clients === 2);
      const big = 'x'.repeat(256 * 1024);
      const ids: string[] = [];
      for (let i = 0; i < 40; i++) ids.push(await capture(h, ep.slug, big));
      await reader.until(() => reader.events.length === 40);
      expect(reader.ids).toEqual(ids);
      await eventually(async () => (await streamStats(h)).clients === 1);
      // The server closes its side even though the client never reads what is still queued.
      await eventually(async () => !serverSocketOpen(h.server.port, stuck.localPort), 10_000);
      reader.close();
      stuck.end();
    });

    test('live events too many to hold during catch-up are read back from the store: none lost, none doubled', async () => {
      const { a, ep } = await endpoint(h);
      let first = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      const sent: string[] = [];
      let sending = true;
      const sender = (async () => {
        while (sending) sent.push(await capture(h, ep.slug, `n=${sent.length}`));
      })();
      // Only a resume point is needed from this reader: with a 4-event buffer a loaded machine can
      // drop it as a slow client too; what it received before that serves as well, and one that
      // received nothing connects again.
      for (let tries = 0; ; tries++) {
        await first.until(() => first.events.length >= 3 || first.ended);
        if (first.ids.length > 0 || tries >= 5) break;
        first = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key });
      }
      first.close();
      const resumeAfter = first.ids.at(-1) ?? '';
      // The catch-up waits for the shipper while far more than 4 (the buffer) live events arrive.
      let second = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: resumeAfter });
      await Bun.sleep(1_000);
      sending = false;
      await sender;
      const last = sent.at(-1) ?? '-';
      const got: string[] = [];
      // On a loaded machine this test's own reader can fall 4 events behind once live and be
      // dropped as a slow client; it then reconnects from what it has, as a real client does.
      for (let reconnects = 0; ; reconnects++) {
        await second.until(() => second.ids.includes(last) || second.ended);
        if (second.ids.includes(last)) await Bun.sleep(300);
        second.close();
        got.push(...second.ids);
        if (got.includes(last) || reconnects >= 5) break;
        second = await SseClient.live(`${h.url}/api/stream/${ep.slug}`, { token: a.key, lastEventId: got.at(-1) ?? resumeAfter });
      }
      expect(sent.length - sent.indexOf(resumeAfter)).toBeGreaterThan(20);
      expect(got).toEqual(sent.slice(sent.indexOf(resumeAfter) + 1));
    });
  },
  { STREAM_CLIENT_BUFFER: '4' },
);

/** A raw TCP client that sends the request and then never reads. */
async function stuckClient(h: Harness, path: string, token: string) {
  const socket = await Bun.connect({
    hostname: '127.0.0.1',
    port: h.server.port,
    socket: {
      data() {},
      open(s) {
        s.write(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nAuthorization: Bearer ${token}\r\nAccept: text/event-stream\r\n\r\n`);
        s.pause();
      },
    },
  });
  return socket;
}

/** Whether the server still has an established socket to this client port (ss, from iproute2). */
function serverSocketOpen(serverPort: number, clientPort: number): boolean {
  const out = Bun.spawnSync(['ss', '-tnH', 'state', 'established', `( sport = :${serverPort} and dport = :${clientPort} )`]).stdout.toString();
  return out.trim().length > 0;
}
