/**
 * Endpoint-level signature verification (SPEC 2.4 signatureVerified / signatureError /
 * signingProvider). Pure and synchronous: no network, no key fetching.
 *
 * @example
 * const result = verifySignature(
 *   { provider: 'stripe', secret: 'whsec_…' },
 *   { headers: capture.headers, rawBody, url: receivedUrl, method: capture.method, now: Date.now() },
 * );
 * // → { signatureVerified: false, signatureError: 'timestamp_outside_tolerance', signingProvider: 'stripe' }
 */
import { Type } from '@sinclair/typebox';
import { SignatureError } from './primitives';
import { PROVIDER_SCHEMES, verifyGenericHmac } from './schemes';
import type { SigningConfig, VerifyInput, VerifyResult } from './types';

export type { HashAlgorithm, ProviderScheme, SigningConfig, VerifyInput, VerifyResult } from './types';
export { SignatureError } from './primitives';
export { DEFAULT_TOLERANCE_SECONDS } from './schemes';

const Secret = Type.String({ minLength: 1, maxLength: 4096 });

/** Request body schema for the signing part of PATCH /api/endpoints. */
export const SigningConfigSchema = Type.Union(
  [
    Type.Object(
      {
        provider: Type.Union([
          Type.Literal('stripe'),
          Type.Literal('github'),
          Type.Literal('shopify'),
          Type.Literal('slack'),
          Type.Literal('standard-webhooks'),
          Type.Literal('twilio'),
          Type.Literal('paddle'),
          Type.Literal('linear'),
          Type.Literal('square'),
        ]),
        secret: Secret,
        toleranceSeconds: Type.Optional(Type.Integer({ minimum: 1, maximum: 86_400 })),
        url: Type.Optional(Type.String({ pattern: '^https?://', maxLength: 2048 })),
      },
      { additionalProperties: false },
    ),
    Type.Object(
      {
        provider: Type.Literal('hmac'),
        secret: Secret,
        header: Type.String({ minLength: 1, maxLength: 256, pattern: "^[A-Za-z0-9!#$%&'*+.^_`|~-]+$" }),
        algorithm: Type.Union([Type.Literal('sha1'), Type.Literal('sha256'), Type.Literal('sha512')]),
        encoding: Type.Union([Type.Literal('hex'), Type.Literal('base64')]),
        prefix: Type.Optional(Type.String({ maxLength: 64 })),
      },
      { additionalProperties: false },
    ),
  ],
  { $id: 'SigningConfig' },
);

/** Checks one captured request against the endpoint's signing configuration. */
export function verifySignature(config: SigningConfig, input: VerifyInput): VerifyResult {
  let error: string | null;
  if (config.secret === '') error = SignatureError.invalidSecret;
  else if (config.provider === 'hmac') error = verifyGenericHmac(config, input);
  else error = PROVIDER_SCHEMES[config.provider](config, input);
  return { signatureVerified: error === null, signatureError: error, signingProvider: config.provider };
}
