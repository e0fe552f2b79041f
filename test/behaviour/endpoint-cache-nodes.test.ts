/**
 * A change made on the API node reaches the endpoint cache of a receiver node at once (over the
 * bus), not after the cache's one-minute refresh: updates, the notification secret, deletes,
 * account deletion and a claimed sandbox. Needs the server backend by nature: two processes share Postgres and NATS.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { BACKENDS } from '../support/backends';
import { call, eventually, newAccount } from '../support/client';
import { startHookReceiver, uniquePath, type Received } from '../support/hook-receiver';
import { useNodes } from '../support/nodes';
import { AGENT_ENV, registerAnonymous, signUp } from './agent-support';

const hooks = startHookReceiver();
afterAll(() => hooks.stop());

/** Standard Webhooks' formula, from the spec: does `secret` sign this notification? */
function signedWith(secret: string, g: Received): boolean {
  const key = Buffer.from(secret.replace(/^whsec_/, ''), 'base64');
  const expected = `v1,${createHmac('sha256', key).update(`${g.headers['webhook-id']}.${g.headers['webhook-timestamp']}.${g.body}`).digest('base64')}`;
  return (g.headers['webhook-signature'] ?? '').split(' ').includes(expected);
}

/** Far below the cache's own refresh (60 s): only an announcement explains a change seen this soon. */
const SOON_MS = 10_000;
/** Sandbox endpoints live this long here, so a test can outlive one. */
const SANDBOX_TTL_MS = 8_000;

describe.skipIf(!BACKENDS.includes('server'))('endpoint changes reach other nodes [server]', () => {
  const node = useNodes(['api', 'receiver'], { ...AGENT_ENV, SANDBOX_TTL_MS: String(SANDBOX_TTL_MS), OUTBOUND_ALLOW: `127.0.0.1:${hooks.port}` });
  const api = () => node(0).url;
  const receiver = () => node(1).url;

  const send = async (slug: string) => (await fetch(`${receiver()}/w/${slug}`, { method: 'POST', body: 'x' })).status;

  /** An endpoint the receiver node has in its cache. */
  async function warmEndpoint() {
    const a = await newAccount(api());
    const ep = (await call(api(), 'POST', '/api/endpoints', { token: a.key, body: { name: 'cached' } })).body;
    await eventually(async () => (await send(ep.slug)) === 200);
    return { a, ep };
  }

  test('a new mock response is answered by the receiver node', async () => {
    const { a, ep } = await warmEndpoint();
    const mock = { status: 202, body: 'mocked', headers: {} };
    expect((await call(api(), 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: mock } })).status).toBe(200);
    await eventually(async () => (await send(ep.slug)) === 202, SOON_MS);
  });

  test('the notification secret made, rotated and removed on the API node is what the receiver node signs with', async () => {
    const { a, ep } = await warmEndpoint();
    const path = uniquePath('nodes-signed');
    expect((await call(api(), 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { notificationUrl: `${hooks.url}${path}` } })).status).toBe(200);
    /** Captures on the receiver node until its newest notification satisfies `ok`. */
    const until = (ok: (g: Received) => boolean) =>
      eventually(async () => {
        const before = hooks.received(path).length;
        await send(ep.slug);
        const g = await eventually(async () => hooks.received(path)[before]);
        return ok(g);
      }, SOON_MS);
    await until((g) => g.headers['webhook-signature'] === undefined);
    const first = (await call(api(), 'POST', `/api/endpoints/${ep.slug}/notification-secret`, { token: a.key })).body;
    await until((g) => signedWith(first.secret, g));
    const second = (await call(api(), 'POST', `/api/endpoints/${ep.slug}/notification-secret`, { token: a.key })).body;
    await until((g) => signedWith(second.secret, g) && !signedWith(first.secret, g));
    expect((await call(api(), 'DELETE', `/api/endpoints/${ep.slug}/notification-secret`, { token: a.key })).status).toBe(204);
    await until((g) => g.headers['webhook-signature'] === undefined);
  });

  test('a deleted endpoint is refused by the receiver node', async () => {
    const { a, ep } = await warmEndpoint();
    expect((await call(api(), 'DELETE', `/api/endpoints/${ep.slug}`, { token: a.key })).status).toBe(204);
    await eventually(async () => (await send(ep.slug)) === 404, SOON_MS);
  });

  test("a deleted account's endpoints are refused by the receiver node", async () => {
    const { a, ep } = await warmEndpoint();
    expect((await call(api(), 'DELETE', '/api/account', { token: a.session })).status).toBe(204);
    await eventually(async () => (await send(ep.slug)) === 404, SOON_MS);
  });

  test('a claimed sandbox endpoint outlives its sandbox expiry on the receiver node', async () => {
    const reg = await registerAnonymous(api());
    const sandbox = (await call(api(), 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential })).body;
    expect(typeof sandbox.slug).toBe('string');
    const slug = String(sandbox.slug);
    await eventually(async () => (await send(slug)) === 200);
    const human = await signUp(api());
    expect((await call(api(), 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } })).status).toBe(200);
    // A receiver still holding the sandbox snapshot would refuse the endpoint once it expired.
    await Bun.sleep(SANDBOX_TTL_MS + 1_000);
    expect(await send(slug)).toBe(200);
  });
});
