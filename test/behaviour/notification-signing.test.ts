/**
 * Signed notifications end to end: a real server on a real port, a real HTTP receiver in this
 * process. The signatures are checked with an independent implementation of the Standard Webhooks
 * formula (node:crypto, written from the spec here) as well as with the service's own verifier,
 * so a bug shared by signer and verifier cannot pass unseen.
 */
import { afterAll, expect, test } from 'bun:test';
import { createHmac, timingSafeEqual } from 'node:crypto';
import { verifySignature } from '../../src/engine/signing';
import { call, eventually, newAccount } from '../support/client';
import { startHookReceiver, uniquePath, type Received } from '../support/hook-receiver';
import { describeBackends, type Harness } from '../support/suite';
import { registerAnonymous } from './agent-support';

const receiver = startHookReceiver();
afterAll(() => receiver.stop());

/** The spec's formula: base64 HMAC-SHA256, keyed with the secret's base64 part, of `id.timestamp.body`. */
function independentlyVerified(secret: string, headers: Record<string, string>, body: string): boolean {
  const id = headers['webhook-id'];
  const timestamp = headers['webhook-timestamp'];
  const signatures = headers['webhook-signature'];
  if (!id || !timestamp || !signatures || !secret.startsWith('whsec_')) return false;
  const key = Buffer.from(secret.slice('whsec_'.length), 'base64');
  const expected = Buffer.from(`v1,${createHmac('sha256', key).update(`${id}.${timestamp}.${body}`).digest('base64')}`);
  return signatures.split(' ').some((s) => s.length === expected.length && timingSafeEqual(Buffer.from(s), expected));
}

/** The service's own verifier (the one that checks captured Standard Webhooks requests). */
const ownVerifier = (secret: string, g: Received) =>
  verifySignature({ provider: 'standard-webhooks', secret }, { headers: g.headers, rawBody: new TextEncoder().encode(g.body), url: '', method: 'POST', now: Date.now() });

async function notifyingEndpoint(h: Harness, path: string) {
  const a = await newAccount(h.url);
  const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'signed' } })).body;
  expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: `${receiver.url}${path}` } })).status).toBe(200);
  return { a, ep };
}

async function newSecret(h: Harness, key: string, slug: string): Promise<{ secret: string; createdAt: number }> {
  const r = await call(h.url, 'POST', `/api/endpoints/${slug}/notification-secret`, { token: key });
  expect(r.status).toBe(201);
  return r.body;
}

async function capture(h: Harness, slug: string, body = 'x'): Promise<string> {
  const res = await fetch(`${h.url}/w/${slug}`, { method: 'POST', body });
  expect(res.status).toBe(200);
  return res.headers.get('x-request-id') ?? '';
}

const arrived = (path: string, n: number, ms = 8_000): Promise<Received[]> =>
  eventually(async () => {
    const got = receiver.received(path);
    return got.length >= n ? got : null;
  }, ms);

const secrets: string[] = [];

