/**
 * Identity assertions (ID-JAG) and revocation by logout token, end to end: a test identity
 * provider with jose-generated keys serves its JWKS over real HTTP (and a second one is configured
 * with inline keys); the server verifies against them through AGENT_IDJAG_PROVIDERS.
 */
import { afterAll, expect, test } from 'bun:test';
import { SignJWT, type JWTPayload } from 'jose';
import { call, type Reply } from '../support/client';
import { startServer, stopServer, RESTART_TEST_MS } from '../support/server';
import { SseClient } from '../support/sse';
import { describeBackends } from '../support/suite';
import { handCraft, makeKey, sign, TestIdp, type TestKey } from '../support/idp';
import { AGENT_ENV, expectAgentError, signUp, uniqueEmail, type AssertionReply, type RevokeReply } from './agent-support';
import { signUpProven } from './password-reset-support';

const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const INLINE_ISS = 'https://inline-idp.example';

const es1 = await makeKey('ES256', 'es-1');
const rsInline = await makeKey('RS256', 'rs-inline');
const idp = TestIdp.start();
idp.publish(es1);
afterAll(() => idp.stop());

const ENV = {
  ...AGENT_ENV,
  AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: idp.url }, { iss: INLINE_ISS, jwks: { keys: [rsInline.publicJwk] } }]),
  AGENT_ALLOW_INSECURE_ISSUERS: 'true',
  // Rotation is picked up on the very next unknown kid.
  JWKS_COOLDOWN_MS: '0',
};

const nowS = () => Math.floor(Date.now() / 1000);
let n = 0;
const jti = () => `jti-${Date.now()}-${++n}-${Math.random().toString(36).slice(2)}`;

function idJag(base: string, overrides: Record<string, unknown> = {}): JWTPayload {
  return {
    iss: idp.url,
    sub: `sub-${jti()}`,
    aud: `${base}/api/`,
    client_id: 'agent-cli',
    jti: jti(),
    iat: nowS(),
    exp: nowS() + 300,
    email: uniqueEmail('idjag'),
    email_verified: true,
    ...overrides,
  };
}

function logout(base: string, sub: string, overrides: Record<string, unknown> = {}): JWTPayload {
  return { iss: idp.url, sub, aud: `${base}/api/`, jti: jti(), iat: nowS(), exp: nowS() + 120, events: { [LOGOUT_EVENT]: {} }, ...overrides };
}

const without = (claims: JWTPayload, ...names: string[]): JWTPayload => {
  const out = { ...claims };
  for (const name of names) delete out[name];
  return out;
};

const postJwt = (base: string, token: string, type = 'application/jwt') =>
  call<AssertionReply>(base, 'POST', '/api/agent/auth', { raw: token, headers: { 'content-type': type } });
const revoke = (base: string, token: string, type = 'application/logout+jwt') =>
  call<RevokeReply>(base, 'POST', '/api/agent/auth/revoke', { raw: token, headers: { 'content-type': type } });

function expectLogoutRefusal(r: Reply, code: string): void {
  expectAgentError(r, 400, code);
  expect(r.headers.get('cache-control')).toBe('no-store');
}

