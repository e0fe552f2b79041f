import { beforeAll, describe, expect, test } from 'bun:test';
import { parseIdJagProviders } from '../../src/auth/agent/providers';
import { makeKey, type TestKey } from '../support/idp';

const parse = (entries: unknown, insecure = false) =>
  parseIdJagProviders(JSON.stringify(entries), { allowInsecureIssuers: insecure });

let key: TestKey;
beforeAll(async () => {
  key = await makeKey('ES256', 'k1');
});

describe('parseIdJagProviders: accepted', () => {
  test('unset or blank means no providers', () => {
    expect(parseIdJagProviders(undefined)).toEqual([]);
    expect(parseIdJagProviders('')).toEqual([]);
    expect(parseIdJagProviders('  \n')).toEqual([]);
    expect(parseIdJagProviders('[]')).toEqual([]);
  });

  test('defaults: ES256 and RS256, jwks_uri under the issuer', () => {
    expect(parse([{ iss: 'https://idp.example' }])).toEqual([
      {
        iss: 'https://idp.example',
        algs: ['ES256', 'RS256'],
        keySource: { kind: 'remote', jwksUri: 'https://idp.example/.well-known/jwks.json' },
      },
    ]);
  });

  test('issuer with a path and trailing slash: iss kept verbatim, no double slash in the default jwks_uri', () => {
    const [p] = parse([{ iss: 'https://idp.example/tenant/' }]);
    expect(p?.iss).toBe('https://idp.example/tenant/');
    expect(p?.keySource).toEqual({ kind: 'remote', jwksUri: 'https://idp.example/tenant/.well-known/jwks.json' });
  });

  test('explicit jwks_uri and algs', () => {
    const [p] = parse([{ iss: 'https://idp.example', jwks_uri: 'https://keys.idp.example/jwks?v=2', algs: ['PS256', 'EdDSA', 'PS256'] }]);
    expect(p?.algs).toEqual(['PS256', 'EdDSA']);
    expect(p?.keySource).toEqual({ kind: 'remote', jwksUri: 'https://keys.idp.example/jwks?v=2' });
  });

  test('inline jwks takes the place of jwks_uri', () => {
    const [p] = parse([{ iss: 'https://idp.example', jwks_uri: 'https://ignored.example/jwks', jwks: { keys: [key.publicJwk] } }]);
    expect(p?.keySource).toEqual({ kind: 'inline', jwks: { keys: [key.publicJwk] } });
  });

  test('several providers', () => {
    const ps = parse([{ iss: 'https://a.example' }, { iss: 'https://b.example', algs: ['ES384'] }]);
    expect(ps.map((p) => p.iss)).toEqual(['https://a.example', 'https://b.example']);
  });

  test('http issuers only with allowInsecureIssuers', () => {
    expect(() => parse([{ iss: 'http://127.0.0.1:8080' }])).toThrow('must be an https URL');
    expect(parse([{ iss: 'http://127.0.0.1:8080' }], true)[0]?.iss).toBe('http://127.0.0.1:8080');
  });

  test('the result is frozen, keys included', () => {
    const ps = parse([{ iss: 'https://idp.example', jwks: { keys: [key.publicJwk] } }]);
    expect(Object.isFrozen(ps)).toBe(true);
    const p = ps[0];
    expect(p && Object.isFrozen(p.algs)).toBe(true);
    expect(p && p.keySource.kind === 'inline' && Object.isFrozen(p.keySource.jwks.keys[0])).toBe(true);
  });
});

describe('parseIdJagProviders: refused, with a message naming the entry', () => {
  const bad: Array<[string, unknown, string]> = [
    ['not an object', ['https://idp.example'], 'AGENT_IDJAG_PROVIDERS[0]: must be an object'],
    ['missing iss', [{ algs: ['ES256'] }], 'AGENT_IDJAG_PROVIDERS[0]: iss must be a non-empty string'],
    ['relative iss', [{ iss: 'idp.example' }], 'must be an absolute URL'],
    ['http iss', [{ iss: 'http://idp.example' }], 'AGENT_IDJAG_PROVIDERS[0] (iss "http://idp.example"): iss must be an https URL'],
    ['iss with query', [{ iss: 'https://idp.example?x=1' }], 'must not have a query or fragment'],
    ['iss with fragment', [{ iss: 'https://idp.example#a' }], 'must not have a query or fragment'],
    ['iss with credentials', [{ iss: 'https://u:p@idp.example' }], 'must not carry credentials'],
    ['http jwks_uri', [{ iss: 'https://idp.example', jwks_uri: 'http://idp.example/jwks' }], 'jwks_uri must be an https URL'],
    ['jwks_uri not a string', [{ iss: 'https://idp.example', jwks_uri: 5 }], 'jwks_uri must be a string'],
    ['alg none', [{ iss: 'https://idp.example', algs: ['ES256', 'none'] }], 'must not contain "none"'],
    ['alg NONE', [{ iss: 'https://idp.example', algs: ['NONE'] }], 'must not contain "none"'],
    ['alg HS256', [{ iss: 'https://idp.example', algs: ['HS256'] }], 'symmetric algorithm "HS256"'],
    ['alg hs512', [{ iss: 'https://idp.example', algs: ['hs512'] }], 'symmetric algorithm "hs512"'],
    ['unknown alg', [{ iss: 'https://idp.example', algs: ['XY256'] }], 'unsupported algorithm "XY256"'],
    ['empty algs', [{ iss: 'https://idp.example', algs: [] }], 'algs must be a non-empty array'],
    ['algs not an array', [{ iss: 'https://idp.example', algs: 'ES256' }], 'algs must be a non-empty array'],
    ['unknown field (typo)', [{ iss: 'https://idp.example', alg: ['ES256'] }], 'unknown field(s) "alg"'],
    ['duplicate iss', [{ iss: 'https://a.example' }, { iss: 'https://a.example' }], 'AGENT_IDJAG_PROVIDERS[1] (iss "https://a.example"): duplicate iss'],
    ['jwks without keys', [{ iss: 'https://idp.example', jwks: {} }], 'jwks must be a JWK Set'],
    ['jwks with empty keys', [{ iss: 'https://idp.example', jwks: { keys: [] } }], 'jwks must be a JWK Set'],
    ['jwks symmetric key', [{ iss: 'https://idp.example', jwks: { keys: [{ kty: 'oct', k: 'c2VjcmV0' }] } }], 'symmetric key'],
  ];
  for (const [name, entries, message] of bad) {
    test(name, () => {
      expect(() => parse(entries)).toThrow(message);
    });
  }

  test('jwks with a private key', () => {
    const privateJwk = { ...key.publicJwk, d: 'c2VjcmV0' };
    expect(() => parse([{ iss: 'https://idp.example', jwks: { keys: [privateJwk] } }])).toThrow('private member "d"');
  });

  test('the second entry is named when it is the bad one', () => {
    expect(() => parse([{ iss: 'https://a.example' }, { iss: 'https://b.example', algs: ['HS256'] }])).toThrow(
      'AGENT_IDJAG_PROVIDERS[1] (iss "https://b.example")',
    );
  });

  test('not JSON, or not an array', () => {
    expect(() => parseIdJagProviders('{iss:')).toThrow('AGENT_IDJAG_PROVIDERS must be valid JSON');
    expect(() => parseIdJagProviders('{"iss":"https://idp.example"}')).toThrow('AGENT_IDJAG_PROVIDERS must be a JSON array');
  });
});
