/**
 * One verifier per signing scheme, each following the sender's documented algorithm. A verifier
 * returns null when the request is authentic and fresh, else one SignatureError value. The signature
 * is checked before the timestamp, so timestamp_outside_tolerance means "authentic but not fresh".
 */
import { createPublicKey, verify as verifyAsymmetric, type KeyObject } from 'node:crypto';
import {
  SignatureError as E,
  anyEquals,
  fromBase64,
  fromHex,
  hmac,
  parsePairs,
  portVariants,
  sameBytes,
  sha256,
  signedUrl,
  toBytes,
  unixSeconds,
  withinTolerance,
} from './primitives';
import { standardWebhooksKey, standardWebhooksMac } from './standard-webhooks';
import type { HashAlgorithm, ProviderScheme, SigningConfig, VerifyInput } from './types';

export const DEFAULT_TOLERANCE_SECONDS = 300;

type ProviderConfig = Extract<SigningConfig, { provider: ProviderScheme }>;
type HmacConfig = Extract<SigningConfig, { provider: 'hmac' }>;
type Verifier = (config: ProviderConfig, input: VerifyInput) => string | null;

const tolerance = (config: ProviderConfig) => config.toleranceSeconds ?? DEFAULT_TOLERANCE_SECONDS;
const header = (input: VerifyInput, name: string): string | undefined => {
  const value = input.headers[name];
  return typeof value === 'string' ? value.trim() : undefined;
};

/** Stripe: `t=<unix>,v1=<hex>[,v1=…]`, HMAC-SHA256 of `{t}.{body}`, secret used as is. */
const stripe: Verifier = (config, input) => {
  const value = header(input, 'stripe-signature');
  if (value === undefined) return E.missingHeader('stripe-signature');
  const pairs = parsePairs(value, ',');
  const t = pairs.get('t')?.[0];
  const v1 = pairs.get('v1') ?? [];
  const seconds = t === undefined ? undefined : unixSeconds(t);
  if (t === undefined || seconds === undefined || v1.length === 0) return E.badFormat('stripe-signature');
  const expected = hmac('sha256', config.secret, [t, '.', input.rawBody]);
  if (!anyEquals(expected, v1, fromHex)) return E.mismatch;
  return withinTolerance(seconds * 1000, input.now, tolerance(config)) ? null : E.timestampOutsideTolerance;
};

/** GitHub: `sha256=<hex>` of the body; the legacy SHA-1 header only when the SHA-256 one is absent. */
const github: Verifier = (config, input) => {
  const v256 = header(input, 'x-hub-signature-256');
  const v1 = v256 === undefined ? header(input, 'x-hub-signature') : undefined;
  if (v256 === undefined && v1 === undefined) return E.missingHeader('x-hub-signature-256');
  const [name, algorithm, prefix, value] =
    v256 !== undefined
      ? (['x-hub-signature-256', 'sha256', 'sha256=', v256] as const)
      : (['x-hub-signature', 'sha1', 'sha1=', v1 ?? ''] as const);
  const given = value.startsWith(prefix) ? fromHex(value.slice(prefix.length)) : undefined;
  if (given === undefined) return E.badFormat(name);
  return sameBytes(given, hmac(algorithm, config.secret, [input.rawBody])) ? null : E.mismatch;
};

/** Shopify: base64 HMAC-SHA256 of the body. */
const shopify: Verifier = (config, input) => {
  const value = header(input, 'x-shopify-hmac-sha256');
  if (value === undefined) return E.missingHeader('x-shopify-hmac-sha256');
  const given = fromBase64(value);
  if (given === undefined) return E.badFormat('x-shopify-hmac-sha256');
  return sameBytes(given, hmac('sha256', config.secret, [input.rawBody])) ? null : E.mismatch;
};

/** Slack: `v0=<hex>` of `v0:{timestamp}:{body}`. */
const slack: Verifier = (config, input) => {
  const value = header(input, 'x-slack-signature');
  if (value === undefined) return E.missingHeader('x-slack-signature');
  const ts = header(input, 'x-slack-request-timestamp');
  if (ts === undefined) return E.missingHeader('x-slack-request-timestamp');
  const seconds = unixSeconds(ts);
  if (seconds === undefined) return E.badFormat('x-slack-request-timestamp');
  const given = value.startsWith('v0=') ? fromHex(value.slice(3)) : undefined;
  if (given === undefined) return E.badFormat('x-slack-signature');
  if (!sameBytes(given, hmac('sha256', config.secret, ['v0:', ts, ':', input.rawBody]))) return E.mismatch;
  return withinTolerance(seconds * 1000, input.now, tolerance(config)) ? null : E.timestampOutsideTolerance;
};