describeBackends(
  'agent registration: identity assertions and revocation',
  (h) => {
    const assert = async (claims: JWTPayload, key: TestKey = es1, typ?: string | null) => postJwt(h.url, await sign(claims, key, { typ }));

    test('the authorization server metadata and /llms.txt advertise assertions, naming the configured issuers', async () => {
      const r = await call(h.url, 'GET', '/.well-known/oauth-authorization-server');
      expect(r.body).toMatchObject({
        agent_registration_types_supported: ['anonymous', 'verified_email', 'identity_assertion'],
        agent_revocation_endpoint: `${h.url}/api/agent/auth/revoke`,
        identity_assertion_issuers_supported: [idp.url, INLINE_ISS],
        identity_assertion_token_types_supported: ['urn:ietf:params:oauth:token-type:id-jag'],
        identity_assertion_signing_alg_values_supported: ['ES256', 'RS256'],
      });
      const llms = await (await fetch(`${h.url}/llms.txt`)).text();
      expect(llms).toContain(`trusted provider (${idp.url}, ${INLINE_ISS}), with \`aud\` exactly ${h.url}/api/`);
      const openapi = (await call<{ info: { description: string } }>(h.url, 'GET', '/docs/json')).body;
      expect(openapi.info.description).toContain('or an identity assertion from a trusted provider');
    });

    test('a valid assertion returns a key at once, bound to the account provisioned for the verified email', async () => {
      const claims = idJag(h.url);
      const r = await assert(claims);
      expect(r.status).toBe(201);
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.body).toEqual({
        credential_type: 'api_key',
        credential: expect.stringMatching(/^svc_[A-Za-z0-9_-]{43}$/),
        credential_expires: null,
        scopes: ['webhooks:read', 'webhooks:write'],
      });
      const me = await call(h.url, 'GET', '/api/auth/me', { token: r.body.credential });
      expect(me.status).toBe(200);
      expect(me.body.email).toBe(String(claims.email));
      expect((await call(h.url, 'POST', '/api/endpoints', { token: r.body.credential, body: { name: 'idjag' } })).status).toBe(201);
      expect(idp.jwksFetches).toBeGreaterThan(0);
    });

    test('an existing account is matched by email, case-insensitively; inline JWKS with RS256 work too', async () => {
      const human = await signUp(h.url);
      const r = await assert(idJag(h.url, { iss: INLINE_ISS, email: human.email.toUpperCase() }), rsInline);
      expect(r.status).toBe(201);
      expect((await call(h.url, 'GET', '/api/auth/me', { token: r.body.credential })).body.id).toBe(human.userId);
      // Its address was never proven (a sign-up), so the proof recovered it: the sign-up's session
      // ended (test/security/agent-preregistered.test.ts has the whole story).
      expect((await call(h.url, 'GET', '/api/auth/me', { token: human.session })).status).toBe(401);
    });

    test('application/jwt with parameters and surrounding whitespace is accepted', async () => {
      const token = await sign(idJag(h.url), es1);
      const r = await postJwt(h.url, `${token}\n`, 'Application/JWT; charset=utf-8');
      expect(r.status).toBe(201);
    });

    test('attacks on the signature: alg none, HS256 with the public key, a forged key with a trusted kid', async () => {
      const claims = idJag(h.url);
      for (const alg of ['none', 'None']) {
        expectAgentError(await postJwt(h.url, handCraft({ alg, typ: 'oauth-id-jag+jwt', kid: 'es-1' }, claims)), 401, 'invalid_signature');
      }
      const hmacWithPublicKey = await new SignJWT(idJag(h.url))
        .setProtectedHeader({ alg: 'HS256', kid: 'es-1', typ: 'oauth-id-jag+jwt' })
        .sign(new TextEncoder().encode(JSON.stringify(es1.publicJwk)));
      expectAgentError(await postJwt(h.url, hmacWithPublicKey), 401, 'invalid_signature');
      const forger = await makeKey('ES256', 'es-1');
      expectAgentError(await assert(idJag(h.url), forger), 401, 'invalid_signature');
    });

    test('wrong typ, a logout token, malformed tokens: invalid_token', async () => {
      for (const typ of ['JWT', 'logout+jwt', null]) expectAgentError(await assert(idJag(h.url), es1, typ), 400, 'invalid_token');
      expectAgentError(await postJwt(h.url, 'not.a.jwt'), 400, 'invalid_token');
      expectAgentError(await postJwt(h.url, ''), 400, 'invalid_token');
      expectAgentError(await assert(without(idJag(h.url), 'jti')), 400, 'invalid_token');
      expectAgentError(await assert(without(idJag(h.url), 'exp')), 400, 'invalid_token');
    });

    test('wrong audience, untrusted issuer', async () => {
      for (const aud of ['https://elsewhere.example/api/', `${h.url}/api`, `${h.url}/`, [`${h.url}/api/`, 'https://other.example/api/']]) {
        expectAgentError(await assert(idJag(h.url, { aud })), 401, 'invalid_audience');
      }
      expectAgentError(await assert(idJag(h.url, { iss: 'https://untrusted.example' })), 401, 'invalid_issuer');
      expectAgentError(await assert(idJag(h.url, { iss: `${idp.url}/` })), 401, 'invalid_issuer');
    });

    test('expired, and issued in the future', async () => {
      expectAgentError(await assert(idJag(h.url, { iat: nowS() - 900, exp: nowS() - 600 })), 401, 'credential_expired');
      expectAgentError(await assert(idJag(h.url, { iat: nowS() + 600, exp: nowS() + 900 })), 401, 'invalid_signature');
    });

    test('a replayed jti is replay_detected, even for a re-signed token', async () => {
      const claims = idJag(h.url);
      expect((await assert(claims)).status).toBe(201);
      expectAgentError(await assert(claims), 401, 'replay_detected');
      expectAgentError(await assert({ ...claims, exp: nowS() + 200, email: uniqueEmail() }), 401, 'replay_detected');
    });

    test('missing or false email_verified, or phone only: missing_verified_email, and no account is provisioned', async () => {
      const cases: JWTPayload[] = [
        without(idJag(h.url), 'email_verified'),
        idJag(h.url, { email_verified: false }),
        idJag(h.url, { email_verified: 'true' }),
        without(idJag(h.url, { phone_number: '+15555550100', phone_number_verified: true }), 'email', 'email_verified'),
      ];
      for (const claims of cases) {
        expectAgentError(await assert(claims), 403, 'missing_verified_email');
        // The address was never turned into an account: it can still be signed up.
        if (typeof claims.email === 'string') expect((await call(h.url, 'POST', '/api/auth/signup', { body: { email: claims.email, password: 'long enough pw' } })).status).toBe(201);
      }
    });

    test('an unknown kid is refused; after rotation at the same JWKS URL the new key is picked up', async () => {
      const rotated = await makeKey('ES256', `rotated-${h.backend}-${Date.now()}`);
      expectAgentError(await assert(idJag(h.url), rotated), 401, 'invalid_signature');
      const fetchesBefore = idp.jwksFetches;
      idp.published = [...idp.published, rotated.publicJwk];
      const r = await assert(idJag(h.url), rotated);
      expect(r.status).toBe(201);
      expect(idp.jwksFetches).toBe(fetchesBefore + 1);
      // The old key still verifies without another fetch.
      expect((await assert(idJag(h.url))).status).toBe(201);
      expect(idp.jwksFetches).toBe(fetchesBefore + 1);
    });

    test('a JSON body of type identity_assertion is refused: the assertion is the body', async () => {
      const token = await sign(idJag(h.url), es1);
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'identity_assertion', assertion: token } }), 400, 'invalid_request');
    });

    test('an account at its key limit gets too_many_keys; the assertion stays unspent', async () => {
      // Proven (a reset): an unproven account would be recovered, its keys revoked, instead.
      const human = await signUpProven(h.server);
      const ids: string[] = [];
      for (let i = 0; i < 25; i++) ids.push((await call(h.url, 'POST', '/api/api-keys', { token: human.session, body: {} })).body.id);
      const token = await sign(idJag(h.url, { email: human.email }), es1);
      expectAgentError(await postJwt(h.url, token), 409, 'too_many_keys');
      expect((await call(h.url, 'DELETE', `/api/api-keys?id=${ids[0]}`, { token: human.session })).status).toBe(204);
      expect((await postJwt(h.url, token)).status).toBe(201);
    });

    test('replay is detected after a restart (jti kept in Postgres)', async () => {
      const first = await startServer({ env: { ...h.provisioned.env, ...ENV } });
      let second: Awaited<ReturnType<typeof startServer>> | null = null;
      try {
        const token = await sign(idJag(first.url), es1);
        expect((await postJwt(first.url, token)).status).toBe(201);
        await stopServer(first, { keepData: true });
        second = await startServer({ env: first.env, dataDir: first.dataDir, port: first.port });
        expectAgentError(await postJwt(second.url, token), 401, 'replay_detected');
      } finally {
        await stopServer(second ?? first);
      }
    }, RESTART_TEST_MS);

    test('revoke: every key issued for iss+sub gets 401 at once; others keep working', async () => {
      const sub = `sub-revoke-${jti()}`;
      const email = uniqueEmail();
      const a1 = (await assert(idJag(h.url, { sub, email }))).body.credential;
      const a2 = (await assert(idJag(h.url, { sub, email }))).body.credential;
      const other = (await assert(idJag(h.url, { sub: `${sub}-other`, email }))).body.credential;
      const otherIssuer = (await assert(idJag(h.url, { iss: INLINE_ISS, sub, email }), rsInline)).body.credential;
      for (const k of [a1, a2, other, otherIssuer]) expect((await call(h.url, 'GET', '/api/endpoints', { token: k })).status).toBe(200);

      const token = await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' });
      const r = await revoke(h.url, token);
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ revoked: 2 });
      expect(r.headers.get('cache-control')).toBe('no-store');
      for (const k of [a1, a2]) expect((await call(h.url, 'GET', '/api/endpoints', { token: k })).status).toBe(401);
      for (const k of [other, otherIssuer]) expect((await call(h.url, 'GET', '/api/endpoints', { token: k })).status).toBe(200);

      expectLogoutRefusal(await revoke(h.url, token), 'replay_detected');
      // A subject with nothing (left) to revoke is still a success.
      expect((await revoke(h.url, await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' }))).body).toEqual({ revoked: 0 });
    });

    test('revoke: an open stream of a revoked key ends at once (credential_revoked); another key of the account streams on', async () => {
      const sub = `sub-stream-${jti()}`;
      const email = uniqueEmail();
      const revoked = (await assert(idJag(h.url, { sub, email }))).body.credential;
      const other = (await assert(idJag(h.url, { sub: `${sub}-other`, email }))).body.credential;
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: revoked, body: { name: 'agent stream' } })).body;
      const url = `${h.url}/api/stream/${ep.slug}`;
      const ending = await SseClient.live(url, { token: revoked });
      const staying = await SseClient.live(url, { token: other });
      expect((await revoke(h.url, await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' }))).body).toEqual({ revoked: 1 });
      await ending.until(() => ending.ended, 3_000);
      expect(ending.events.map((e) => [e.event, e.data])).toEqual([['end', '{"reason":"credential_revoked"}']]);
      const sent = await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body: 'after revoke' });
      expect(sent.status).toBe(200);
      await staying.until(() => staying.events.length === 1);
      expect(ending.events.length).toBe(1);
      expect(staying.ended).toBe(false);
      staying.close();
    });

    test('revoke refuses bad logout tokens with 400 and no-store', async () => {
      const sub = 'nobody';
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' }), 'application/jwt'), 'invalid_request');
      expectLogoutRefusal(await revoke(h.url, await sign(idJag(h.url), es1)), 'invalid_token');
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub, { events: {} }), es1, { typ: 'logout+jwt' })), 'invalid_token');
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub, { nonce: 'n' }), es1, { typ: 'logout+jwt' })), 'invalid_token');
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub, { iss: 'https://untrusted.example' }), es1, { typ: 'logout+jwt' })), 'invalid_issuer');
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub, { aud: 'https://x.example/api/' }), es1, { typ: 'logout+jwt' })), 'invalid_audience');
      expectLogoutRefusal(await revoke(h.url, await sign(logout(h.url, sub, { iat: nowS() - 900, exp: nowS() - 600 }), es1, { typ: 'logout+jwt' })), 'credential_expired');
      expectLogoutRefusal(await revoke(h.url, handCraft({ alg: 'none', typ: 'logout+jwt' }, logout(h.url, sub))), 'invalid_signature');
      // A logout token is no assertion either.
      expectAgentError(await postJwt(h.url, await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' })), 400, 'invalid_token');
    });

    if (h.backend === 'server') {
      test('revocation holds at once on another node sharing the database', async () => {
        const node2 = await startServer({ env: { ...h.provisioned.env, ...ENV } });
        try {
          const sub = `sub-multi-${jti()}`;
          const key = (await assert(idJag(h.url, { sub }))).body.credential;
          expect((await call(node2.url, 'GET', '/api/endpoints', { token: key })).status).toBe(200);
          expect((await revoke(h.url, await sign(logout(h.url, sub), es1, { typ: 'logout+jwt' }))).status).toBe(200);
          expect((await call(node2.url, 'GET', '/api/endpoints', { token: key })).status).toBe(401);
          expect((await call(h.url, 'GET', '/api/endpoints', { token: key })).status).toBe(401);
        } finally {
          await stopServer(node2);
        }
      });
    }
  },
  ENV,
);

describeBackends('agent registration: provider configuration', (h) => {
  test('a bad AGENT_IDJAG_PROVIDERS stops start-up with a message naming it', async () => {
    let failure = '';
    try {
      const s = await startServer({
        env: { ...h.provisioned.env, AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: 'https://idp.example', algs: ['HS256'] }]) },
      });
      await stopServer(s);
    } catch (e) {
      failure = String(e);
    }
    expect(failure).toContain('AGENT_IDJAG_PROVIDERS');
    expect(failure).toContain('HS256');
  });
});
