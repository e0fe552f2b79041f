/**
 * Standard Webhooks (standardwebhooks.com), both directions: the HMAC the verifier checks on
 * captured requests (schemes.ts) and the one the notifier signs its own notifications with
 * (notification-delivery.ts). One formula, so what we send verifies with what we accept.
 *
 * @example
 * const key = standardWebhooksKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
 * const headers = standardWebhooksHeaders(key!, 'req_01…', Math.floor(Date.now() / 1000), body);
 * // → { 'webhook-id': 'req_01…', 'webhook-timestamp': '1732170000', 'webhook-signature': 'v1,K5oZ…' }
 */
import { randomBytes } from 'node:crypto';
import { fromBase64, hmac } from './primitives';

/** The prefix of a Standard Webhooks symmetric secret: `whsec_` + base64 of the key bytes. */
export const STANDARD_SECRET_PREFIX = 'whsec_';

/** Random bytes in a secret this service makes (the spec asks for 24 to 64). */
const SECRET_BYTES = 32;

/** A new `whsec_` secret: its key is SECRET_BYTES random bytes. */
export function newStandardWebhooksSecret(): string {
  return STANDARD_SECRET_PREFIX + randomBytes(SECRET_BYTES).toString('base64');
}

/** The HMAC key of a `whsec_…` secret (the prefix is optional); undefined when it is not base64 or empty. */
export function standardWebhooksKey(secret: string): Buffer | undefined {
  const encoded = secret.startsWith(STANDARD_SECRET_PREFIX) ? secret.slice(STANDARD_SECRET_PREFIX.length) : secret;
  const key = fromBase64(encoded);
  return key === undefined || key.length === 0 ? undefined : key;
}

/** HMAC-SHA256 of `{id}.{timestamp}.{body}`: the bytes a `v1,` signature carries in base64. */
export function standardWebhooksMac(key: Uint8Array, id: string, timestamp: string, body: string | Uint8Array): Buffer {
  return hmac('sha256', key, [id, '.', timestamp, '.', body]);
}

/** The three headers of one signed message; `timestampSeconds` is this attempt's time. */
export function standardWebhooksHeaders(key: Uint8Array, id: string, timestampSeconds: number, body: string | Uint8Array): Record<'webhook-id' | 'webhook-timestamp' | 'webhook-signature', string> {
  const timestamp = String(Math.floor(timestampSeconds));
  return {
    'webhook-id': id,
    'webhook-timestamp': timestamp,
    'webhook-signature': `v1,${standardWebhooksMac(key, id, timestamp, body).toString('base64')}`,
  };
}
