/**
 * What the receiver refused, by reason (docs/operations.md, "/healthz" `refusals` and
 * "/metrics" `hookcap_receiver_refusals_total`): each refusal a sender can cause cheaply, sent a
 * known number of times to a real server on a real port, moves its own reason by exactly that
 * number in /healthz and in the scrape (read by the independent reader, test/support/prometheus.ts)
 * and no other; acknowledged captures move none. The service runs in-process so the endpoint's
 * expiry is a clock step, on both backends, with the receiver on a port of its own so the API's
 * port answers /w/ as a listener without one (`no_receiver`).
 *
 * Here too: body_incomplete (a raw socket that hangs up mid-body, declared and chunked; it was
 * counted and logged as internal), sandbox_quota_exceeded (an unclaimed agent key's sandbox endpoint past
 * SANDBOX_MAX_CAPTURES), and internal, by a real failure of the state store that is not an outage:
 * the endpoints table renamed under the running service, so the lookup of an uncached slug is
 * refused by Postgres/PGlite itself (42P01), which no retry mends (a 500, not a 503).
 *
 * Elsewhere, each with its broken dependency: capture_log_failed (test/faults/disk-full.test.ts),
 * state_store_unreachable (test/faults/postgres-down.test.ts), capture_store_behind
 * (test/faults/clickhouse-down.test.ts).
 */
import { expect, test } from 'bun:test';
import { connect } from 'node:net';
import { sql } from 'drizzle-orm';
import type { Health } from '../../src/health';
import { registerAnonymous } from './agent-support';
import { call, eventually, newAccount } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { parsePromText, REFUSAL_STATUS, type PromText } from '../support/prometheus';

const TOKEN = 'mtr_test_refusals_5c2e8a1f7b3d9046e2a8c4f1';
const MAX_BODY = 1024;
const QUOTA = 4;
const SANDBOX_QUOTA = 2;

interface Reading {
  health: Health;
  metrics: PromText;
  /** The refusal counter's samples by reason. */
  refused: Record<string, number>;
  acknowledged: number;
}

