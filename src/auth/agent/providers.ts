/**
 * Trusted identity providers for ID-JAG assertions and logout tokens (SPEC 5.8). The list is fixed
 * at deployment time through `AGENT_IDJAG_PROVIDERS`; a bad entry stops start-up with a message
 * naming it, so a typo never silently widens or narrows the trust set.
 */
import type { JSONWebKeySet } from 'jose';
import { errorMessage, isRecord } from '../../unknown';

/**
 * Asymmetric JWS algorithms a provider may list. `none` and HS* are never accepted: an HMAC alg
 * would let anyone holding the public key (which is public) forge tokens (RFC 8725 §2.1, §3.1).
 */
export const ASYMMETRIC_ALGS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
] as const;

export type IdJagAlg = (typeof ASYMMETRIC_ALGS)[number];

export const DEFAULT_ALGS: readonly IdJagAlg[] = ['ES256', 'RS256'];

/** Where a provider's verification keys come from. */
export type ProviderKeySource =
  | { readonly kind: 'remote'; readonly jwksUri: string }
  | { readonly kind: 'inline'; readonly jwks: JSONWebKeySet };

export interface IdJagProvider {
  /** Exactly as configured; compared byte for byte with the token's `iss`. */
  readonly iss: string;
  readonly algs: readonly IdJagAlg[];
  readonly keySource: ProviderKeySource;
}

export interface ParseProvidersOptions {
  /** Accept http:// issuers and JWKS URLs. Only for tests against a local identity provider. */
  allowInsecureIssuers?: boolean;
}

const ENV = 'AGENT_IDJAG_PROVIDERS';
const ENTRY_FIELDS = new Set(['iss', 'jwks_uri', 'algs', 'jwks']);
/** JWK members that only private or symmetric keys carry. */
const SECRET_JWK_MEMBERS = ['d', 'p', 'q', 'dp', 'dq', 'qi', 'oth', 'k', 'priv'];



function isAsymmetricAlg(alg: string): alg is IdJagAlg {
  return (ASYMMETRIC_ALGS as readonly string[]).includes(alg);
}

function checkUrl(value: string, what: string, insecureOk: boolean, fail: (m: string) => never): URL {
  let u: URL;
  try {
    u = new URL(value);
  } catch {
    return fail(`${what} must be an absolute URL, got "${value}"`);
  }
  const schemeOk = u.protocol === 'https:' || (insecureOk && u.protocol === 'http:');
  if (!schemeOk) fail(`${what} must be an https URL, got "${value}"`);
  if (u.username !== '' || u.password !== '') fail(`${what} must not carry credentials`);
  return u;
}

function parseAlgs(raw: unknown, fail: (m: string) => never): IdJagAlg[] {
  if (raw === undefined) return [...DEFAULT_ALGS];
  if (!Array.isArray(raw) || raw.length === 0) fail('algs must be a non-empty array of strings');
  const out: IdJagAlg[] = [];
  for (const alg of raw) {
    if (typeof alg !== 'string') return fail('algs must be a non-empty array of strings');
    if (alg.toLowerCase() === 'none') fail('algs must not contain "none"');
    if (/^HS/i.test(alg)) fail(`algs must not contain the symmetric algorithm "${alg}"`);
    if (!isAsymmetricAlg(alg)) fail(`algs has unsupported algorithm "${alg}" (use ${ASYMMETRIC_ALGS.join(', ')})`);
    if (!out.includes(alg)) out.push(alg);
  }
  return out;
}

