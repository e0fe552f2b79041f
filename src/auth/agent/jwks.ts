/**
 * Verification keys per trusted provider (SPEC 5.8–5.9). Remote sets are cached and refetched once
 * when a token names an unknown `kid`, so a provider can rotate keys at the same jwks_uri without a
 * redeploy; the cooldown keeps a stream of made-up kids from turning us into a fetch amplifier.
 */
import {
  createLocalJWKSet,
  createRemoteJWKSet,
  type CryptoKey,
  type FlattenedJWSInput,
  type JWSHeaderParameters,
} from 'jose';
import type { IdJagProvider } from './providers';

export type KeyResolver = (header: JWSHeaderParameters, token: FlattenedJWSInput) => Promise<CryptoKey>;

export interface JwksCache {
  /** The one resolver for this provider's issuer, created on first use. */
  resolverFor(provider: IdJagProvider): KeyResolver;
}

export interface JwksCacheOptions {
  /** Minimum time between two fetches triggered by an unknown kid. jose default 30 s. */
  cooldownMs?: number;
  /** Refetch a set older than this before using it. jose default 10 min. */
  cacheMaxAgeMs?: number;
  /** Abort a JWKS fetch after this long. jose default 5 s. */
  timeoutMs?: number;
}

export const DEFAULT_JWKS_OPTIONS: Readonly<Required<JwksCacheOptions>> = Object.freeze({
  cooldownMs: 30_000,
  cacheMaxAgeMs: 10 * 60_000,
  timeoutMs: 5_000,
});

/**
 * @example
 * const keys = createJwksCache({ cooldownMs: 0 }); // tests: refetch on every unknown kid
 * const getKey = keys.resolverFor(provider);
 */
export function createJwksCache(options: JwksCacheOptions = {}): JwksCache {
  const opts = { ...DEFAULT_JWKS_OPTIONS, ...options };
  // Keyed by issuer: the provider list is fixed for the process, so one iss means one key source.
  const byIssuer = new Map<string, KeyResolver>();
  return {
    resolverFor(provider) {
      const cached = byIssuer.get(provider.iss);
      if (cached) return cached;
      const source = provider.keySource;
      const resolver: KeyResolver =
        source.kind === 'inline'
          ? createLocalJWKSet(source.jwks)
          : createRemoteJWKSet(new URL(source.jwksUri), {
              cooldownDuration: opts.cooldownMs,
              cacheMaxAge: opts.cacheMaxAgeMs,
              timeoutDuration: opts.timeoutMs,
            });
      byIssuer.set(provider.iss, resolver);
      return resolver;
    },
  };
}
