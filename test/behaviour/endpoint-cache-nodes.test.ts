/**
 * A change made on the API node reaches the endpoint cache of a receiver node at once (over the
 * bus), not after the cache's one-minute refresh: updates, deletes, account deletion and a claimed
 * sandbox. Needs the server backend by nature: two processes share Postgres and NATS.
 */
import { describe, expect, test } from 'bun:test';
import { BACKENDS } from '../support/backends';
import { call, eventually, newAccount } from '../support/client';
import { useNodes } from '../support/nodes';
import { AGENT_ENV, registerAnonymous, signUp } from './agent-support';

/** Far below the cache's own refresh (60 s): only an announcement explains a change seen this soon. */
const SOON_MS = 10_000;
/** Sandbox endpoints live this long here, so a test can outlive one. */
const SANDBOX_TTL_MS = 8_000;

describe.skipIf(!BACKENDS.includes('server'))('endpoint changes reach other nodes [server]', () => {
  const node = useNodes(['api', 'receiver'], { ...AGENT_ENV, SANDBOX_TTL_MS: String(SANDBOX_TTL_MS) });
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
