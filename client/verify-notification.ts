/**
 * Checks that a request your app received is a notification hookcap signed (docs/notifications.md,
 * "Signatures"): the Standard Webhooks check the service itself runs on captured requests
 * (src/engine/signing), over the raw body, with a bound on the timestamp's age.
 *
 * @example
 * // In a Bun or Node handler, before parsing the body:
 * const raw = await request.text();
 * const v = verifyNotification(process.env.HOOKCAP_NOTIFY_SECRET!, request.headers, raw);
 * if (!v.verified) return new Response(v.error, { status: 401 });
 * // v.id is the webhook-id (the captured request's id): skip it if already handled.
 */
import { verifySignature } from '../src/engine/signing';

export type NotificationVerification =
  /** `id`: the `webhook-id` (the captured request's id, the same on every retry); `timestamp`: seconds. */
  | { verified: true; id: string; timestamp: number }
  /**
   * `error`: `missing_header: webhook-signature` (unsigned, or not from hookcap), `mismatch` (wrong
   * secret, or the body or headers were changed), `timestamp_outside_tolerance` (authentic but too
   * old or too far ahead: a replay, or clocks apart), `bad_format: …`, `invalid_secret`.
   */
  | { verified: false; error: string };

export interface VerifyNotificationOptions {
  /** Seconds the timestamp may be from now, either way (default 300, as the spec's libraries). */
  toleranceSeconds?: number;
  /** The time to judge the timestamp by, ms since the epoch (default: now). */
  now?: number;
}

/** Header names as any server hands them: a fetch `Headers`, or Node's `req.headers` object. */
export type NotificationHeaders = Headers | Record<string, string | string[] | undefined>;

/**
 * `secret`: the endpoint's `whsec_…` notification secret. `body`: the request body exactly as
 * received (text or bytes), before any JSON parsing; a re-serialised object will not verify.
 */
export function verifyNotification(secret: string, headers: NotificationHeaders, body: string | Uint8Array, opts: VerifyNotificationOptions = {}): NotificationVerification {
  const flat = lowerCased(headers);
  const rawBody = typeof body === 'string' ? new TextEncoder().encode(body) : body;
  const result = verifySignature(
    { provider: 'standard-webhooks', secret, toleranceSeconds: opts.toleranceSeconds },
    { headers: flat, rawBody, url: '', method: 'POST', now: opts.now ?? Date.now() },
  );
  if (!result.signatureVerified) return { verified: false, error: result.signatureError ?? 'mismatch' };
  return { verified: true, id: flat['webhook-id'] ?? '', timestamp: Number(flat['webhook-timestamp']) };
}

function lowerCased(headers: NotificationHeaders): Record<string, string> {
  const out: Record<string, string> = Object.create(null);
  const entries: Iterable<[string, string | string[] | undefined]> = headers instanceof Headers ? headers.entries() : Object.entries(headers);
  for (const [name, value] of entries) {
    if (value === undefined) continue;
    // A repeated header: its values as one list (signatures are space-separated).
    out[name.toLowerCase()] = Array.isArray(value) ? value.join(' ') : value;
  }
  return out;
}
