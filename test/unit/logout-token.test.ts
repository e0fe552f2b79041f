import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { SignJWT } from 'jose';
import { verifyIdJag } from '../../src/auth/agent/assertion';
import { verifyLogoutToken } from '../../src/auth/agent/logout-token';
import type { IdJagProvider } from '../../src/auth/agent/providers';
import {
  AUDIENCE,
  LOGOUT_EVENT,
  NOW,
  TestIdp,
  depsFor,
  expectCode,
  handCraft,
  idJagClaims,
  logoutClaims,
  makeKey,
  providersFrom,
  sign,
  without,
  type TestKey,
} from '../support/idp';

const ISS = 'https://idp.example';
const LOGOUT = { typ: 'logout+jwt' };

let es: TestKey;
let rs: TestKey;
let providers: readonly IdJagProvider[];
let idp: TestIdp;

beforeAll(async () => {
  es = await makeKey('ES256', 'es-1');
  rs = await makeKey('RS256', 'rs-1');
  providers = providersFrom([{ iss: ISS, jwks: { keys: [es.publicJwk, rs.publicJwk] } }]);
  idp = TestIdp.start();
  idp.publish(rs);
});

afterAll(() => idp.stop());

const deps = () => depsFor(providers);

describe('verifyLogoutToken: accepted', () => {
  test('returns iss, sub, jti and exp', async () => {
    const claims = logoutClaims(ISS);
    const out = await verifyLogoutToken(await sign(claims, es, LOGOUT), deps());
    expect(out).toEqual({ iss: ISS, sub: 'user-123', jti: String(claims.jti), exp: NOW + 120 });
  });

  test('over a remote JWKS, RS256, with typ application/logout+jwt and a sid beside sub', async () => {
    const remote = depsFor(providersFrom([{ iss: idp.url }]));
    const token = await sign(logoutClaims(idp.url, { sid: 'session-9' }), rs, { typ: 'application/logout+jwt' });
    expect((await verifyLogoutToken(token, remote)).iss).toBe(idp.url);
  });

  test('aud as a one-element array', async () => {
    await verifyLogoutToken(await sign(logoutClaims(ISS, { aud: [AUDIENCE] }), es, LOGOUT), deps());
  });
});

describe('verifyLogoutToken: confusion with assertions', () => {
  test('an ID-JAG is not a logout token', async () => {
    await expectCode(verifyLogoutToken(await sign(idJagClaims(ISS), es), deps()), 'invalid_token');
  });

  test('an ID-JAG carrying a logout event is still not a logout token', async () => {
    const token = await sign(idJagClaims(ISS, { events: { [LOGOUT_EVENT]: {} } }), es);
    await expectCode(verifyLogoutToken(token, deps()), 'invalid_token');
  });

  test('a logout token is not an assertion, even with a verified email', async () => {
    const token = await sign(logoutClaims(ISS, { email: 'ada@example.com', email_verified: true }), es, LOGOUT);
    await expectCode(verifyIdJag(token, deps()), 'invalid_token');
  });

  test('plain JWT typ or no typ is refused', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS), es, { typ: 'JWT' }), deps()), 'invalid_token');
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS), es, { typ: null }), deps()), 'invalid_token');
  });
});

describe('verifyLogoutToken: claim rules', () => {
  test('nonce is forbidden', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { nonce: 'n-1' }), es, LOGOUT), deps()), 'invalid_token');
  });

  test('missing events', async () => {
    await expectCode(verifyLogoutToken(await sign(without(logoutClaims(ISS), 'events'), es, LOGOUT), deps()), 'invalid_token');
  });

  test('events without the back-channel logout member, or with a non-object value', async () => {
    const bad: unknown[] = [
      {},
      { 'http://schemas.openid.net/event/other': {} },
      { [LOGOUT_EVENT]: true },
      { [LOGOUT_EVENT]: [] },
      { [LOGOUT_EVENT]: null },
      [LOGOUT_EVENT],
      LOGOUT_EVENT,
    ];
    for (const events of bad) {
      await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { events }), es, LOGOUT), deps()), 'invalid_token');
    }
  });

  test('sub is required (sid alone is not enough to revoke by subject)', async () => {
    const token = await sign(without(logoutClaims(ISS, { sid: 'session-9' }), 'sub'), es, LOGOUT);
    await expectCode(verifyLogoutToken(token, deps()), 'invalid_token');
  });

  test('a non-string sid is refused', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { sid: 9 }), es, LOGOUT), deps()), 'invalid_token');
  });

  test('missing jti, iat or exp', async () => {
    for (const name of ['jti', 'iat', 'exp']) {
      await expectCode(verifyLogoutToken(await sign(without(logoutClaims(ISS), name), es, LOGOUT), deps()), 'invalid_token');
    }
  });

  test('expired', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { exp: NOW - 120 }), es, LOGOUT), deps()), 'credential_expired');
  });

  test('iat in the future beyond the skew', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { iat: NOW + 600 }), es, LOGOUT), deps()), 'invalid_signature');
  });

  test('wrong aud, or two audiences', async () => {
    for (const aud of ['https://other.example/api/', [AUDIENCE, 'https://other.example/']]) {
      await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS, { aud }), es, LOGOUT), deps()), 'invalid_audience');
    }
  });

  test('untrusted issuer', async () => {
    await expectCode(verifyLogoutToken(await sign(logoutClaims('https://evil.example'), es, LOGOUT), deps()), 'invalid_issuer');
  });
});

describe('verifyLogoutToken: algorithm attacks', () => {
  test('alg none', async () => {
    const token = handCraft({ alg: 'none', typ: 'logout+jwt' }, logoutClaims(ISS));
    await expectCode(verifyLogoutToken(token, deps()), 'invalid_signature');
  });

  test('HS256 keyed with the public JWK', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(es.publicJwk));
    const token = await new SignJWT(logoutClaims(ISS)).setProtectedHeader({ alg: 'HS256', typ: 'logout+jwt' }).sign(secret);
    await expectCode(verifyLogoutToken(token, deps()), 'invalid_signature');
  });

  test('signed by a key the issuer never published', async () => {
    const forger = await makeKey('ES256', 'es-1');
    await expectCode(verifyLogoutToken(await sign(logoutClaims(ISS), forger, LOGOUT), deps()), 'invalid_signature');
  });
});
