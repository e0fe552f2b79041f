import { afterAll, beforeAll, describe, expect, test } from 'bun:test';
import { exportSPKI, SignJWT } from 'jose';
import { verifyIdJag } from '../../src/auth/agent/assertion';
import type { IdJagProvider } from '../../src/auth/agent/providers';
import {
  AUDIENCE,
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

const INLINE_ISS = 'https://idp.example';

let es: TestKey;
let rs: TestKey;
let attacker: TestKey;
let idp: TestIdp;
let inline: readonly IdJagProvider[];
let remote: readonly IdJagProvider[];

beforeAll(async () => {
  es = await makeKey('ES256', 'es-1');
  rs = await makeKey('RS256', 'rs-1');
  // Same kid as the trusted key, different key material: a forger's best guess.
  attacker = await makeKey('ES256', 'es-1');
  idp = TestIdp.start();
  idp.publish(es, rs);
  inline = providersFrom([{ iss: INLINE_ISS, jwks: { keys: [es.publicJwk, rs.publicJwk] } }]);
  remote = providersFrom([{ iss: idp.url }]);
});

afterAll(() => idp.stop());

const inlineDeps = () => depsFor(inline);

describe('verifyIdJag: accepted assertions', () => {
  test('ES256 with inline keys returns who it vouches for', async () => {
    const claims = idJagClaims(INLINE_ISS);
    const out = await verifyIdJag(await sign(claims, es), inlineDeps());
    expect(out).toEqual({
      iss: INLINE_ISS,
      sub: 'user-123',
      email: 'ada@example.com',
      jti: String(claims.jti),
      exp: NOW + 300,
      clientId: 'agent-cli',
    });
  });

  test('RS256 with keys fetched from the issuer jwks_uri over HTTP', async () => {
    const out = await verifyIdJag(await sign(idJagClaims(idp.url), rs), depsFor(remote));
    expect(out.iss).toBe(idp.url);
    expect(idp.jwksFetches).toBeGreaterThan(0);
  });

  test('typ compares as a media type: application/ prefix and case are accepted', async () => {
    for (const typ of ['application/oauth-id-jag+jwt', 'OAuth-ID-JAG+JWT']) {
      await verifyIdJag(await sign(idJagClaims(INLINE_ISS), es, { typ }), inlineDeps());
    }
  });

  test('aud as a one-element array naming us', async () => {
    await verifyIdJag(await sign(idJagClaims(INLINE_ISS, { aud: [AUDIENCE] }), es), inlineDeps());
  });

  test('client_id is optional and omitted from the result when absent', async () => {
    const out = await verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), 'client_id'), es), inlineDeps());
    expect('clientId' in out).toBe(false);
  });

  test('surrounding whitespace (a trailing newline from a file) is tolerated', async () => {
    await verifyIdJag(`${await sign(idJagClaims(INLINE_ISS), es)}\n`, inlineDeps());
  });

  test('several keys without kid: the one that verifies is used', async () => {
    const other = await makeKey('ES256', 'unused');
    const providers = providersFrom([{ iss: INLINE_ISS, jwks: { keys: [other.publicJwk, es.publicJwk] } }]);
    await verifyIdJag(await sign(idJagClaims(INLINE_ISS), es, { noKid: true }), depsFor(providers));
  });

  test('expired, but within the clock skew', async () => {
    await verifyIdJag(await sign(idJagClaims(INLINE_ISS, { exp: NOW - 30 }), es), inlineDeps());
  });

  test('iat in the future, but within the clock skew', async () => {
    await verifyIdJag(await sign(idJagClaims(INLINE_ISS, { iat: NOW + 59 }), es), inlineDeps());
  });
});

