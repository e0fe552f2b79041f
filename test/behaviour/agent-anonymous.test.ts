import { expect, test } from 'bun:test';
import { call, newAccount, type ErrorFields, type Method } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, registerAnonymous, signUp, type AnonymousReply, type PollReply } from './agent-support';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const USER_CODE = /^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/;

describeBackends(
  'agent registration: anonymous flow and claim',
  (h) => {
    test('registration returns exactly the SPEC 4.8 fields, with a sandbox-only key', async () => {
      const before = Date.now();
      const r = await call<AnonymousReply>(h.url, 'POST', '/api/agent/auth', {
        body: { type: 'anonymous', requested_credential_type: 'api_key', client_name: 'deploy-bot' },
      });
      expect(r.status).toBe(201);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(Object.keys(r.body).sort()).toEqual(
        [
          'registration_id',
          'registration_type',
          'credential_type',
          'credential',
          'credential_expires',
          'scopes',
          'claim_url',
          'claim_token',
          'user_code',
          'claim_token_expires',
          'post_claim_scopes',
        ].sort(),
      );
      expect(r.body.registration_id).toMatch(UUID);
      expect(r.body.registration_type).toBe('anonymous');
      expect(r.body.credential_type).toBe('api_key');
      expect(r.body.credential).toMatch(/^svc_[A-Za-z0-9_-]{43}$/);
      expect(r.body.credential_expires).toBeNull();
      expect(r.body.scopes).toEqual([]);
      expect(r.body.claim_token).toMatch(/^clm_[A-Za-z0-9_-]{43}$/);
      expect(r.body.claim_url).toBe(`${h.url}/agent/claim?token=${r.body.claim_token}`);
      expect(r.body.user_code).toMatch(USER_CODE);
      expect(r.body.post_claim_scopes).toEqual(['webhooks:read', 'webhooks:write']);
      const expires = Date.parse(r.body.claim_token_expires);
      expect(r.body.claim_token_expires).toBe(new Date(expires).toISOString());
      expect(expires).toBeGreaterThan(before + 3_500_000);
      expect(expires).toBeLessThan(Date.now() + 3_700_000);
    });

    test('identity_type is an alias of type; requested_credential_type other than api_key is refused', async () => {
      const alias = await call<AnonymousReply>(h.url, 'POST', '/api/agent/auth', { body: { identity_type: 'anonymous', client_name: 'alias' } });
      expect(alias.status).toBe(201);
      expect(alias.body.registration_type).toBe('anonymous');
      for (const requested of ['oauth_token', 'jwt', 42]) {
        const r = await call(h.url, 'POST', '/api/agent/auth', {
          body: { type: 'anonymous', requested_credential_type: requested, client_name: 'x' },
        });
        if (typeof requested === 'string') expectAgentError(r, 400, 'unsupported_credential_type');
        else expectAgentError(r, 400, 'invalid_request');
      }
    });

    test('malformed registrations are invalid_request JSON', async () => {
      const cases: Array<[unknown, string | undefined]> = [
        [{ client_name: 'no type' }, undefined],
        [{ type: 'telepathy', client_name: 'x' }, undefined],
        [{ type: 'anonymous' }, undefined],
        [{ type: 'anonymous', client_name: '   ' }, undefined],
        [{ type: 'anonymous', client_name: 'x'.repeat(101) }, undefined],
        [{ type: 'anonymous', identity_type: 'verified_email', client_name: 'x' }, undefined],
        [{ type: 'identity_assertion', client_name: 'x' }, undefined],
        [[1, 2], undefined],
      ];
      for (const [body] of cases) expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { body }), 400, 'invalid_request');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { raw: '{nope', headers: { 'content-type': 'application/json' } }), 400, 'invalid_request');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { raw: 'type=anonymous', headers: { 'content-type': 'text/plain' } }), 400, 'invalid_request');
    });

    test('a field of the wrong type is named in the words the capture API uses for the same field', async () => {
      // These fields take a string or null (null reads as absent), as a route's notificationUrl does:
      // the words are the shared ones (src/schema-words.ts), not TypeBox's "Expected union value".
      const human = await signUp(h.url);
      const cases: Array<[Method, string, unknown, string | undefined, string]> = [
        ['POST', '/api/agent/auth', { type: 'anonymous', client_name: 7 }, undefined, 'client_name: must be a string or null'],
        ['POST', '/api/agent/auth', { type: ['anonymous'], client_name: 'x' }, undefined, 'type: must be a string or null'],
        ['POST', '/api/agent/auth/claim/confirm', { user_code: { code: 'BCDF-GHJK' } }, human.session, 'user_code: must be a string or null'],
      ];
      for (const [method, path, body, token, description] of cases) {
        const r = await call(h.url, method, path, { body, token });
        expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 400, body: { error: 'invalid_request', error_description: description } });
      }
    });

    test('an unclaimed key gets 403 on every account-scoped route, and 401 once made up', async () => {
      const reg = await registerAnonymous(h.url);
      const routes: Array<[Method, string, unknown?]> = [
        ['GET', '/api/endpoints'],
        ['POST', '/api/endpoints', { name: 'nope' }],
        ['GET', '/api/endpoints/abcdefghijkm'],
        ['PATCH', '/api/endpoints/abcdefghijkm', { name: 'x' }],
        ['DELETE', '/api/endpoints/abcdefghijkm'],
        ['GET', '/api/endpoints/abcdefghijkm/requests'],
        ['GET', '/api/endpoints/abcdefghijkm/requests/paginated'],
        ['DELETE', '/api/endpoints/abcdefghijkm/requests'],
        ['GET', '/api/requests/req_01JD0000000000000000000000'],
        ['GET', '/api/search/requests'],
        ['GET', '/api/search/requests/count'],
        ['GET', '/api/usage'],
        ['POST', '/api/send-test', { slug: 'abcdefghijkm', method: 'POST', headers: {}, body: '' }],
        ['GET', '/api/stream/abcdefghijkm'],
        ['GET', '/api/teams'],
        ['POST', '/api/teams', { name: 'agents' }],
        ['GET', '/api/invites'],
        ['GET', '/api/auth/me'],
        ['GET', '/api/api-keys'],
        ['POST', '/api/api-keys', {}],
        ['DELETE', '/api/account'],
      ];
      for (const [method, path, body] of routes) {
        const r = await call<ErrorFields>(h.url, method, path, { token: reg.credential, body });
        if (r.status !== 403) throw new Error(`${method} ${path}: expected 403, got ${r.status} ${r.text}`);
        expect(typeof r.body.error).toBe('string');
      }
      expect((await call(h.url, 'GET', '/api/endpoints', { token: `${reg.credential.slice(0, -2)}xx` })).status).toBe(401);
    });

    test('poll: pending echoes user_code; claim by token; then claimed, and the same key has the full API', async () => {
      const reg = await registerAnonymous(h.url, 'poller');
      const pending = await call<PollReply>(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
      expect(pending.status).toBe(200);
      expect(pending.headers.get('cache-control')).toBe('no-store');
      expect(pending.body).toEqual({
        registration_id: reg.registration_id,
        registration_type: 'anonymous',
        status: 'pending',
        user_code: reg.user_code,
        claim_token_expires: reg.claim_token_expires,
      });

      const human = await signUp(h.url);
      const claimed = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } });
      expect(claimed.status).toBe(200);
      expect(claimed.body).toMatchObject({ registration_id: reg.registration_id, status: 'claimed', client_name: 'poller', scopes: ['webhooks:read', 'webhooks:write'] });

      const after = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
      expect(after.status).toBe(200);
      expect(after.body).toMatchObject({ registration_id: reg.registration_id, status: 'claimed', scopes: ['webhooks:read', 'webhooks:write'] });
      expect(after.body.user_code).toBeUndefined();

      // The very same key now works on account routes, on the claimer's account.
      const me = await call(h.url, 'GET', '/api/auth/me', { token: reg.credential });
      expect(me.status).toBe(200);
      expect(me.body.id).toBe(human.userId);
      const ep = await call(h.url, 'POST', '/api/endpoints', { token: reg.credential, body: { name: 'after claim' } });
      expect(ep.status).toBe(201);
      // … and it is listed among the account's keys with the post-claim scopes.
      const keys = await call(h.url, 'GET', '/api/api-keys', { token: human.session });
      const listed = keys.body.find((k: { prefix: string }) => reg.credential.startsWith(k.prefix));
      expect(listed).toMatchObject({ name: 'agent: poller', scopes: ['webhooks:read', 'webhooks:write'] });
      // It has left the sandbox.
      expect((await call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential })).status).toBe(403);
    });

    test('claim by user code, typed loosely; a second claim is previously_claimed', async () => {
      const reg = await registerAnonymous(h.url, 'by-code');
      const human = await signUp(h.url);
      const typed = ` ${reg.user_code.toLowerCase().replace('-', ' ')} `;
      const ok = await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: typed } });
      expect(ok.status).toBe(200);
      expect(ok.body.registration_id).toBe(reg.registration_id);
      const other = await signUp(h.url);
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: other.session, body: { user_code: reg.user_code } }), 409, 'previously_claimed');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } }), 409, 'previously_claimed');
      // The key stayed with the first claimer.
      expect((await call(h.url, 'GET', '/api/auth/me', { token: reg.credential })).body.id).toBe(human.userId);
    });

    test('two racing confirms: exactly one wins', async () => {
      const reg = await registerAnonymous(h.url, 'race');
      const a = await signUp(h.url);
      const b = await signUp(h.url);
      const results = await Promise.all([
        call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: a.session, body: { claim_token: reg.claim_token } }),
        call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: b.session, body: { claim_token: reg.claim_token } }),
      ]);
      expect(results.map((r) => r.status).sort()).toEqual([200, 409]);
      const winner = results[0]?.status === 200 ? a : b;
      expect((await call(h.url, 'GET', '/api/auth/me', { token: reg.credential })).body.id).toBe(winner.userId);
    });

    test('confirm needs a browser session: an API key gets 403, nobody gets 401', async () => {
      const reg = await registerAnonymous(h.url);
      const acct = await newAccount(h.url);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: acct.key, body: { claim_token: reg.claim_token } })).status).toBe(403);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: reg.credential, body: { claim_token: reg.claim_token } })).status).toBe(403);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { body: { claim_token: reg.claim_token } })).status).toBe(401);
      const still = await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } });
      expect(still.body.status).toBe('pending');
    });

    test('bad claim references: invalid_claim_token or invalid_request', async () => {
      const human = await signUp(h.url);
      const confirm = (body: unknown) => call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body });
      expectAgentError(await confirm({ claim_token: 'clm_nope' }), 400, 'invalid_claim_token');
      expectAgentError(await confirm({ claim_token: `clm_${'A'.repeat(43)}` }), 400, 'invalid_claim_token');
      expectAgentError(await confirm({ user_code: 'AAAA-AAAA' }), 400, 'invalid_claim_token');
      expectAgentError(await confirm({ user_code: 'BCDF-GHJK' }), 400, 'invalid_claim_token');
      expectAgentError(await confirm({}), 400, 'invalid_request');
      expectAgentError(await confirm({ claim_token: 'clm_x', user_code: 'BCDF-GHJK' }), 400, 'invalid_request');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: 'clm_short' } }), 400, 'invalid_claim_token');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: `clm_${'B'.repeat(43)}` } }), 400, 'invalid_claim_token');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: {} }), 400, 'invalid_request');
    });

    test('a claim that would exceed the account key limit is too_many_keys and changes nothing', async () => {
      const reg = await registerAnonymous(h.url, 'full');
      const human = await signUp(h.url);
      const made: string[] = [];
      for (let i = 0; i < 25; i++) {
        const k = await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: { name: `k${i}` } });
        expect(k.status).toBe(201);
        made.push(k.body.id);
      }
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } }), 409, 'too_many_keys');
      expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } })).body.status).toBe('pending');
      expect((await call(h.url, 'GET', '/api/endpoints', { token: reg.credential })).status).toBe(403);
      expect((await call(h.url, 'DELETE', `/api/api-keys?id=${made[0]}`, { token: human.session })).status).toBe(204);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } })).status).toBe(200);
    });
  },
  AGENT_ENV,
);