describeInProcess(
  'receiver refusals counted by reason',
  (h) => {
    const receiver = () => h.server.service.urls.receiver;

    async function read(): Promise<Reading> {
      const health = (await call<Health>(h.url, 'GET', '/healthz')).body;
      const res = await fetch(`${h.url}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      const metrics = parsePromText(await res.text());
      expect(metrics.problems).toEqual([]);
      const samples = metrics.samples.filter((s) => s.name === 'hookcap_receiver_refusals_total');
      // Exactly one sample per reason, each with its status, whatever was sent so far.
      expect(samples.map((s) => s.labels)).toEqual(Object.entries(REFUSAL_STATUS).map(([reason, status]) => ({ reason, status })));
      const refused = Object.fromEntries(samples.map((s) => [s.labels.reason, s.value]));
      const acknowledged = metrics.samples.find((s) => s.name === 'hookcap_captures_acknowledged_total')?.value ?? -1;
      return { health, metrics, refused, acknowledged };
    }

    /** What moved between two readings, reasons that did not move left out. */
    const moved = (before: Record<string, number>, after: Record<string, number>) =>
      Object.fromEntries(Object.keys(REFUSAL_STATUS).flatMap((r) => ((after[r] ?? 0) - (before[r] ?? 0) === 0 ? [] : [[r, (after[r] ?? 0) - (before[r] ?? 0)]])));

    async function send(base: string, path: string, init: RequestInit, status: number, code: string): Promise<void> {
      const res = await fetch(`${base}${path}`, { method: 'POST', ...init });
      expect({ path, status: res.status }).toEqual({ path, status });
      if (status !== 200) expect(((await res.json()) as { code?: string }).code).toBe(code);
      else await res.arrayBuffer();
    }

    test('from start: every reason present at 0, in /healthz and in the scrape, the same numbers', async () => {
      const r = await read();
      const zeros: Record<string, number> = Object.fromEntries(Object.keys(REFUSAL_STATUS).map((k) => [k, 0]));
      expect(r.health.refusals as Record<string, number>).toEqual(zeros);
      expect(r.refused).toEqual(r.health.refusals);
    });

    test('each refusal moves its reason by exactly the number sent, and no other; acknowledged captures move none', async () => {
      const a = await newAccount(h.url);
      const b = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'refusals' } })).body;
      const short = (await call(h.url, 'POST', '/api/endpoints', { token: b.key, body: { name: 'short-lived', expiresIn: 60 } })).body;

      const start = await read();
      // Within the quota: acknowledged, and not one refusal counted.
      for (let i = 0; i < QUOTA - 1; i++) await send(receiver(), `/w/${ep.slug}/ok${i}`, { body: `{"n":${i}}` }, 200, '');
      await send(receiver(), `/w/${short.slug}`, { body: 'before expiry' }, 200, '');
      const acked = await read();
      expect(acked.acknowledged - start.acknowledged).toBe(QUOTA);
      expect(moved(start.refused, acked.refused)).toEqual({});
      expect(moved(start.health.refusals, acked.health.refusals)).toEqual({});

      // Slugs that cannot be one: empty, upper case, too short, a character outside the alphabet.
      for (const path of ['/w/', '/w', `/w/${ep.slug.toUpperCase()}`, '/w/abc', '/w/abcdefghijk1']) await send(receiver(), path, { body: 'x' }, 404, 'not_found');
      // Slugs of the right shape that no endpoint has, each a new one (the label set stays as it is).
      for (const slug of ['aaaaaaaaaaaa', 'bbbbbbbbbbbb', 'cccccccccccc']) await send(receiver(), `/w/${slug}/path?q=1`, { body: 'x' }, 404, 'not_found');
      // Over MAX_BODY_BYTES, declared and chunked.
      await send(receiver(), `/w/${ep.slug}`, { body: 'x'.repeat(MAX_BODY + 1) }, 413, 'payload_too_large');
      await send(
        receiver(),
        `/w/${ep.slug}`,
        {
          body: new ReadableStream({
            start(c) {
              for (let i = 0; i < 4; i++) c.enqueue(new TextEncoder().encode('y'.repeat(MAX_BODY / 2)));
              c.close();
            },
          }),
        },
        413,
        'payload_too_large',
      );
      // The last capture of the quota goes through; the next ones are refused.
      await send(receiver(), `/w/${ep.slug}/last`, { body: 'last' }, 200, '');
      for (let i = 0; i < 2; i++) await send(receiver(), `/w/${ep.slug}/over${i}`, { body: 'over' }, 429, 'quota_exceeded');
      // The API's port, not the receiver's: a real endpoint's slug all the same.
      for (let i = 0; i < 2; i++) await send(h.url, `/w/${ep.slug}`, { body: 'wrong port' }, 404, 'not_found');
      // Past the endpoint's expiresAt (it is still in the endpoint cache and the state store).
      h.clock.advance(61_000);
      for (let i = 0; i < 3; i++) await send(receiver(), `/w/${short.slug}`, { body: 'after expiry' }, 404, 'not_found');

      const end = await read();
      const want = { invalid_slug: 5, unknown_endpoint: 3, payload_too_large: 2, quota_exceeded: 2, no_receiver: 2, expired_endpoint: 3 };
      expect(moved(acked.refused, end.refused)).toEqual(want);
      expect(moved(acked.health.refusals, end.health.refusals)).toEqual(want);
      expect(end.acknowledged - acked.acknowledged).toBe(1);
      // Both answer from the one count.
      expect(end.refused).toEqual(end.health.refusals);
    });

    test('a sender that hangs up before its body ends (declared length, or chunked) moves body_incomplete, not internal, and logs nothing', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cut' } })).body;
      const url = new URL(receiver());
      const heads = [
        `POST /w/${ep.slug}/declared HTTP/1.1\r\nHost: ${url.host}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{"only":"part`,
        `POST /w/${ep.slug}/chunked HTTP/1.1\r\nHost: ${url.host}\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n`,
      ];
      // What the process logs meanwhile (this server runs in the test's process): a sender's
      // hang-up was logged at error level as "unhandled error", which any sender could flood.
      const logged: string[] = [];
      const write = process.stderr.write.bind(process.stderr);
      process.stderr.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
        logged.push(String(chunk));
        return write(chunk, ...rest);
      }) as typeof process.stderr.write;
      const start = await read();
      try {
        for (const head of heads) {
          await new Promise<void>((resolve, reject) => {
            const socket = connect(Number(url.port), url.hostname, () => socket.write(head, () => setTimeout(() => socket.destroy(), 100)));
            socket.on('close', () => resolve());
            socket.on('error', reject);
          });
        }
        // The server sees each hang-up after the socket is gone: wait for both to be counted.
        await eventually(async () => ((await read()).refused.body_incomplete ?? 0) - (start.refused.body_incomplete ?? 0) >= 2 || undefined, 10_000);
      } finally {
        process.stderr.write = write;
      }
      const end = await read();
      expect(moved(start.refused, end.refused)).toEqual({ body_incomplete: 2 });
      expect(moved(start.health.refusals, end.health.refusals)).toEqual({ body_incomplete: 2 });
      expect(end.acknowledged - start.acknowledged).toBe(0);
      expect(logged.filter((l) => l.includes('"level":"error"') || l.includes('"level":"warn"'))).toEqual([]);
      // A whole body on a fresh connection is still captured.
      await send(receiver(), `/w/${ep.slug}/whole`, { body: '{"whole":true}' }, 200, '');
    });

    test("an unclaimed agent key's sandbox past SANDBOX_MAX_CAPTURES moves sandbox_quota_exceeded, not the accounts' quota_exceeded", async () => {
      const reg = await registerAnonymous(h.url, 'refusals bot');
      const created = await call<{ slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(created.status).toBe(201);
      const start = await read();
      for (let i = 0; i < SANDBOX_QUOTA; i++) await send(receiver(), `/w/${created.body.slug}/ok${i}`, { body: 'within' }, 200, '');
      for (let i = 0; i < 3; i++) await send(receiver(), `/w/${created.body.slug}/over${i}`, { body: 'over' }, 429, 'quota_exceeded');
      const end = await read();
      expect(moved(start.refused, end.refused)).toEqual({ sandbox_quota_exceeded: 3 });
      expect(moved(start.health.refusals, end.health.refusals)).toEqual({ sandbox_quota_exceeded: 3 });
      expect(end.acknowledged - start.acknowledged).toBe(SANDBOX_QUOTA);
      expect(end.refused).toEqual(end.health.refusals);
    });

    test('the state store refusing the endpoint lookup (its table renamed under the service) is internal: 500, not counted as unreachable', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cached' } })).body;
      // Looked up once: its snapshot is cached, and it keeps capturing through the fault.
      await send(receiver(), `/w/${ep.slug}`, { body: 'warm' }, 200, '');
      const db = h.server.service.ctx.db;
      const start = await read();
      await db.execute(sql.raw('ALTER TABLE endpoints RENAME TO endpoints_moved_away'));
      try {
        // Never looked up: the lookup reaches the store, which answers that there is no such table.
        for (const slug of ['dddddddddddd', 'eeeeeeeeeeee']) await send(receiver(), `/w/${slug}`, { body: 'x' }, 500, 'internal');
        await send(receiver(), `/w/${ep.slug}/cached`, { body: 'still' }, 200, '');
      } finally {
        await db.execute(sql.raw('ALTER TABLE endpoints_moved_away RENAME TO endpoints'));
      }
      // Mended: the same slug is looked up again (a failed lookup is not remembered as missing).
      await send(receiver(), '/w/dddddddddddd', { body: 'x' }, 404, 'not_found');
      const end = await read();
      expect(moved(start.refused, end.refused)).toEqual({ internal: 2, unknown_endpoint: 1 });
      expect(moved(start.health.refusals, end.health.refusals)).toEqual({ internal: 2, unknown_endpoint: 1 });
      expect(end.acknowledged - start.acknowledged).toBe(1);
      expect(end.refused).toEqual(end.health.refusals);
    });
  },
  {
    METRICS_TOKEN: TOKEN,
    RECEIVER_PORT: '0',
    MAX_BODY_BYTES: String(MAX_BODY),
    PLANS: JSON.stringify({ free: { limit: QUOTA } }),
    SANDBOX_MAX_CAPTURES: String(SANDBOX_QUOTA),
  },
);
