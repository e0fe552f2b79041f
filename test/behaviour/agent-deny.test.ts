/**
 * A person may refuse an anonymous registration (deny), the guards answer in the shape of the route
 * they stop (agent JSON under /api/agent/, an HTML page on the claim pages), and /llms.txt tells an
 * agent where to start. All over real HTTP against a real server, on both backends.
 */
import { expect, test } from 'bun:test';
import { eq } from 'drizzle-orm';
import { agentRegistrations } from '../../src/stores/state/schema';
import { call, eventually, newAccount, type OpenApiDoc } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, registerAnonymous, signUp, type PollReply, type SandboxList } from './agent-support';

interface DenyReply {
  registration_id: string;
  status: string;
  client_name: string;
  endpoints_ended: number;
  error?: string;
}

describeBackends(
  'agent claim deny, guard shapes, llms.txt',
  (h) => {
    const deny = (session: string | undefined, body: unknown) => call<DenyReply>(h.url, 'POST', '/api/agent/auth/claim/deny', { token: session, body });
    const poll = (claimToken: string) => call<PollReply>(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: claimToken } });

    test('deny: the registration is denied, its key revoked, its sandbox endpoints end, the poll says so and confirm is refused', async () => {
      const reg = await registerAnonymous(h.url, 'unwanted bot');
      const ep = await call<{ url: string; slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(ep.status).toBe(201);
      expect((await fetch(`${ep.body.url}/before`, { method: 'POST', body: 'x' })).status).toBe(200);
      const human = await signUp(h.url);

      const r = await deny(human.session, { user_code: reg.user_code.toLowerCase() });
      expect(r.status).toBe(200);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({ registration_id: reg.registration_id, status: 'denied', client_name: 'unwanted bot', endpoints_ended: 1 });

      // The agent learns it by polling.
      const p = await poll(reg.claim_token);
      expect(p.status).toBe(200);
      expect(p.body).toMatchObject({ registration_id: reg.registration_id, registration_type: 'anonymous', status: 'denied' });
      expect(Date.parse((p.body as { denied_at: string }).denied_at)).toBeGreaterThan(Date.now() - 60_000);

      // The key is revoked: the sandbox is closed to it, and senders to its endpoint get 404.
      const list = await call<SandboxList>(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(list.status).toBe(401);
      expect(list.headers.get('www-authenticate') ?? '').toContain('invalid_token');
      await eventually(async () => (await fetch(`${ep.body.url}/after`, { method: 'POST', body: 'x' })).status === 404);

      // A later confirm, by link or code, or a second deny: claim_denied. Nothing is bound.
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } }), 409, 'claim_denied');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: reg.user_code } }), 409, 'claim_denied');
      expectAgentError(await deny(human.session, { claim_token: reg.claim_token }), 409, 'claim_denied');
      expect((await poll(reg.claim_token)).body.status).toBe('denied');
    });

    test('deny needs a browser session, like confirm; a claimed registration cannot be denied', async () => {
      const reg = await registerAnonymous(h.url);
      const keyless = await deny(undefined, { claim_token: reg.claim_token });
      expect(keyless.status).toBe(401);
      expect(keyless.body.error).toContain('browser session');
      const own = await deny(reg.credential, { claim_token: reg.claim_token });
      expect(own.status).toBe(403);
      const account = await newAccount(h.url);
      expect((await deny(account.key, { claim_token: reg.claim_token })).status).toBe(403);
      expectAgentError(await deny(account.session, {}), 400, 'invalid_request');
      expectAgentError(await deny(account.session, { claim_token: 'clm_nope' }), 400, 'invalid_claim_token');
      expect((await poll(reg.claim_token)).body.status).toBe('pending');

      // A cookie session from another site is refused as on confirm.
      const forged = await fetch(`${h.url}/api/agent/auth/claim/deny`, {
        method: 'POST',
        headers: { cookie: `session=${account.session}`, origin: 'https://evil.example', 'content-type': 'application/json' },
        body: JSON.stringify({ claim_token: reg.claim_token }),
      });
      expect(forged.status).toBe(403);
      expect((await poll(reg.claim_token)).body.status).toBe('pending');

      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: account.session, body: { claim_token: reg.claim_token } })).status).toBe(200);
      expectAgentError(await deny(account.session, { claim_token: reg.claim_token }), 409, 'previously_claimed');
      expect((await call(h.url, 'GET', '/api/auth/me', { token: reg.credential })).status).toBe(200);

      const get = await call(h.url, 'GET', '/api/agent/auth/claim/deny');
      expect([get.status, get.headers.get('allow')]).toEqual([405, 'POST']);
    });

    test('a 413 or 411 under /api/agent/ is an agent error; elsewhere the capture shape stays', async () => {
      const raw = await rawRequest(h.url, 'POST /api/agent/auth/poll HTTP/1.1', 'content-type: application/json\r\ncontent-length: 999999999');
      expect(raw.status).toBe(413);
      expect(JSON.parse(raw.body)).toMatchObject({ error: 'invalid_request', error_description: expect.stringContaining('byte limit') });
      // The chunked body is read (and thrown away) before the 411, so a sender that writes it all first gets the answer.
      const chunked = await rawRequest(h.url, 'POST /api/agent/auth HTTP/1.1', 'content-type: application/json\r\ntransfer-encoding: chunked\r\nconnection: close', '2\r\n{}\r\n0\r\n\r\n');
      expect(chunked.status).toBe(411);
      expect(JSON.parse(chunked.body)).toMatchObject({ error: 'invalid_request' });
      const capture = await rawRequest(h.url, 'POST /api/endpoints HTTP/1.1', 'content-type: application/json\r\ncontent-length: 999999999');
      expect(capture.status).toBe(413);
      expect(JSON.parse(capture.body)).toMatchObject({ code: 'payload_too_large' });
    });

    test('NUL in a claim page URL is an HTML error page (400), not JSON', async () => {
      const human = await signUp(h.url);
      for (const path of ['/agent/claim?code=%00', '/agent/claim?token=clm_%00', '/agent/login?next=%00']) {
        const r = await fetch(`${h.url}${path}`, { headers: { cookie: `session=${human.session}` }, redirect: 'manual' });
        expect({ path, status: r.status }).toEqual({ path, status: 400 });
        expect(r.headers.get('content-type')).toBe('text/html; charset=utf-8');
        expect(r.headers.get('x-frame-options')).toBe('DENY');
        const text = await r.text();
        expect(text).toStartWith('<!doctype html>');
        expect(text).toContain('role="alert"');
      }
      // An agent route keeps JSON, in its own shape.
      const api = await call(h.url, 'GET', '/api/agent/sandbox/endpoints?slug=%00');
      expectAgentError(api, 400, 'invalid_request');
    });

    test('/llms.txt says what the service is and how an agent registers; every route it names is in /docs/json', async () => {
      const r = await fetch(`${h.url}/llms.txt`);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toBe('text/plain; charset=utf-8');
      expect(r.headers.get('cache-control')).toBe('public, max-age=300');
      expect(r.headers.get('access-control-allow-origin')).toBeNull();
      const text = await r.text();
      expect(text).toStartWith('# hookcap\n\n> ');
      expect(text).toContain('/docs/json');
      expect(text).toContain('"type": "anonymous"');
      // The 429 every agent route may answer (its own limits, RATE_LIMIT_API, failed authentication).
      expect(text).toContain('`429` (`rate_limited`) carries `Retry-After`');
      const doc = (await call<OpenApiDoc>(h.url, 'GET', '/docs/json')).body;
      const named = [...text.matchAll(/\b(GET|POST|PUT|PATCH|DELETE) (\/[^\s,:`]+)/g)].map((m) => [m[1] ?? '', m[2] ?? ''] as const);
      expect(named.length).toBeGreaterThanOrEqual(7);
      for (const [method, path] of named) {
        const ops = doc.paths[path.split('?')[0] ?? ''];
        expect({ method, path, documented: ops !== undefined && method.toLowerCase() in ops }).toEqual({ method, path, documented: true });
      }
      // Its links resolve on this server.
      for (const link of [...text.matchAll(/\]\((https?:\/\/[^)]+)\)/g)].map((m) => m[1] ?? '')) {
        const local = new URL(link);
        expect({ link, status: (await fetch(`${h.url}${local.pathname}`)).status }).toEqual({ link, status: 200 });
      }
    });
  },
  AGENT_ENV,
);

describeInProcess(
  'agent claim deny is final',
  (h) => {
    const poll = (claimToken: string) => call<PollReply>(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: claimToken } });
    test('a denied registration still polls as denied after its claim window closes; a pending one is claim_expired', async () => {
      const refused = await registerAnonymous(h.url, 'refused');
      const forgotten = await registerAnonymous(h.url, 'forgotten');
      const human = await signUp(h.url);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/deny', { token: human.session, body: { claim_token: refused.claim_token } })).status).toBe(200);
      h.clock.advance(2 * 3600_000);
      expect((await poll(refused.claim_token)).body.status).toBe('denied');
      expectAgentError(await poll(forgotten.claim_token), 410, 'claim_expired');
    });

    test('who denied is recorded (API and page), and the record outlives that account', async () => {
      const deniedBy = async (registrationId: string) =>
        (await h.server.service.ctx.db.select({ status: agentRegistrations.status, by: agentRegistrations.deniedBy }).from(agentRegistrations).where(eq(agentRegistrations.id, registrationId)))[0];
      const byApi = await registerAnonymous(h.url, 'api-denied');
      const byPage = await registerAnonymous(h.url, 'page-denied');
      const alice = await signUp(h.url);
      const bob = await signUp(h.url);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/deny', { token: alice.session, body: { user_code: byApi.user_code } })).status).toBe(200);
      const page = await fetch(`${h.url}/agent/claim/deny`, {
        method: 'POST',
        headers: { cookie: `session=${bob.session}`, 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams({ claim_token: byPage.claim_token }),
        redirect: 'manual',
      });
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('Agent denied');
      expect(await deniedBy(byApi.registration_id)).toEqual({ status: 'denied', by: alice.userId });
      expect(await deniedBy(byPage.registration_id)).toEqual({ status: 'denied', by: bob.userId });
      // Deleting the denier's account keeps the registration denied, with nobody named.
      expect((await call(h.url, 'DELETE', '/api/account', { token: alice.session })).status).toBeLessThan(300);
      expect(await deniedBy(byApi.registration_id)).toEqual({ status: 'denied', by: null });
      expect((await poll(byApi.claim_token)).body.status).toBe('denied');
    });
  },
  AGENT_ENV,
);

/** One request written by hand (a declared length with no body, or chunked), answered before its body. */
async function rawRequest(base: string, line: string, headers: string, payload = ''): Promise<{ status: number; body: string }> {
  const { hostname, port } = new URL(base);
  const reply = await new Promise<string>((resolve, reject) => {
    let got = '';
    void Bun.connect({
      hostname,
      port: Number(port),
      socket: {
        open(s) {
          s.write(`${line}\r\nhost: ${hostname}\r\n${headers}\r\n\r\n${payload}`);
        },
        data(_s, chunk) {
          got += chunk.toString();
        },
        close() {
          resolve(got);
        },
        error(_s, e) {
          reject(e);
        },
      },
    });
    setTimeout(() => resolve(got), 5_000);
  });
  const status = Number(/^HTTP\/1\.1 (\d{3})/.exec(reply)?.[1] ?? 0);
  const rest = reply.slice(reply.indexOf('\r\n\r\n') + 4);
  const body = rest.slice(rest.indexOf('{'), rest.lastIndexOf('}') + 1);
  return { status, body };
}