describe('verifyIdJag: algorithm attacks', () => {
  test('alg none, hand-crafted, is refused', async () => {
    const token = handCraft({ alg: 'none', typ: 'oauth-id-jag+jwt' }, idJagClaims(INLINE_ISS));
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
  });

  test('alg None / NONE spellings are refused', async () => {
    for (const alg of ['None', 'NONE']) {
      const token = handCraft({ alg, typ: 'oauth-id-jag+jwt' }, idJagClaims(INLINE_ISS));
      await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
    }
  });

  test('alg none with a made-up signature is refused', async () => {
    const token = handCraft({ alg: 'none', typ: 'oauth-id-jag+jwt', kid: 'es-1' }, idJagClaims(INLINE_ISS), 'c2ln');
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
  });

  test('HS256 with the public JWK as the HMAC secret is refused', async () => {
    const secret = new TextEncoder().encode(JSON.stringify(rs.publicJwk));
    const token = await new SignJWT(idJagClaims(idp.url))
      .setProtectedHeader({ alg: 'HS256', kid: rs.kid, typ: 'oauth-id-jag+jwt' })
      .sign(secret);
    await expectCode(verifyIdJag(token, depsFor(remote)), 'invalid_signature');
  });

  test('HS256 with the public key PEM as the HMAC secret is refused', async () => {
    const publicKey = await crypto.subtle.importKey(
      'jwk',
      rs.publicJwk,
      { name: 'RSASSA-PKCS1-v1_5', hash: 'SHA-256' },
      true,
      ['verify'],
    );
    const secret = new TextEncoder().encode(await exportSPKI(publicKey));
    const token = await new SignJWT(idJagClaims(INLINE_ISS))
      .setProtectedHeader({ alg: 'HS256', kid: rs.kid, typ: 'oauth-id-jag+jwt' })
      .sign(secret);
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
  });

  test('a real alg outside this provider allow-list is refused', async () => {
    const esOnly = providersFrom([{ iss: INLINE_ISS, algs: ['ES256'], jwks: { keys: [es.publicJwk, rs.publicJwk] } }]);
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS), rs), depsFor(esOnly)), 'invalid_signature');
  });

  test('a forged signature with a trusted kid is refused', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS), attacker), inlineDeps()), 'invalid_signature');
  });

  test('a tampered payload is refused', async () => {
    const [h, , s] = (await sign(idJagClaims(INLINE_ISS), es)).split('.');
    const forged = handCraft({}, idJagClaims(INLINE_ISS, { email: 'eve@example.com' })).split('.')[1];
    await expectCode(verifyIdJag(`${h}.${forged}.${s}`, inlineDeps()), 'invalid_signature');
  });

  test('header jku pointing at the attacker keys is never followed', async () => {
    const evil = TestIdp.start();
    try {
      evil.publish(attacker);
      const token = await sign(idJagClaims(INLINE_ISS), attacker, { header: { jku: `${evil.url}/.well-known/jwks.json` } });
      await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
      expect(evil.jwksFetches).toBe(0);
    } finally {
      evil.stop();
    }
  });

  test('an embedded jwk header is never trusted', async () => {
    const token = await sign(idJagClaims(INLINE_ISS), attacker, { header: { jwk: attacker.publicJwk } });
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_signature');
  });
});

describe('verifyIdJag: typ and shape', () => {
  test('wrong typ is refused', async () => {
    for (const typ of ['JWT', 'at+jwt', 'logout+jwt', 'oauth-id-jag']) {
      await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS), es, { typ }), inlineDeps()), 'invalid_token');
    }
  });

  test('missing typ is refused', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS), es, { typ: null }), inlineDeps()), 'invalid_token');
  });

  test('a logout token is not an assertion', async () => {
    const logout = await sign(logoutClaims(INLINE_ISS, { email: 'ada@example.com', email_verified: true }), es, {
      typ: 'logout+jwt',
    });
    await expectCode(verifyIdJag(logout, inlineDeps()), 'invalid_token');
  });

  test('malformed tokens', async () => {
    const good = await sign(idJagClaims(INLINE_ISS), es);
    const [h, p, s] = good.split('.');
    const cases = [
      '',
      'not-a-jwt',
      `${h}.${p}`,
      `${h}.${p}.${s}.extra`,
      `${h}.!!!.${s}`,
      `e30.${p}.${s}`, // header {}: no typ
      `${h}.${Buffer.from('not json').toString('base64url')}.${s}`,
      `${h}.${Buffer.from('[1,2]').toString('base64url')}.${s}`,
      `${good}${'a'.repeat(20_000)}`,
    ];
    for (const token of cases) await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_token');
  });

  test('crit headers are refused', async () => {
    // Signed with the extension marked understood, so only our own refusal can stop it.
    const token = await new SignJWT(idJagClaims(INLINE_ISS))
      .setProtectedHeader({ alg: 'ES256', kid: es.kid, typ: 'oauth-id-jag+jwt', crit: ['x-ext'], 'x-ext': 1 })
      .sign(es.privateKey, { crit: { 'x-ext': true } });
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_token');
  });

  test('a non-string kid is refused', async () => {
    const token = await sign(idJagClaims(INLINE_ISS), es, { noKid: true, header: { kid: 42 } });
    await expectCode(verifyIdJag(token, inlineDeps()), 'invalid_token');
  });

  test('missing jti or sub', async () => {
    for (const name of ['jti', 'sub']) {
      await expectCode(verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), name), es), inlineDeps()), 'invalid_token');
    }
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { jti: '' }), es), inlineDeps()), 'invalid_token');
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { jti: 7 }), es), inlineDeps()), 'invalid_token');
  });
});