/**
 * Standard Webhooks / Svix: `{id}.{timestamp}.{body}`; `v1,<base64>` HMAC-SHA256 with the
 * base64-decoded `whsec_` secret, or `v1a,<base64>` Ed25519 when the secret is a `whpk_` public
 * key. Several space-separated signatures may be sent; one valid is enough.
 */
const standardWebhooks: Verifier = (config, input) => {
  const family = input.headers['webhook-id'] === undefined && input.headers['svix-id'] !== undefined ? 'svix' : 'webhook';
  const id = header(input, `${family}-id`);
  if (id === undefined) return E.missingHeader(`${family}-id`);
  const ts = header(input, `${family}-timestamp`);
  if (ts === undefined) return E.missingHeader(`${family}-timestamp`);
  const value = header(input, `${family}-signature`);
  if (value === undefined) return E.missingHeader(`${family}-signature`);
  const seconds = unixSeconds(ts);
  if (seconds === undefined) return E.badFormat(`${family}-timestamp`);

  const entries = value.split(' ').filter((s) => s !== '');
  const byVersion = new Map<string, string[]>();
  for (const entry of entries) {
    const comma = entry.indexOf(',');
    if (comma <= 0) return E.badFormat(`${family}-signature`);
    const version = entry.slice(0, comma);
    byVersion.set(version, [...(byVersion.get(version) ?? []), entry.slice(comma + 1)]);
  }
  if (byVersion.size === 0) return E.badFormat(`${family}-signature`);

  const signed = [id, '.', ts, '.', input.rawBody] as const;
  let authentic: boolean;
  if (config.secret.startsWith('whpk_')) {
    const key = ed25519PublicKey(config.secret.slice('whpk_'.length));
    if (key === undefined) return E.invalidSecret;
    const message = Buffer.concat(signed.map((p) => (typeof p === 'string' ? Buffer.from(p) : toBytes(p))));
    authentic = (byVersion.get('v1a') ?? []).some((s) => {
      const signature = fromBase64(s);
      if (signature === undefined || signature.length !== 64) return false;
      try {
        return verifyAsymmetric(null, message, key, signature);
      } catch {
        return false;
      }
    });
  } else {
    const key = standardWebhooksKey(config.secret);
    if (key === undefined) return E.invalidSecret;
    authentic = anyEquals(standardWebhooksMac(key, id, ts, input.rawBody), byVersion.get('v1') ?? [], fromBase64);
  }
  if (!authentic) return E.mismatch;
  return withinTolerance(seconds * 1000, input.now, tolerance(config)) ? null : E.timestampOutsideTolerance;
};

function ed25519PublicKey(base64: string): KeyObject | undefined {
  const raw = fromBase64(base64);
  if (raw === undefined || raw.length !== 32) return undefined;
  try {
    return createPublicKey({ key: { kty: 'OKP', crv: 'Ed25519', x: raw.toString('base64url') }, format: 'jwk' });
  } catch {
    return undefined;
  }
}

/**
 * Twilio: base64 HMAC-SHA1 (auth token) of the URL followed by each POST field name and value,
 * sorted by name (repeated values deduplicated and sorted). Non-form bodies are covered instead by
 * a `bodySHA256` query parameter inside the signed URL. Like Twilio's libraries, the URL is also
 * tried without its port and with the scheme's default port.
 */
const twilio: Verifier = (config, input) => {
  const value = header(input, 'x-twilio-signature');
  if (value === undefined) return E.missingHeader('x-twilio-signature');
  const given = fromBase64(value);
  if (given === undefined || given.length !== 20) return E.badFormat('x-twilio-signature');
  const url = signedUrl(config.url, input.url);

  let fields = '';
  let bodyHash: string | undefined;
  if (isForm(input.headers['content-type'])) {
    fields = sortedFields(input.formParams ?? parseForm(input.rawBody));
  } else if (input.rawBody.length > 0) {
    bodyHash = queryParam(url, 'bodySHA256');
    if (bodyHash === undefined) return E.missingField('bodySHA256');
  }
  const authentic = portVariants(url).some((candidate) => sameBytes(given, hmac('sha1', config.secret, [candidate, fields])));
  if (!authentic) return E.mismatch;
  if (bodyHash !== undefined) {
    const expected = fromHex(bodyHash);
    if (expected === undefined || !sameBytes(expected, sha256(input.rawBody))) return E.mismatch;
  }
  return null;
};

