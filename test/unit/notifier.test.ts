/**
 * The notification queue: bounded, off the caller's turn, retrying with backoff. The delivery
 * function is the queue's own seam; one test at the end sends real HTTP to a local receiver.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import type { EndpointSnapshot } from '../../src/engine/endpoint-cache';
import {
  buildNotification,
  deliverNotification,
  outcomeOfStatus,
  parseRetryAfter,
  type DeliveryOutcome,
  type NotificationPayload,
} from '../../src/engine/notification-delivery';
import { backoffDelay, Notifier, notificationHooks, notificationKeyFromCache, type NotificationJob, type NotifierOptions } from '../../src/engine/notifier';
import type { Capture } from '../../src/model/capture';
import { setLogLevel } from '../../src/log';
import { AllowList } from '../../src/net/allow';
import { eventually } from '../support/client';
import { startHookReceiver, uniquePath } from '../support/hook-receiver';

// Give-ups and drops are logged as warnings; these tests cause them on purpose.
setLogLevel('error');
afterAll(() => setLogLevel('info'));

const capture: Capture = {
  id: 'req_01JCAPTURE00000000000000000',
  endpointId: 'ep_1',
  method: 'POST',
  path: '/hooks/stripe',
  headers: { authorization: 'Bearer secret', 'content-type': 'application/json' },
  body: '{"secret":"do not forward"}',
  bodyEncoding: 'utf8',
  queryParams: {},
  contentType: 'application/json',
  ip: '203.0.113.5',
  size: 27,
  receivedAt: 1_700_000_000_000,
  detectedProvider: 'stripe',
  detectedEvent: 'invoice.paid',
};
const endpoint: EndpointSnapshot = {
  id: 'ep_1',
  slug: 'abcdefghjkmn',
  userId: 'usr_1',
  ownerKeyId: null,
  mockResponse: null,
  notificationUrl: 'https://hooks.example.com/n',
  signing: null,
  notificationKey: null,
  expiresAt: null,
};
const payload: NotificationPayload = buildNotification(capture, endpoint, 'https://api.example.com');

function notifier(deliver: (job: NotificationJob) => Promise<DeliveryOutcome>, over: Partial<NotifierOptions> = {}): Notifier {
  return new Notifier({ deliver, queueLimit: 100, maxAttempts: 5, concurrency: 4, backoffMs: 10, ...over });
}

const ok: DeliveryOutcome = { ok: true, status: 200 };
const retryable: DeliveryOutcome = { ok: false, retry: true, reason: 'receiver answered 500' };
const permanent: DeliveryOutcome = { ok: false, retry: false, reason: 'receiver answered 400' };

describe('payload', () => {
  test('carries the documented summary and a link, never the captured headers or body', () => {
    expect(payload).toEqual({
      type: 'request.captured',
      endpoint: { id: 'ep_1', slug: 'abcdefghjkmn' },
      request: {
        id: capture.id,
        method: 'POST',
        path: '/hooks/stripe',
        receivedAt: 1_700_000_000_000,
        contentType: 'application/json',
        size: 27,
        detectedProvider: 'stripe',
        detectedEvent: 'invoice.paid',
        link: `https://api.example.com/api/requests/${capture.id}`,
      },
    });
    expect(JSON.stringify(payload)).not.toContain('secret');
  });
});

describe('retry decisions', () => {
  test('2xx delivers; 429 and 5xx retry; other statuses do not', () => {
    expect(outcomeOfStatus(200, null, 0)).toEqual({ ok: true, status: 200 });
    expect(outcomeOfStatus(204, null, 0).ok).toBe(true);
    for (const s of [429, 500, 502, 503, 504]) expect(outcomeOfStatus(s, null, 0)).toMatchObject({ ok: false, retry: true });
    for (const s of [301, 304, 400, 401, 403, 404, 410, 422]) expect(outcomeOfStatus(s, null, 0)).toMatchObject({ ok: false, retry: false });
    expect(outcomeOfStatus(503, '7', 0)).toMatchObject({ retryAfterMs: 7000 });
  });

  test('Retry-After in seconds or as an HTTP date', () => {
    const now = Date.parse('2024-01-01T00:00:00Z');
    expect(parseRetryAfter('3', now)).toBe(3000);
    expect(parseRetryAfter('Mon, 01 Jan 2024 00:00:10 GMT', now)).toBe(10_000);
    expect(parseRetryAfter('Sun, 31 Dec 2023 00:00:00 GMT', now)).toBe(0);
    expect(parseRetryAfter(null, now)).toBeUndefined();
    expect(parseRetryAfter('soon', now)).toBeUndefined();
  });

  test('backoff doubles per attempt, is capped, and is jittered within [half, full]', () => {
    expect(backoffDelay(1, 100, 10_000, () => 0)).toBe(50);
    expect(backoffDelay(1, 100, 10_000, () => 1)).toBe(100);
    expect(backoffDelay(2, 100, 10_000, () => 1)).toBe(200);
    expect(backoffDelay(4, 100, 10_000, () => 0)).toBe(400);
    expect(backoffDelay(4, 100, 10_000, () => 1)).toBe(800);
    expect(backoffDelay(30, 100, 10_000, () => 1)).toBe(10_000);
    const spread = new Set(Array.from({ length: 50 }, () => backoffDelay(3, 100, 10_000)));
    expect(spread.size).toBeGreaterThan(5);
    for (const d of spread) expect(d >= 200 && d <= 400).toBe(true);
  });
});

describe('queue', () => {
  test('enqueue returns before any delivery starts', async () => {
    let started = 0;
    const n = notifier(async () => {
      started++;
      return ok;
    });
    expect(n.enqueue('http://x/', payload)).toBe(true);
    expect(started).toBe(0);
    expect(n.stats().pending).toBe(1);
    await eventually(async () => n.stats().delivered === 1);
    expect(started).toBe(1);
  });

  test('retryable failures are retried with rising delays until delivered', async () => {
    const attempts: { attempt: number; at: number }[] = [];
    const n = notifier(async (job) => {
      attempts.push({ attempt: job.attempt, at: Date.now() });
      return job.attempt < 3 ? retryable : ok;
    }, { backoffMs: 40 });
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().delivered === 1);
    expect(attempts.map((a) => a.attempt)).toEqual([1, 2, 3]);
    const [a1, a2, a3] = attempts.map((a) => a.at);
    expect((a2 ?? 0) - (a1 ?? 0)).toBeGreaterThanOrEqual(18); // ≥ half of 40 ms
    expect((a3 ?? 0) - (a2 ?? 0)).toBeGreaterThanOrEqual(38); // ≥ half of 80 ms
    expect(n.stats()).toMatchObject({ delivered: 1, failed: 0, retries: 2, pending: 0 });
  });

  test('a failure that cannot be helped is not retried', async () => {
    let calls = 0;
    const n = notifier(async () => {
      calls++;
      return permanent;
    });
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().failed === 1);
    await Bun.sleep(100);
    expect(calls).toBe(1);
    expect(n.stats()).toMatchObject({ retries: 0, pending: 0 });
  });

  test('gives up after maxAttempts', async () => {
    let calls = 0;
    const n = notifier(async () => {
      calls++;
      return retryable;
    }, { maxAttempts: 3, backoffMs: 5 });
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().failed === 1);
    await Bun.sleep(100);
    expect(calls).toBe(3);
  });

  test('a thrown delivery error counts as retryable', async () => {
    let calls = 0;
    const n = notifier(async () => {
      calls++;
      if (calls === 1) throw new Error('boom');
      return ok;
    });
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().delivered === 1);
    expect(calls).toBe(2);
  });

  test("a receiver's Retry-After stretches the wait, up to the cap", async () => {
    const at: number[] = [];
    const n = notifier(async (job) => {
      at.push(Date.now());
      return job.attempt === 1 ? { ...retryable, retryAfterMs: 250 } : ok;
    }, { backoffMs: 5, maxBackoffMs: 10_000 });
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().delivered === 1);
    expect((at[1] ?? 0) - (at[0] ?? 0)).toBeGreaterThanOrEqual(240);
    const capped = notifier(async (job) => (job.attempt === 1 ? { ...retryable, retryAfterMs: 60_000 } : ok), { backoffMs: 5, maxBackoffMs: 100 });
    capped.enqueue('http://x/', payload);
    await eventually(async () => capped.stats().delivered === 1, 2_000);
  });

  test('the queue is bounded: beyond the limit notifications are dropped and counted', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    let started = 0;
    const n = notifier(async () => {
      started++;
      await gate;
      return ok;
    }, { queueLimit: 3, concurrency: 2 });
    const accepted = Array.from({ length: 10 }, () => n.enqueue('http://x/', payload));
    expect(accepted.filter(Boolean)).toHaveLength(3);
    expect(n.stats()).toMatchObject({ pending: 3, dropped: 7 });
    await eventually(async () => started === 2);
    await Bun.sleep(30);
    expect(started).toBe(2); // concurrency bound
    expect(n.enqueue('http://x/', payload)).toBe(false); // still full while in flight
    release();
    await eventually(async () => n.stats().delivered === 3);
    expect(n.stats()).toMatchObject({ pending: 0, dropped: 8 });
    expect(n.enqueue('http://x/', payload)).toBe(true);
  });

  test('tenants take turns, and one tenant holds at most its share of the queue', async () => {
    const order: string[] = [];
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const n = notifier(async (job) => {
      await gate;
      order.push(job.tenant);
      return ok;
    }, { queueLimit: 100, tenantLimit: 4, concurrency: 1 });
    const accepted = Array.from({ length: 10 }, () => n.enqueue('http://x/', payload, { tenant: 'noisy' }));
    expect(accepted.filter(Boolean)).toHaveLength(4);
    expect(n.enqueue('http://x/', payload, { tenant: 'quiet' })).toBe(true);
    expect(n.enqueue('http://x/', payload, { tenant: 'other' })).toBe(true);
    release();
    await eventually(async () => n.stats().delivered === 6);
    // noisy's first job was already in flight; then everyone in turn.
    expect(order).toEqual(['noisy', 'quiet', 'other', 'noisy', 'noisy', 'noisy']);
    expect(n.stats()).toMatchObject({ pending: 0, dropped: 6 });
    expect(n.enqueue('http://x/', payload, { tenant: 'noisy' })).toBe(true);
  });

  test('stop drops what waits, lets attempts in flight finish, and refuses new work', async () => {
    let release = () => {};
    const gate = new Promise<void>((r) => {
      release = r;
    });
    const n = notifier(async () => {
      await gate;
      return ok;
    }, { concurrency: 1 });
    n.enqueue('http://x/', payload);
    n.enqueue('http://x/', payload);
    await eventually(async () => n.stats().pending === 2);
    await Bun.sleep(20);
    const stopped = n.stop();
    release();
    await stopped;
    expect(n.stats()).toMatchObject({ delivered: 1, dropped: 1, pending: 0 });
    expect(n.enqueue('http://x/', payload)).toBe(false);
  });

  test('the capture hook enqueues only for endpoints with a notificationUrl', async () => {
    const urls: string[] = [];
    const n = notifier(async (job) => {
      urls.push(job.url);
      return ok;
    });
    const hooks = notificationHooks(n, 'https://api.example.com');
    const at = { segment: 1, offset: 16 };
    hooks.captured?.(capture, { ...endpoint, notificationUrl: null }, at);
    hooks.captured?.(capture, endpoint, at);
    await eventually(async () => n.stats().delivered === 1);
    expect(urls).toEqual(['https://hooks.example.com/n']);
  });

  test('tracked jobs stay unsettled, with their failed attempts, until delivered or given up', async () => {
    let answers = [retryable, retryable, ok];
    const n = notifier(async () => answers.shift() ?? ok, { backoffMs: 5, maxBackoffMs: 5 });
    const p2 = { ...payload, request: { ...payload.request, id: 'req_second' } };
    n.enqueue('http://x/', payload, { at: { segment: 2, offset: 100 } });
    n.enqueue('http://x/', p2, { at: { segment: 2, offset: 300 }, attempt: 4 });
    expect(new Map(n.unsettled()).get('req_second')).toEqual({ at: { segment: 2, offset: 300 }, tries: 3 });
    await eventually(async () => n.stats().pending === 0);
    expect([...n.unsettled()]).toEqual([]);
    expect(n.stats()).toMatchObject({ delivered: 2, retries: 2 });
    // Given up (a failure that cannot be helped): settled too.
    answers = [permanent];
    n.enqueue('http://x/', payload, { at: { segment: 3, offset: 16 } });
    await eventually(async () => n.stats().failed === 1);
    expect([...n.unsettled()]).toEqual([]);
  });

  test('stop leaves tracked jobs unsettled with their tries, for the next start', async () => {
    const n = notifier(async () => retryable, { backoffMs: 60_000, maxBackoffMs: 60_000 });
    n.enqueue('http://x/', payload, { at: { segment: 1, offset: 16 } });
    await eventually(async () => n.stats().retries === 1);
    await n.stop();
    expect([...n.unsettled()]).toEqual([[payload.request.id, { at: { segment: 1, offset: 16 }, tries: 1 }]]);
  });
});

describe('delivery over HTTP', () => {
  const receiver = startHookReceiver();
  afterAll(() => receiver.stop());
  const allow = AllowList.parse([`127.0.0.1:${receiver.port}`]);

  test('POSTs the JSON payload with identifying headers', async () => {
    const path = uniquePath('deliver');
    const out = await deliverNotification(`${receiver.url}${path}`, payload, 2, { allow, timeoutMs: 2_000, maxRedirects: 5 });
    expect(out).toEqual({ ok: true, status: 200 });
    const [got] = receiver.received(path);
    expect(got?.method).toBe('POST');
    expect(JSON.parse(got?.body ?? '')).toEqual(payload);
    expect(got?.headers).toMatchObject({
      'content-type': 'application/json',
      'user-agent': 'hookcap-notifier/1',
      'x-hookcap-event': 'request.captured',
      'x-hookcap-request-id': capture.id,
      'x-hookcap-attempt': '2',
    });
    // No key: unsigned.
    expect(got?.headers['webhook-signature']).toBeUndefined();
    expect(got?.headers['webhook-id']).toBeUndefined();
  });

  test("with a key: Standard Webhooks headers, the clock's seconds, a signature over exactly the body sent", async () => {
    const path = uniquePath('signed');
    const key = Buffer.alloc(32, 9);
    const clock = { now: () => 1_732_170_000_999 };
    expect(await deliverNotification(`${receiver.url}${path}`, payload, 1, { allow, timeoutMs: 2_000, maxRedirects: 5 }, 1, clock, key)).toEqual({ ok: true, status: 200 });
    const [got] = receiver.received(path);
    if (!got) throw new Error('nothing arrived');
    expect(got.headers['webhook-id']).toBe(capture.id);
    expect(got.headers['webhook-timestamp']).toBe('1732170000');
    const mac = createHmac('sha256', key).update(`${capture.id}.1732170000.${got.body}`).digest('base64');
    expect(got.headers['webhook-signature']).toBe(`v1,${mac}`);
  });

  test('a blocked address is a failure that is not retried; a refused connection is retried', async () => {
    const blocked = await deliverNotification('http://169.254.169.254/', payload, 1, { allow, timeoutMs: 2_000, maxRedirects: 5 });
    expect(blocked).toMatchObject({ ok: false, retry: false });
    const refused = await deliverNotification('http://127.0.0.1:1/', payload, 1, {
      allow: AllowList.parse(['127.0.0.1:1']),
      timeoutMs: 2_000,
      maxRedirects: 5,
    });
    expect(refused).toMatchObject({ ok: false, retry: true });
  });
});

describe('the key a notification is signed with', () => {
  const key = new Uint8Array([1, 2, 3]);
  const signed: EndpointSnapshot = { ...endpoint, notificationKey: key };

  test("is the endpoint's current key, from a warm or a cold snapshot", async () => {
    expect(notificationKeyFromCache({ get: () => signed })(payload.endpoint)).toBe(key);
    expect(await notificationKeyFromCache({ get: async () => signed })(payload.endpoint)).toBe(key);
    expect(notificationKeyFromCache({ get: () => endpoint })(payload.endpoint)).toBeNull();
  });

  test('is none when the slug is gone or names another endpoint now', async () => {
    expect(notificationKeyFromCache({ get: () => null })(payload.endpoint)).toBeNull();
    expect(await notificationKeyFromCache({ get: async () => ({ ...signed, id: 'ep_other' }) })(payload.endpoint)).toBeNull();
  });

  test('a failed look-up fails the attempt (retried), never an unsigned send', async () => {
    const failing = notificationKeyFromCache({ get: () => Promise.reject(new Error('postgres down')) });
    await expect(failing(payload.endpoint)).rejects.toThrow('postgres down');
  });
});