function parseInlineJwks(raw: unknown, fail: (m: string) => never): JSONWebKeySet {
  if (!isRecord(raw) || !Array.isArray(raw.keys) || raw.keys.length === 0) {
    return fail('jwks must be a JWK Set object with a non-empty "keys" array');
  }
  raw.keys.forEach((jwk: unknown, i) => {
    if (!isRecord(jwk) || typeof jwk.kty !== 'string') fail(`jwks.keys[${i}] must be a JWK with a "kty"`);
    if (jwk.kty === 'oct') fail(`jwks.keys[${i}] is a symmetric key; only public keys are allowed`);
    const secret = SECRET_JWK_MEMBERS.find((m) => m in jwk);
    if (secret) fail(`jwks.keys[${i}] has private member "${secret}"; publish only public keys`);
  });
  // Cloned so later mutation of the parsed JSON cannot change the trusted keys. The cast is sound
  // for what was checked above; jose validates each member's type when it imports the key.
  return structuredClone(raw) as unknown as JSONWebKeySet;
}

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null) {
    for (const v of Object.values(value)) deepFreeze(v);
    Object.freeze(value);
  }
  return value;
}

/**
 * Parse and validate the `AGENT_IDJAG_PROVIDERS` value. Unset or blank means no trusted provider.
 *
 * @example
 * parseIdJagProviders('[{"iss":"https://idp.example"}]')
 * // → [{ iss: 'https://idp.example', algs: ['ES256','RS256'],
 * //      keySource: { kind: 'remote', jwksUri: 'https://idp.example/.well-known/jwks.json' } }]
 */
export function parseIdJagProviders(
  raw: string | undefined,
  options: ParseProvidersOptions = {},
): readonly IdJagProvider[] {
  if (raw === undefined || raw.trim() === '') return Object.freeze([]);
  let parsed: unknown;
  try {
    parsed = JSON.parse(raw);
  } catch (e) {
    throw new Error(`${ENV} must be valid JSON: ${errorMessage(e)}`);
  }
  if (!Array.isArray(parsed)) throw new Error(`${ENV} must be a JSON array of provider objects`);

  const insecureOk = options.allowInsecureIssuers === true;
  const providers: IdJagProvider[] = [];
  parsed.forEach((entry: unknown, index) => {
    const label = () =>
      isRecord(entry) && typeof entry.iss === 'string' ? `${ENV}[${index}] (iss "${entry.iss}")` : `${ENV}[${index}]`;
    const fail = (message: string): never => {
      throw new Error(`${label()}: ${message}`);
    };
    if (!isRecord(entry)) return fail('must be an object with at least "iss"');
    const unknown = Object.keys(entry).filter((k) => !ENTRY_FIELDS.has(k));
    if (unknown.length > 0) {
      fail(`unknown field(s) ${unknown.map((k) => `"${k}"`).join(', ')} (allowed: iss, jwks_uri, algs, jwks)`);
    }

    const { iss } = entry;
    if (typeof iss !== 'string' || iss === '') return fail('iss must be a non-empty string');
    const issUrl = checkUrl(iss, 'iss', insecureOk, fail);
    // An OIDC issuer identifier has no query or fragment; one here is almost surely a paste error.
    if (issUrl.search !== '' || issUrl.hash !== '' || iss.includes('?') || iss.includes('#')) {
      fail('iss must not have a query or fragment');
    }
    if (providers.some((p) => p.iss === iss)) fail('duplicate iss');

    const algs = parseAlgs(entry.algs, fail);

    let keySource: ProviderKeySource;
    if (entry.jwks !== undefined) {
      // SPEC 5.8: inline keys are used in place of jwks_uri, so a jwks_uri beside them is ignored.
      keySource = { kind: 'inline', jwks: parseInlineJwks(entry.jwks, fail) };
    } else if (entry.jwks_uri !== undefined) {
      if (typeof entry.jwks_uri !== 'string') return fail('jwks_uri must be a string');
      checkUrl(entry.jwks_uri, 'jwks_uri', insecureOk, fail);
      keySource = { kind: 'remote', jwksUri: entry.jwks_uri };
    } else {
      keySource = { kind: 'remote', jwksUri: `${iss.replace(/\/+$/, '')}/.well-known/jwks.json` };
    }

    providers.push({ iss, algs, keySource });
  });
  return deepFreeze(providers);
}

/** The provider whose `iss` equals `iss` exactly, or null. */
export function findProvider(providers: readonly IdJagProvider[], iss: string): IdJagProvider | null {
  return providers.find((p) => p.iss === iss) ?? null;
}