function isForm(contentType: string | undefined): boolean {
  return contentType !== undefined && /application\/x-www-form-urlencoded/i.test(contentType);
}

function parseForm(body: Uint8Array): Record<string, string[]> {
  const out: Record<string, string[]> = {};
  for (const [k, v] of new URLSearchParams(toBytes(body).toString('utf8'))) (out[k] ??= []).push(v);
  return out;
}

function sortedFields(params: Record<string, string | string[]>): string {
  let out = '';
  for (const name of Object.keys(params).sort()) {
    const value = params[name];
    if (value === undefined) continue;
    if (typeof value === 'string') out += name + value;
    else for (const v of [...new Set(value)].sort()) out += name + v;
  }
  return out;
}

function queryParam(url: string, name: string): string | undefined {
  const q = url.indexOf('?');
  if (q < 0) return undefined;
  return new URLSearchParams(url.slice(q + 1).split('#')[0]).get(name) ?? undefined;
}

/** Paddle Billing: `ts=<unix>;h1=<hex>[;h1=…]`, HMAC-SHA256 of `{ts}:{body}`. */
const paddle: Verifier = (config, input) => {
  const value = header(input, 'paddle-signature');
  if (value === undefined) return E.missingHeader('paddle-signature');
  const pairs = parsePairs(value, ';');
  const ts = pairs.get('ts')?.[0];
  const h1 = pairs.get('h1') ?? [];
  const seconds = ts === undefined ? undefined : unixSeconds(ts);
  if (ts === undefined || seconds === undefined || h1.length === 0) return E.badFormat('paddle-signature');
  if (!anyEquals(hmac('sha256', config.secret, [ts, ':', input.rawBody]), h1, fromHex)) return E.mismatch;
  return withinTolerance(seconds * 1000, input.now, tolerance(config)) ? null : E.timestampOutsideTolerance;
};

/** Linear: hex HMAC-SHA256 of the body; freshness from the body's `webhookTimestamp` (ms). */
const linear: Verifier = (config, input) => {
  const value = header(input, 'linear-signature');
  if (value === undefined) return E.missingHeader('linear-signature');
  const given = fromHex(value);
  if (given === undefined) return E.badFormat('linear-signature');
  if (!sameBytes(given, hmac('sha256', config.secret, [input.rawBody]))) return E.mismatch;
  let sentAt: unknown;
  try {
    const body: unknown = JSON.parse(toBytes(input.rawBody).toString('utf8'));
    sentAt = typeof body === 'object' && body !== null ? (body as Record<string, unknown>)['webhookTimestamp'] : undefined;
  } catch {
    return E.badFormat('body');
  }
  if (typeof sentAt !== 'number' || !Number.isFinite(sentAt)) return E.missingField('webhookTimestamp');
  return withinTolerance(sentAt, input.now, tolerance(config)) ? null : E.timestampOutsideTolerance;
};

/** Square: base64 HMAC-SHA256 (signature key) of the notification URL followed by the body. */
const square: Verifier = (config, input) => {
  const value = header(input, 'x-square-hmacsha256-signature');
  if (value === undefined) return E.missingHeader('x-square-hmacsha256-signature');
  const given = fromBase64(value);
  if (given === undefined) return E.badFormat('x-square-hmacsha256-signature');
  const url = signedUrl(config.url, input.url);
  return sameBytes(given, hmac('sha256', config.secret, [url, input.rawBody])) ? null : E.mismatch;
};

export const PROVIDER_SCHEMES: Readonly<Record<ProviderScheme, Verifier>> = {
  stripe,
  github,
  shopify,
  slack,
  'standard-webhooks': standardWebhooks,
  twilio,
  paddle,
  linear,
  square,
};

/** Any sender that puts an HMAC of the raw body in one header, optionally after a fixed prefix. */
export function verifyGenericHmac(config: HmacConfig, input: VerifyInput): string | null {
  const name = config.header.toLowerCase();
  const value = header(input, name);
  if (value === undefined) return E.missingHeader(name);
  const prefix = config.prefix ?? '';
  if (!value.startsWith(prefix)) return E.badFormat(name);
  const encoded = value.slice(prefix.length);
  const given = config.encoding === 'hex' ? fromHex(encoded) : fromBase64(encoded);
  if (given === undefined) return E.badFormat(name);
  const algorithm: HashAlgorithm = config.algorithm;
  return sameBytes(given, hmac(algorithm, config.secret, [input.rawBody])) ? null : E.mismatch;
}
