/**
 * hookcap/client's verifyNotification, as a user's app calls it: a real server on both backends
 * signs notifications to a real HTTP server in this process, which verifies each as it arrives
 * (fetch `Headers`, raw body text) and records the outcome. The secret is made through the client.
 */
import { afterAll, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { createClient, HookcapError, verifyNotification, type NotificationVerification } from 'hookcap/client';
import { eventually, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

interface Arrival {
  path: string;
  headers: Record<string, string>;
  body: string;
  /** What the app decided, with the secret it holds now. */
  verdict: NotificationVerification;
}

let appSecret = '';
const arrivals: Arrival[] = [];
const app = Bun.serve({
  port: 0,
  hostname: '127.0.0.1',
  async fetch(request) {
    const body = await request.text();
    const verdict = verifyNotification(appSecret, request.headers, body);
    arrivals.push({ path: new URL(request.url).pathname, headers: Object.fromEntries(request.headers), body, verdict });
    return new Response(verdict.verified ? 'ok' : verdict.error, { status: verdict.verified ? 200 : 401 });
  },
});
afterAll(() => void app.stop(true));

const arrivalsAt = (path: string, n: number) =>
  eventually(async () => {
    const got = arrivals.filter((a) => a.path === path);
    return got.length >= n ? got : null;
  }, 8_000);

describeBackends(
  'hookcap/client verifyNotification',
  (h) => {
    test('an app verifies signed notifications with the secret the client made; tampering, another secret, old and unsigned ones are refused', async () => {
      const a = await newAccount(h.url);
      const c = createClient({ apiUrl: h.url, key: a.key });
      const ep = await c.endpoints.create('verify');
      const path = `/hooks-${h.backend}`;
      await c.endpoints.update(ep.slug, { notificationUrl: `http://127.0.0.1:${app.port}${path}` });
      const made = await c.endpoints.rotateNotificationSecret(ep.slug);
      expect(made.secret).toStartWith('whsec_');
      expect((await c.endpoints.get(ep.slug)).notificationSigning).toEqual({ createdAt: made.createdAt });
      appSecret = made.secret;

      const sent = await fetch(`${h.url}/w/${ep.slug}/x`, { method: 'POST', body: 'hello' });
      const id = sent.headers.get('x-request-id');
      const [got] = await arrivalsAt(path, 1);
      if (!got) throw new Error('no notification');
      expect(got.verdict).toEqual({ verified: true, id: id ?? '', timestamp: Number(got.headers['webhook-timestamp']) });

      // Node's req.headers shape works the same.
      expect(verifyNotification(made.secret, { ...got.headers }, new TextEncoder().encode(got.body)).verified).toBe(true);
      expect(verifyNotification(made.secret, got.headers, `${got.body} `)).toEqual({ verified: false, error: 'mismatch' });
      expect(verifyNotification(`whsec_${Buffer.alloc(32, 1).toString('base64')}`, got.headers, got.body)).toEqual({ verified: false, error: 'mismatch' });
      const later = Number(got.headers['webhook-timestamp']) * 1000 + 10 * 60_000;
      expect(verifyNotification(made.secret, got.headers, got.body, { now: later })).toEqual({ verified: false, error: 'timestamp_outside_tolerance' });
      expect(verifyNotification(made.secret, got.headers, got.body, { now: later, toleranceSeconds: 3600 }).verified).toBe(true);

      // A notification forged with a made-up timestamp but a signature of the spec's formula under
      // the right secret verifies (the formula is all there is), and under any other key does not.
      const forgedTs = String(Math.floor(Date.now() / 1000));
      const key = Buffer.from(made.secret.slice(6), 'base64');
      const sig = (k: Buffer) => `v1,${createHmac('sha256', k).update(`msg_x.${forgedTs}.{}`).digest('base64')}`;
      expect(verifyNotification(made.secret, { 'webhook-id': 'msg_x', 'webhook-timestamp': forgedTs, 'webhook-signature': sig(key) }, '{}').verified).toBe(true);
      expect(verifyNotification(made.secret, { 'webhook-id': 'msg_x', 'webhook-timestamp': forgedTs, 'webhook-signature': `v1,bm9wZQ== ${sig(Buffer.alloc(32))}` }, '{}')).toEqual({ verified: false, error: 'mismatch' });

      // After removal the app refuses what arrives: it is unsigned.
      await c.endpoints.removeNotificationSecret(ep.slug);
      expect((await c.endpoints.get(ep.slug)).notificationSigning).toBeNull();
      await fetch(`${h.url}/w/${ep.slug}/y`, { method: 'POST', body: 'unsigned' });
      const [, unsigned] = await arrivalsAt(path, 2);
      expect(unsigned?.verdict).toEqual({ verified: false, error: 'missing_header: webhook-id' });

      // Someone else's endpoint: the same 404 as any other endpoint write.
      const stranger = createClient({ apiUrl: h.url, key: (await newAccount(h.url)).key });
      const refused = await stranger.endpoints.rotateNotificationSecret(ep.slug).catch((e: unknown) => e);
      expect(refused).toBeInstanceOf(HookcapError);
      expect((refused as HookcapError).status).toBe(404);
    });
  },
  { OUTBOUND_ALLOW: `127.0.0.1:${app.port}`, NOTIFY_MAX_ATTEMPTS: '1' },
);