describeBackends(
  'signed notifications',
  (h) => {
    test('a secret is shown once; notifications carry Standard Webhooks headers that verify with it, and a tampered body does not', async () => {
      const path = uniquePath('signed');
      const { a, ep } = await notifyingEndpoint(h, path);
      const before = Date.now();
      const made = await newSecret(h, a.key, ep.slug);
      secrets.push(made.secret);
      expect(made.secret).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
      expect(Buffer.from(made.secret.slice(6), 'base64')).toHaveLength(32);
      expect(made.createdAt).toBeGreaterThanOrEqual(before - 1);

      // Reads say since when, never the secret.
      const one = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key });
      expect(one.body.notificationSigning).toEqual({ createdAt: made.createdAt });
      const list = await call(h.url, 'GET', '/api/endpoints', { token: a.key });
      for (const r of [one, list]) {
        expect(r.text).not.toContain(made.secret);
        expect(r.text).not.toContain(made.secret.slice(6, 30));
      }

      const id = await capture(h, ep.slug, '{"type":"invoice.paid"}');
      const [got] = await arrived(path, 1);
      if (!got) throw new Error('no notification');
      expect(got.headers['webhook-id']).toBe(id);
      expect(Math.abs(Number(got.headers['webhook-timestamp']) - Date.now() / 1000)).toBeLessThan(10);
      expect(got.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]{43}=$/);
      // The documented x-hookcap-* headers are still there.
      expect(got.headers['x-hookcap-request-id']).toBe(id);
      expect(got.headers['x-hookcap-attempt']).toBe('1');
      expect(got.headers['x-hookcap-event']).toBe('request.captured');
      expect(JSON.parse(got.body).request.id).toBe(id);

      expect(independentlyVerified(made.secret, got.headers, got.body)).toBe(true);
      expect(ownVerifier(made.secret, got)).toEqual({ signatureVerified: true, signatureError: null, signingProvider: 'standard-webhooks' });

      const tampered = got.body.replace('"POST"', '"PUT"');
      expect(tampered).not.toBe(got.body);
      expect(independentlyVerified(made.secret, got.headers, tampered)).toBe(false);
      expect(ownVerifier(made.secret, { ...got, body: tampered }).signatureError).toBe('mismatch');
      // Nor with another id, or another secret.
      expect(independentlyVerified(made.secret, { ...got.headers, 'webhook-id': 'req_other' }, got.body)).toBe(false);
      expect(independentlyVerified(`whsec_${Buffer.alloc(32, 7).toString('base64')}`, got.headers, got.body)).toBe(false);
    });

    test('a retry keeps its webhook-id and is signed again with a fresh timestamp', async () => {
      const path = uniquePath('retry');
      // Retry-After: 1 puts the retry at least a second later, so its timestamp must differ.
      receiver.script(path, (n) => new Response(n === 1 ? 'down' : 'ok', { status: n === 1 ? 503 : 200, headers: n === 1 ? { 'retry-after': '1' } : {} }));
      const { a, ep } = await notifyingEndpoint(h, path);
      const { secret } = await newSecret(h, a.key, ep.slug);
      secrets.push(secret);
      const id = await capture(h, ep.slug);
      const [first, second] = await arrived(path, 2);
      if (!first || !second) throw new Error('no retry');
      expect(second.headers['x-hookcap-attempt']).toBe('2');
      expect(first.headers['webhook-id']).toBe(id);
      expect(second.headers['webhook-id']).toBe(id);
      expect(Number(second.headers['webhook-timestamp'])).toBeGreaterThan(Number(first.headers['webhook-timestamp']));
      expect(second.headers['webhook-signature']).not.toBe(first.headers['webhook-signature']);
      for (const g of [first, second]) expect(independentlyVerified(secret, g.headers, g.body)).toBe(true);
    });

    test('after a rotation only the new secret verifies, retries of earlier captures included; after DELETE nothing is signed', async () => {
      const path = uniquePath('rotate');
      const { a, ep } = await notifyingEndpoint(h, path);
      const old = await newSecret(h, a.key, ep.slug);
      await capture(h, ep.slug);
      const [signedOld] = await arrived(path, 1);
      if (!signedOld) throw new Error('no notification');
      expect(independentlyVerified(old.secret, signedOld.headers, signedOld.body)).toBe(true);

      // A capture whose first attempt fails before the rotation is retried after it.
      const pending = uniquePath('rotate-pending');
      receiver.script(pending, (n) => new Response(n === 1 ? 'down' : 'ok', { status: n === 1 ? 503 : 200, headers: n === 1 ? { 'retry-after': '1' } : {} }));
      expect((await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: `${receiver.url}${pending}` } })).status).toBe(200);
      await Bun.sleep(200); // the URL change reaches the endpoint cache
      await capture(h, ep.slug);
      const [failed] = await arrived(pending, 1);
      if (!failed) throw new Error('no first attempt');
      expect(independentlyVerified(old.secret, failed.headers, failed.body)).toBe(true);

      await Bun.sleep(5); // a later millisecond, so createdAt must move
      const rotated = await newSecret(h, a.key, ep.slug);
      secrets.push(old.secret, rotated.secret);
      expect(rotated.secret).not.toBe(old.secret);
      expect(rotated.createdAt).toBeGreaterThan(old.createdAt);
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.notificationSigning).toEqual({ createdAt: rotated.createdAt });

      const [, retried] = await arrived(pending, 2);
      if (!retried) throw new Error('no retry');
      expect(retried.headers['webhook-id']).toBe(failed.headers['webhook-id']);
      expect(independentlyVerified(rotated.secret, retried.headers, retried.body)).toBe(true);
      expect(independentlyVerified(old.secret, retried.headers, retried.body)).toBe(false);

      await capture(h, ep.slug);
      const [, , fresh] = await arrived(pending, 3);
      if (!fresh) throw new Error('no notification after rotation');
      expect(independentlyVerified(rotated.secret, fresh.headers, fresh.body)).toBe(true);
      expect(independentlyVerified(old.secret, fresh.headers, fresh.body)).toBe(false);
      expect(ownVerifier(old.secret, fresh).signatureError).toBe('mismatch');

      const removed = await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/notification-secret`, { token: a.key });
      expect(removed.status).toBe(204);
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.notificationSigning).toBeNull();
      // Removing none is fine too.
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/notification-secret`, { token: a.key })).status).toBe(204);
      await capture(h, ep.slug);
      const [, , , unsigned] = await arrived(pending, 4);
      if (!unsigned) throw new Error('no notification after DELETE');
      for (const name of ['webhook-id', 'webhook-timestamp', 'webhook-signature']) expect(unsigned.headers[name]).toBeUndefined();
      expect(unsigned.headers['x-hookcap-request-id']).toBeString();
    });

    test("another account can neither make, replace nor remove an endpoint's secret (404), and the owner's keeps signing", async () => {
      const path = uniquePath('foreign');
      const { a, ep } = await notifyingEndpoint(h, path);
      const { secret } = await newSecret(h, a.key, ep.slug);
      secrets.push(secret);
      const other = await newAccount(h.url);
      for (const method of ['POST', 'DELETE'] as const) {
        for (const token of [other.key, other.session]) {
          const r = await call(h.url, method, `/api/endpoints/${ep.slug}/notification-secret`, { token });
          expect(r.status).toBe(404);
          expect(r.body).toMatchObject({ code: 'not_found' });
          expect(r.text).not.toContain('whsec_');
        }
      }
      const read = await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: other.key });
      expect(read.status).toBe(404);
      await capture(h, ep.slug);
      const [got] = await arrived(path, 1);
      if (!got) throw new Error('no notification');
      expect(independentlyVerified(secret, got.headers, got.body)).toBe(true);
    });

    test('refusals are JSON with the right status: no key, unknown slug, an unclaimed agent key, a malformed body', async () => {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'refusals' } })).body;
      const route = `/api/endpoints/${ep.slug}/notification-secret`;
      const expectJsonError = (r: { status: number; headers: Headers; body: unknown }, status: number) => {
        expect(r.status).toBe(status);
        expect(r.headers.get('content-type') ?? '').toContain('application/json');
        expect(typeof (r.body as { error?: unknown }).error).toBe('string');
      };
      expectJsonError(await call(h.url, 'POST', route), 401);
      expectJsonError(await call(h.url, 'DELETE', route), 401);
      expectJsonError(await call(h.url, 'POST', '/api/endpoints/nosuchslug99/notification-secret', { token: a.key }), 404);
      expectJsonError(await call(h.url, 'DELETE', '/api/endpoints/nosuchslug99/notification-secret', { token: a.key }), 404);
      const malformed = await call(h.url, 'POST', route, { token: a.key, raw: '{"oops', headers: { 'content-type': 'application/json' } });
      expect(malformed.status).toBeGreaterThanOrEqual(400);
      expect(malformed.status).toBeLessThan(500);
      expect(typeof (malformed.body as { error?: unknown }).error).toBe('string');
      // Unclaimed agent keys stay out of notification settings, on their sandbox endpoints too.
      const agent = await registerAnonymous(h.url);
      const sandbox = await call<{ slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: agent.credential });
      expect(sandbox.status).toBe(201);
      expectJsonError(await call(h.url, 'POST', `/api/endpoints/${sandbox.body.slug}/notification-secret`, { token: agent.credential }), 403);
      expectJsonError(await call(h.url, 'DELETE', `/api/endpoints/${sandbox.body.slug}/notification-secret`, { token: agent.credential }), 403);
      // None of these made a secret.
      expect((await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.notificationSigning).toBeNull();
    });

    test("no secret appears in the service's log output", async () => {
      expect(secrets.length).toBeGreaterThanOrEqual(4);
      const out = h.server.output();
      for (const s of secrets) {
        expect(out).not.toContain(s);
        expect(out).not.toContain(s.slice('whsec_'.length));
      }
    });
  },
  {
    OUTBOUND_ALLOW: `127.0.0.1:${receiver.port}`,
    NOTIFY_TIMEOUT_MS: '2000',
    NOTIFY_MAX_ATTEMPTS: '3',
    NOTIFY_BACKOFF_MS: '50',
    // Everything the service logs, so the check above sees as much as it can.
    LOG_LEVEL: 'debug',
  },
);