describe('verifyIdJag: issuer and audience', () => {
  test('untrusted iss', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims('https://evil.example'), es), inlineDeps()), 'invalid_issuer');
  });

  test('iss differing only by a trailing slash is not trusted', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(`${INLINE_ISS}/`), es), inlineDeps()), 'invalid_issuer');
  });

  test('missing iss', async () => {
    await expectCode(verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), 'iss'), es), inlineDeps()), 'invalid_token');
  });

  test('a trusted iss signed with a key of another issuer', async () => {
    const other = providersFrom([
      { iss: INLINE_ISS, jwks: { keys: [es.publicJwk] } },
      { iss: 'https://other.example', jwks: { keys: [attacker.publicJwk] } },
    ]);
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS), attacker), depsFor(other)), 'invalid_signature');
  });

  test('wrong aud', async () => {
    for (const aud of ['https://other.example/api/', 'https://hooks.example/api', 'https://hooks.example/', [`${AUDIENCE}x`]]) {
      await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { aud }), es), inlineDeps()), 'invalid_audience');
    }
  });

  test('aud array with two elements, one of them us', async () => {
    const aud = [AUDIENCE, 'https://other.example/api/'];
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { aud }), es), inlineDeps()), 'invalid_audience');
  });

  test('empty aud array', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { aud: [] }), es), inlineDeps()), 'invalid_audience');
  });

  test('missing aud', async () => {
    await expectCode(verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), 'aud'), es), inlineDeps()), 'invalid_token');
  });
});

describe('verifyIdJag: time', () => {
  test('expired beyond the skew', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { exp: NOW - 61 }), es), inlineDeps()), 'credential_expired');
  });

  test('exp missing or not a number', async () => {
    await expectCode(verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), 'exp'), es), inlineDeps()), 'invalid_token');
    for (const exp of [String(NOW + 300), null, { n: NOW }]) {
      await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { exp }), es), inlineDeps()), 'invalid_token');
    }
  });

  test('iat in the future beyond the skew', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { iat: NOW + 61 }), es), inlineDeps()), 'invalid_signature');
  });

  test('iat missing', async () => {
    await expectCode(verifyIdJag(await sign(without(idJagClaims(INLINE_ISS), 'iat'), es), inlineDeps()), 'invalid_token');
  });

  test('nbf in the future beyond the skew', async () => {
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { nbf: NOW + 120 }), es), inlineDeps()), 'invalid_signature');
  });

  test('clockSkewSeconds is honoured', async () => {
    const strict = { ...inlineDeps(), clockSkewSeconds: 0 };
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { iat: NOW + 1 }), es), strict), 'invalid_signature');
    await expectCode(verifyIdJag(await sign(idJagClaims(INLINE_ISS, { exp: NOW }), es), strict), 'credential_expired');
    const lax = { ...inlineDeps(), clockSkewSeconds: 300 };
    await verifyIdJag(await sign(idJagClaims(INLINE_ISS, { iat: NOW + 200 }), es), lax);
  });

  test('a broken clock or skew fails closed', async () => {
    const token = await sign(idJagClaims(INLINE_ISS, { exp: NOW - 3600 }), es);
    for (const bad of [{ now: () => Number.NaN }, { clockSkewSeconds: Number.NaN }, { clockSkewSeconds: -1 }]) {
      await expect(verifyIdJag(token, { ...inlineDeps(), ...bad })).rejects.toThrow('finite clock');
    }
  });
});

describe('verifyIdJag: verified email', () => {
  const cases: Array<[string, Record<string, unknown>, string[]]> = [
    ['email_verified missing', {}, ['email_verified']],
    ['email_verified false', { email_verified: false }, []],
    ['email_verified as the string "true"', { email_verified: 'true' }, []],
    ['email missing', {}, ['email']],
    ['email malformed', { email: 'not-an-email' }, []],
    ['email not a string', { email: ['ada@example.com'] }, []],
    ['phone only', { phone_number: '+15555550100', phone_number_verified: true }, ['email', 'email_verified']],
  ];
  for (const [name, overrides, drop] of cases) {
    test(name, async () => {
      const claims = without(idJagClaims(INLINE_ISS, overrides), ...drop);
      await expectCode(verifyIdJag(await sign(claims, es), inlineDeps()), 'missing_verified_email');
    });
  }
});
