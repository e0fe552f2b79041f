import { afterEach, beforeAll, describe, expect, test } from 'bun:test';
import { verifyIdJag } from '../../src/auth/agent/assertion';
import { createJwksCache } from '../../src/auth/agent/jwks';
import { TestIdp, depsFor, expectCode, idJagClaims, makeKey, providersFrom, sign, type TestKey } from '../support/idp';

let oldKey: TestKey;
let newKey: TestKey;
let rsaKey: TestKey;
const running: TestIdp[] = [];

function startIdp(path?: string): TestIdp {
  const idp = TestIdp.start(path);
  running.push(idp);
  return idp;
}

beforeAll(async () => {
  oldKey = await makeKey('ES256', 'k-2024');
  newKey = await makeKey('ES256', 'k-2025');
  rsaKey = await makeKey('RS256', 'k-rsa');
});

afterEach(() => {
  for (const idp of running.splice(0)) idp.stop();
});

describe('remote JWKS', () => {
  test('fetched once and cached across verifications', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    const deps = depsFor(providersFrom([{ iss: idp.url }]));
    for (let i = 0; i < 3; i++) await verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps);
    expect(idp.jwksFetches).toBe(1);
  });

  test('rotation at the same jwks_uri: an unknown kid triggers one refetch, then verifies', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    const deps = depsFor(providersFrom([{ iss: idp.url }]), { cooldownMs: 0 });
    await verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps);
    expect(idp.jwksFetches).toBe(1);

    idp.publish(newKey);
    const out = await verifyIdJag(await sign(idJagClaims(idp.url), newKey), deps);
    expect(out.iss).toBe(idp.url);
    expect(idp.jwksFetches).toBe(2);

    // The old key is gone from the set now; tokens it signs no longer verify.
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps), 'invalid_signature');
  });

  test('a kid that is not in the set even after the refetch: exactly one refetch, then invalid_signature', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    const deps = depsFor(providersFrom([{ iss: idp.url }]), { cooldownMs: 0 });
    await verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps);
    const stranger = await makeKey('ES256', 'never-published');
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), stranger), deps), 'invalid_signature');
    expect(idp.jwksFetches).toBe(2);
  });

  test('within the cooldown an unknown kid does not refetch', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    const deps = depsFor(providersFrom([{ iss: idp.url }]), { cooldownMs: 60_000 });
    await verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps);
    idp.publish(newKey);
    for (let i = 0; i < 5; i++) {
      await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), newKey), deps), 'invalid_signature');
    }
    expect(idp.jwksFetches).toBe(1);
  });

  test('custom jwks_uri is used instead of the default path', async () => {
    const idp = startIdp('/oauth/keys');
    idp.publish(rsaKey);
    const deps = depsFor(providersFrom([{ iss: idp.url, jwks_uri: `${idp.url}/oauth/keys` }]));
    await verifyIdJag(await sign(idJagClaims(idp.url), rsaKey), deps);
    expect(idp.jwksFetches).toBe(1);
  });

  test('a failing JWKS endpoint is temporarily_unavailable, not a bad token', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    idp.failWith = 500;
    const deps = depsFor(providersFrom([{ iss: idp.url }]));
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps), 'temporarily_unavailable');
  });

  test('an unreachable JWKS endpoint is temporarily_unavailable', async () => {
    const idp = TestIdp.start();
    const iss = idp.url;
    idp.stop();
    const deps = depsFor(providersFrom([{ iss }]));
    await expectCode(verifyIdJag(await sign(idJagClaims(iss), oldKey), deps), 'temporarily_unavailable');
  });

  test('a slow JWKS endpoint times out as temporarily_unavailable', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    idp.delayMs = 500;
    const deps = depsFor(providersFrom([{ iss: idp.url }]), { timeoutMs: 50 });
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps), 'temporarily_unavailable');
  });

  test('a JWKS answer that is not a key set is temporarily_unavailable', async () => {
    const idp = startIdp();
    idp.publish(oldKey);
    idp.rawBody = { issuer: idp.url };
    const deps = depsFor(providersFrom([{ iss: idp.url }]));
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps), 'temporarily_unavailable');
  });
});

describe('createJwksCache', () => {
  test('one resolver per issuer', async () => {
    const idp = startIdp();
    const [a, b] = providersFrom([{ iss: idp.url }, { iss: 'https://b.example', jwks: { keys: [oldKey.publicJwk] } }]);
    if (!a || !b) throw new Error('providers missing');
    const cache = createJwksCache();
    expect(cache.resolverFor(a)).toBe(cache.resolverFor(a));
    expect(cache.resolverFor(b)).toBe(cache.resolverFor(b));
    expect(cache.resolverFor(a)).not.toBe(cache.resolverFor(b));
  });

  test('inline keys never touch the network, even with an unknown kid', async () => {
    const idp = startIdp();
    idp.publish(newKey);
    // The issuer URL points at a live server, but inline keys take its place.
    const deps = depsFor(providersFrom([{ iss: idp.url, jwks: { keys: [oldKey.publicJwk] } }]), { cooldownMs: 0 });
    await verifyIdJag(await sign(idJagClaims(idp.url), oldKey), deps);
    await expectCode(verifyIdJag(await sign(idJagClaims(idp.url), newKey), deps), 'invalid_signature');
    expect(idp.jwksFetches).toBe(0);
  });
});
