/**
 * A test identity provider: real key pairs from jose, a JWKS served over a real local HTTP server,
 * and helpers to mint (or hand-craft) assertions and logout tokens.
 */
import { expect } from 'bun:test';
import { base64url, exportJWK, generateKeyPair, SignJWT, type CryptoKey, type JWK, type JWTPayload } from 'jose';
import { AppError, type ErrorCode } from '../../src/errors';
import { createJwksCache, type JwksCacheOptions } from '../../src/auth/agent/jwks';
import { parseIdJagProviders, type IdJagProvider } from '../../src/auth/agent/providers';
import type { TokenTrustDeps } from '../../src/auth/agent/signed-jwt';

export const AUDIENCE = 'https://hooks.example/api/';
/** A fixed clock keeps time-based cases exact. Seconds. */
export const NOW = 1_760_000_000;
export const nowMs = () => NOW * 1000;

export type TestAlg = 'ES256' | 'RS256';

export interface TestKey {
  kid: string;
  alg: TestAlg;
  privateKey: CryptoKey;
  publicJwk: JWK;
}

export async function makeKey(alg: TestAlg, kid: string): Promise<TestKey> {
  const { privateKey, publicKey } = await generateKeyPair(alg);
  const publicJwk = { ...(await exportJWK(publicKey)), kid, alg, use: 'sig' };
  return { kid, alg, privateKey, publicJwk };
}

export interface SignOptions {
  /** Header typ; null leaves it out. Default: the ID-JAG typ. */
  typ?: string | null;
  /** Omit the kid from the header. */
  noKid?: boolean;
  /** Extra protected-header members (jku, jwk, crit, …). */
  header?: Record<string, unknown>;
}

export async function sign(claims: JWTPayload, key: TestKey, opts: SignOptions = {}): Promise<string> {
  const typ = opts.typ === undefined ? 'oauth-id-jag+jwt' : opts.typ;
  const header = {
    alg: key.alg,
    ...(opts.noKid ? {} : { kid: key.kid }),
    ...(typ === null ? {} : { typ }),
    ...opts.header,
  };
  return new SignJWT(claims).setProtectedHeader(header).sign(key.privateKey);
}

/** A token whose header and payload are written by hand and whose signature is whatever we say. */
export function handCraft(header: Record<string, unknown>, claims: Record<string, unknown>, signature = ''): string {
  const enc = (v: unknown) => base64url.encode(JSON.stringify(v));
  return `${enc(header)}.${enc(claims)}.${signature}`;
}

let jtiCounter = 0;
export const freshJti = () => `jti-${Date.now()}-${++jtiCounter}`;

export function idJagClaims(iss: string, overrides: Record<string, unknown> = {}): JWTPayload {
  return {
    iss,
    sub: 'user-123',
    aud: AUDIENCE,
    client_id: 'agent-cli',
    jti: freshJti(),
    iat: NOW - 5,
    exp: NOW + 300,
    email: 'ada@example.com',
    email_verified: true,
    ...overrides,
  };
}

export const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';

export function logoutClaims(iss: string, overrides: Record<string, unknown> = {}): JWTPayload {
  return {
    iss,
    sub: 'user-123',
    aud: AUDIENCE,
    jti: freshJti(),
    iat: NOW - 5,
    exp: NOW + 120,
    events: { [LOGOUT_EVENT]: {} },
    ...overrides,
  };
}

/** Drop claims from a claim set (overrides can only add or replace). */
export function without(claims: JWTPayload, ...names: string[]): JWTPayload {
  const out: JWTPayload = { ...claims };
  for (const n of names) delete out[n];
  return out;
}

/** An identity provider serving its JWKS at `<url>/.well-known/jwks.json` over real HTTP. */
export class TestIdp {
  published: JWK[] = [];
  jwksFetches = 0;
  /** Set to make the JWKS endpoint fail with this status. */
  failWith: number | null = null;
  /** Serve this JSON instead of the published key set. */
  rawBody: unknown = null;
  /** Delay JWKS answers by this many ms. */
  delayMs = 0;
  private constructor(private readonly server: ReturnType<typeof Bun.serve>) {}

  static start(jwksPath = '/.well-known/jwks.json'): TestIdp {
    let idp: TestIdp | null = null;
    const server = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch: async (req) => {
        if (!idp || new URL(req.url).pathname !== jwksPath) return new Response('not found', { status: 404 });
        idp.jwksFetches++;
        if (idp.delayMs > 0) await Bun.sleep(idp.delayMs);
        if (idp.failWith !== null) return new Response('boom', { status: idp.failWith });
        return Response.json(idp.rawBody ?? { keys: idp.published });
      },
    });
    idp = new TestIdp(server);
    return idp;
  }

  get url(): string {
    return `http://127.0.0.1:${this.server.port}`;
  }

  publish(...keys: TestKey[]): void {
    this.published = keys.map((k) => k.publicJwk);
  }

  stop(): void {
    this.server.stop(true);
  }
}

/** Providers parsed through the real config parser, so tests exercise it too. */
export function providersFrom(entries: unknown[]): readonly IdJagProvider[] {
  return parseIdJagProviders(JSON.stringify(entries), { allowInsecureIssuers: true });
}

export function depsFor(providers: readonly IdJagProvider[], jwks: JwksCacheOptions = {}): TokenTrustDeps {
  return { providers, audience: AUDIENCE, keys: createJwksCache(jwks), now: nowMs };
}

/** Await a promise that must reject with an AppError of `code`; returns the error. */
export async function expectCode(promise: Promise<unknown>, code: ErrorCode): Promise<AppError> {
  let caught: unknown = null;
  try {
    await promise;
  } catch (e) {
    caught = e;
  }
  if (!(caught instanceof AppError)) {
    throw new Error(`expected AppError ${code}, got ${caught === null ? 'success' : String(caught)}`);
  }
  expect(caught.code).toBe(code);
  return caught;
}
