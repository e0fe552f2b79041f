/**
 * What an AI agent that knows only the service's address can learn from it: a keyless call's 401
 * points at the discovery documents (RFC 9728 §5.1), the documentation link leads to the
 * machine-readable OpenAPI document, that document gives every agent route's request body and the
 * error codes of each status, and a call an agent makes by mistake (confirming its own claim) says
 * what to do instead.
 */
import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, registerAnonymous, signUp, uniqueEmail, type SandboxList } from './agent-support';

const BASE = 'https://hooks.example.test';

interface Schema {
  type?: string;
  required?: string[];
  properties?: Record<string, Schema & { const?: string; pattern?: string }>;
  anyOf?: Schema[];
}
interface Operation {
  summary?: string;
  requestBody?: { content?: Record<string, { schema?: Schema }> };
  parameters?: { name: string; in: string }[];
  responses?: Record<string, { description?: string }>;
}
type Doc = { paths: Record<string, Record<string, Operation>> };

describeBackends(
  'agent discoverability',
  (h) => {
    test('a keyless or unknown-key 401 names the protected resource metadata, which leads to the registration endpoint', async () => {
      const none = await call(h.url, 'GET', '/api/endpoints');
      expect(none.status).toBe(401);
      const challenge = none.headers.get('www-authenticate') ?? '';
      expect(challenge).toBe(`Bearer resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);
      expect((none.body as { error: string }).error).toContain('/api/agent/auth');

      const bad = await call(h.url, 'GET', '/api/endpoints', { token: 'svc_not-a-key-at-all-0000000000000000' });
      expect(bad.status).toBe(401);
      expect(bad.headers.get('www-authenticate')).toBe(`Bearer error="invalid_token", resource_metadata="${BASE}/.well-known/oauth-protected-resource"`);

      // Follow it, on this server (the documents name BASE_URL, not the host asked).
      const metadataPath = new URL(/resource_metadata="([^"]+)"/.exec(challenge)?.[1] ?? '').pathname;
      const resource = await call<{ authorization_servers: string[] }>(h.url, 'GET', metadataPath);
      expect(resource.body.authorization_servers).toEqual([BASE]);
      const server = await call<{ agent_registration_endpoint: string }>(h.url, 'GET', '/.well-known/oauth-authorization-server');
      expect(server.body.agent_registration_endpoint).toBe(`${BASE}/api/agent/auth`);
    });

    test('the home page, read without running its script, points an agent at /llms.txt and the API docs', async () => {
      const html = await (await fetch(`${h.url}/`)).text();
      const noscript = /<noscript>([\s\S]*?)<\/noscript>/.exec(html)?.[1] ?? '';
      const links = [...noscript.matchAll(/href="([^"]+)"/g)].map((m) => m[1] ?? '');
      expect(links).toEqual(['/docs', '/llms.txt']);
      for (const link of links) expect({ link, status: (await fetch(`${h.url}${link}`)).status }).toEqual({ link, status: 200 });
    });

    test('the resource identifier itself ({base_url}/api/) is no route, and its 404 says where the routes are', async () => {
      const resource = await call<{ resource: string }>(h.url, 'GET', '/.well-known/oauth-protected-resource');
      for (const path of [new URL(resource.body.resource).pathname, '/api']) {
        const r = await call(h.url, 'GET', path);
        expect(r.status).toBe(404);
        expect((r.body as { code: string }).code).toBe('not_found');
        const words = (r.body as { error: string }).error;
        const links = [...words.matchAll(/https:\/\/hooks\.example\.test(\/[^\s,]+)/g)].map((m) => m[1] ?? '');
        expect(links).toEqual(['/docs/json', '/llms.txt', '/.well-known/oauth-authorization-server']);
        for (const link of links) expect({ link, status: (await fetch(`${h.url}${link}`)).status }).toEqual({ link, status: 200 });
      }
    });

    test('the documentation link leads to the OpenAPI document', async () => {
      const resource = await call<{ resource_documentation: string }>(h.url, 'GET', '/.well-known/oauth-protected-resource');
      const page = await fetch(`${h.url}${new URL(resource.body.resource_documentation).pathname}`);
      expect(page.headers.get('link')).toBe('</docs/json>; rel="service-desc"; type="application/json"');
      // Readable without running Swagger UI's script: the page's text names the document.
      expect(await page.text()).toContain('<a href="/docs/json">/docs/json</a>');
      const doc = await call<{ openapi: string; info: { description: string } }>(h.url, 'GET', '/docs/json');
      expect(doc.body.openapi).toStartWith('3.');
      expect(doc.body.info.description).toContain('/.well-known/oauth-authorization-server');
    });

    test('the OpenAPI document gives every agent route its request body and the error codes of each status', async () => {
      const doc = (await call<Doc>(h.url, 'GET', '/docs/json')).body;
      const op = (path: string, method = 'post'): Operation => doc.paths[path]?.[method] ?? {};
      const json = (path: string) => op(path).requestBody?.content?.['application/json']?.schema ?? {};

      const register = op('/api/agent/auth').requestBody?.content ?? {};
      const flows = (register['application/json']?.schema?.anyOf ?? []).map((s) => s.properties?.type?.const);
      expect(flows).toEqual(['anonymous', 'verified_email']);
      expect(register['application/json']?.schema?.anyOf?.[1]?.required).toEqual(expect.arrayContaining(['type', 'email', 'client_name']));
      expect(register['application/jwt']?.schema?.type).toBe('string');

      expect(json('/api/agent/auth/poll').required).toEqual(['claim_token']);
      // The poll's summary names each state it can answer, denied included.
      for (const status of ['pending', 'claimed', 'denied']) expect(op('/api/agent/auth/poll').summary).toContain(status);
      expect(json('/api/agent/auth/claim/verify-otp').required).toEqual(['claim_token', 'otp']);
      expect(json('/api/agent/auth/claim/verify-otp').properties?.otp?.pattern).toBe('^[0-9]{6}$');
      expect((json('/api/agent/auth/claim/confirm').anyOf ?? []).map((s) => s.required)).toEqual([['claim_token'], ['user_code']]);
      expect(op('/api/agent/auth/revoke').requestBody?.content?.['application/logout+jwt']?.schema?.type).toBe('string');
      expect((op('/api/agent/sandbox/endpoints', 'get').parameters ?? []).map((p) => `${p.in}:${p.name}`)).toEqual(['query:slug', 'query:limit']);

      // Each status names its codes, so a client knows which refusal means what.
      const codes = (path: string, status: string) => op(path).responses?.[status]?.description ?? '';
      expect(codes('/api/agent/auth', '401')).toContain('replay_detected');
      expect(codes('/api/agent/auth', '403')).toContain('missing_verified_email');
      expect(codes('/api/agent/auth', '429')).toContain('rate_limited');
      expect(codes('/api/agent/auth/claim/verify-otp', '401')).toContain('otp_invalid');
      expect(codes('/api/agent/auth/claim/verify-otp', '410')).toContain('otp_expired');
      expect(codes('/api/agent/auth/poll', '410')).toContain('claim_expired');
    });

    test('/llms.txt states the limits in force, and they are the ones the service applies', async () => {
      const text = await (await fetch(`${h.url}/llms.txt`)).text();
      expect(text).toContain('The person has 45 minutes to claim it');
      expect(text).toContain('The code works for 7 minutes and 5 tries');
      expect(text).toContain('at most 2 live sandbox endpoints per key (one more is `409`), each lasting 90 minutes; 250 captures a month per key');
      // No AGENT_IDJAG_PROVIDERS here: the assertion flow (and its `aud`) is not offered
      // (test/behaviour/agent-assertion.test.ts has it with issuers configured).
      expect(text).not.toContain('`aud` exactly');
      expect(text).toContain('no live stream in the sandbox');

      const before = Date.now();
      const reg = await registerAnonymous(h.url, 'planning agent');
      const claimBy = Date.parse(reg.claim_token_expires) - before;
      expect(claimBy).toBeGreaterThanOrEqual(45 * 60_000 - 1000);
      expect(claimBy).toBeLessThan(45 * 60_000 + 10_000);
      const made = [];
      for (let i = 0; i < 2; i++) {
        const ep = await call<{ slug: string; expiresAt: number }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
        expect(ep.status).toBe(201);
        expect(ep.body.expiresAt - before).toBeGreaterThanOrEqual(90 * 60_000 - 1000);
        made.push(ep.body.slug);
      }
      expect((await call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential })).status).toBe(409);
      // As it says, waiting is polling: the live stream is refused to an unclaimed key.
      expect((await call(h.url, 'GET', `/api/stream/${made[0]}`, { token: reg.credential })).status).toBe(403);
    });

    test('an agent that tries to confirm its own claim is told that a person confirms, and how', async () => {
      const reg = await registerAnonymous(h.url, 'impatient agent');
      const keyless = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { body: { claim_token: reg.claim_token } });
      expect(keyless.status).toBe(401);
      expect((keyless.body as { error: string }).error).toContain('claim_url');
      expect(keyless.headers.get('www-authenticate')).toContain('resource_metadata=');
      const ownKey = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: reg.credential, body: { claim_token: reg.claim_token } });
      expect(ownKey.status).toBe(403);
      expect((ownKey.body as { error: string }).error).toContain('claim_url');
      const poll = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
      expect((poll.body as { status: string }).status).toBe('pending');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: {} }), 400, 'invalid_request');
    });

    test('an unclaimed key refused on an account route is told the sandbox route that works and how it gets claimed', async () => {
      const reg = await registerAnonymous(h.url, 'eager agent');
      const refused = await call(h.url, 'GET', '/api/endpoints', { token: reg.credential });
      expect(refused.status).toBe(403);
      const words = (refused.body as { error: string }).error;
      // Every route the message names answers that key (it once named /api/agent/sandbox, a 404).
      const named = [...words.matchAll(/(GET |POST )?(\/api\/agent\/[a-z/]+[a-z])/g)].map((m) => m[2] ?? '');
      expect(named).toEqual(['/api/agent/auth/poll', '/api/agent/sandbox/endpoints']);
      expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: reg.credential })).status).toBe(200);
      expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).status).toBe(200);
      expect(words).toContain('claim_url');
      expect(words).toContain('/agent/claim');
    });

    test('a guessed agent route is told where agents register, and every route that exists still answers', async () => {
      for (const [method, path] of [['POST', '/api/agent/register'], ['POST', '/api/agent/token'], ['DELETE', '/api/agent/auth/claim'], ['GET', '/api/agent/sandbox']] as const) {
        const r = await call(h.url, method, path, { body: method === 'GET' ? undefined : {} });
        expect({ method, path, status: r.status, code: (r.body as { code?: string }).code }).toEqual({ method, path, status: 404, code: 'not_found' });
        const words = (r.body as { error: string }).error;
        expect(words).toContain(`no agent route ${method} ${path}:`);
        expect(words).toContain('POST /api/agent/auth');
        expect(words).toContain('/.well-known/oauth-authorization-server');
      }
      // The routes themselves are untouched by the catch-all.
      expect((await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'still here' } })).status).toBe(201);
      expect((await call(h.url, 'GET', '/api/agent/sandbox/endpoints')).status).toBe(401);
      // A POST-only route asked with another method, not only GET, says to POST.
      for (const method of ['GET', 'PUT', 'DELETE'] as const) {
        for (const path of ['/api/agent/auth', '/api/agent/auth/poll', '/api/agent/auth/claim/verify-otp', '/api/agent/auth/claim/confirm', '/api/agent/auth/claim/deny', '/api/agent/auth/revoke']) {
          const r = await call(h.url, method, path);
          expect({ method, path, status: r.status, allow: r.headers.get('allow') }).toEqual({ method, path, status: 405, allow: 'POST' });
        }
      }
    });

    test('an agent cleaning up its sandbox is told that sandbox endpoints end by themselves, not "not found"', async () => {
      const reg = await registerAnonymous(h.url, 'tidy agent');
      const ep = await call<{ slug: string }>(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(ep.status).toBe(201);
      const tries = [
        ['DELETE', `/api/agent/sandbox/endpoints?slug=${ep.body.slug}`],
        ['PATCH', '/api/agent/sandbox/endpoints'],
        ['PUT', '/api/agent/sandbox/endpoints'],
      ] as const;
      for (const [method, path] of tries) {
        const r = await call(h.url, method, path, { token: reg.credential });
        expect({ method, status: r.status, allow: r.headers.get('allow') }).toEqual({ method, status: 405, allow: 'GET, POST' });
        expect(r.body).toMatchObject({ error: 'invalid_request' });
        expect((r.body as { error_description: string }).error_description).toContain('expiresAt');
      }
      // The REST-style guesses at one endpoint say where its captures are.
      for (const method of ['GET', 'DELETE'] as const) {
        const r = await call(h.url, method, `/api/agent/sandbox/endpoints/${ep.body.slug}`, { token: reg.credential });
        expect(r.status).toBe(404);
        expect((r.body as { error: string }).error).toContain('GET /api/agent/sandbox/endpoints?slug=<slug>');
      }
      // Nothing was deleted.
      const listed = await call<SandboxList>(h.url, 'GET', '/api/agent/sandbox/endpoints', { token: reg.credential });
      expect(listed.body.map((e) => e.slug)).toEqual([ep.body.slug]);
    });

    test('a POST that forgets its body is told to send a JSON object and which fields, not only "Expected object"', async () => {
      const { session } = await signUp(h.url);
      for (const [path, fields] of [['/api/endpoints', 'name'], ['/api/teams', 'name']] as const) {
        const r = await fetch(`${h.url}${path}`, { method: 'POST', headers: { authorization: `Bearer ${session}` } });
        const body = (await r.json()) as { error: string; code: string };
        expect({ path, status: r.status, code: body.code }).toEqual({ path, status: 400, code: 'validation' });
        expect(body.error).toBe(`send a JSON object with ${fields} as the body, with Content-Type: application/json (each route's fields: /docs/json)`);
      }
      // A body that is an object keeps naming the field.
      const wrong = await call(h.url, 'POST', '/api/endpoints', { token: session, body: { name: 5 } });
      expect((wrong.body as { error: string }).error).toStartWith('name:');
    });

    test('opening a POST-only agent route, such as the email flow’s claim_url, says to POST and what', async () => {
      const reg = await call<{ claim_url: string }>(h.url, 'POST', '/api/agent/auth', {
        body: { type: 'verified_email', email: uniqueEmail(), client_name: 'reading agent' },
      });
      expect(reg.status).toBe(201);
      const opened = await call(h.url, 'GET', new URL(reg.body.claim_url).pathname);
      expect(opened.status).toBe(405);
      expect(opened.headers.get('allow')).toBe('POST');
      expect(opened.body).toMatchObject({ error: 'invalid_request' });
      expect((opened.body as { error_description: string }).error_description).toContain('"otp"');
      for (const path of ['/api/agent/auth', '/api/agent/auth/poll', '/api/agent/auth/claim/confirm', '/api/agent/auth/revoke']) {
        expect((await call(h.url, 'GET', path)).status).toBe(405);
      }
    });

    test('an identity assertion sent as JSON is told its content type', async () => {
      const jwt = `${Buffer.from('{"alg":"ES256","typ":"oauth-id-jag+jwt"}').toString('base64url')}.${Buffer.from('{}').toString('base64url')}.c2ln`;
      const r = await fetch(`${h.url}/api/agent/auth`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: jwt });
      const body = (await r.json()) as { error: string; error_description: string };
      expect(r.status).toBe(400);
      expect(body.error).toBe('invalid_request');
      expect(body.error_description).toContain('Content-Type: application/jwt');
    });
  },
  // Limits off their defaults, so /llms.txt is seen stating the ones in force.
  { ...AGENT_ENV, BASE_URL: BASE, SANDBOX_MAX_ENDPOINTS: '2', SANDBOX_TTL_MS: '5400000', SANDBOX_MAX_CAPTURES: '250', CLAIM_TTL_MS: '2700000', AGENT_OTP_TTL_MS: '420000' },
);
