/**
 * One notification: the JSON body sent to an endpoint's notificationUrl for each capture, and one
 * delivery attempt through the outbound guard. The body carries a summary and a link, never the
 * captured headers or body: those may hold secrets and the notification URL is often a third party.
 */
import { systemClock, type Clock } from '../clock';
import type { Capture } from '../model/capture';
import { OutboundError, sendOutbound, type OutboundPolicy } from '../net/outbound';
import type { EndpointSnapshot } from './endpoint-cache';
import { standardWebhooksHeaders } from './signing/standard-webhooks';

export const NOTIFICATION_TYPE = 'request.captured';
export const NOTIFIER_USER_AGENT = 'hookcap-notifier/1';
/** How many notifications in a row led to this one (1 for a notification of an ordinary request). */
export const NOTIFY_HOP_HEADER = 'x-hookcap-hop';

export interface NotificationPayload {
  type: typeof NOTIFICATION_TYPE;
  endpoint: { id: string; slug: string };
  request: {
    id: string;
    method: string;
    path: string;
    receivedAt: number;
    contentType: string;
    size: number;
    detectedProvider: string;
    detectedEvent: string;
    /** The API URL of the captured request (needs the owner's API key). */
    link: string;
  };
}

/** Copies only the summary fields, so a queued notification never pins a captured body in memory. */
export function buildNotification(capture: Capture, endpoint: Pick<EndpointSnapshot, 'id' | 'slug'>, baseUrl: string): NotificationPayload {
  return {
    type: NOTIFICATION_TYPE,
    endpoint: { id: endpoint.id, slug: endpoint.slug },
    request: {
      id: capture.id,
      method: capture.method,
      path: capture.path,
      receivedAt: capture.receivedAt,
      contentType: capture.contentType,
      size: capture.size,
      detectedProvider: capture.detectedProvider,
      detectedEvent: capture.detectedEvent,
      link: `${baseUrl}/api/requests/${capture.id}`,
    },
  };
}

export type DeliveryOutcome =
  | { ok: true; status: number }
  /** `retry` false: trying again cannot help (blocked address, a 4xx other than 429, …). */
  | { ok: false; retry: boolean; reason: string; retryAfterMs?: number };

/** Retry-After as ms (seconds or an HTTP date); undefined when absent or unreadable. */
export function parseRetryAfter(value: string | null, now: number): number | undefined {
  if (value === null || value.trim() === '') return undefined;
  if (/^\s*[0-9]+\s*$/.test(value)) return Number(value) * 1000;
  const at = Date.parse(value);
  return Number.isNaN(at) ? undefined : Math.max(0, at - now);
}

/** What a final HTTP status means for the delivery; `now` reads a Retry-After date. */
export function outcomeOfStatus(status: number, retryAfter: string | null, now: number): DeliveryOutcome {
  if (status >= 200 && status < 300) return { ok: true, status };
  if (status === 429 || status >= 500) {
    return { ok: false, retry: true, reason: `receiver answered ${status}`, retryAfterMs: parseRetryAfter(retryAfter, now) };
  }
  return { ok: false, retry: false, reason: `receiver answered ${status}` };
}

const RETRYABLE_FAILURES = new Set<OutboundError['kind']>(['dns', 'network', 'timeout']);

/**
 * The Standard Webhooks message id of a notification: the captured request's id. One notification
 * per capture, so it is stable across retries and restarts and receivers can deduplicate on it.
 */
export const notificationId = (payload: NotificationPayload): string => payload.request.id;

/**
 * One POST of `payload` to `url`. Never throws. With `key` (the endpoint's notification secret,
 * as it is at this attempt) the body is signed the Standard Webhooks way: `webhook-id`, this
 * attempt's `webhook-timestamp`, and `webhook-signature` over exactly the bytes sent.
 */
export async function deliverNotification(
  url: string,
  payload: NotificationPayload,
  attempt: number,
  policy: OutboundPolicy,
  hop = 1,
  clock: Clock = systemClock,
  key: Uint8Array | null = null,
): Promise<DeliveryOutcome> {
  try {
    const body = JSON.stringify(payload);
    const signature = key ? standardWebhooksHeaders(key, notificationId(payload), clock.now() / 1000, body) : {};
    const { response } = await sendOutbound(
      {
        url,
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'user-agent': NOTIFIER_USER_AGENT,
          'x-hookcap-event': NOTIFICATION_TYPE,
          'x-hookcap-request-id': payload.request.id,
          'x-hookcap-attempt': String(attempt),
          [NOTIFY_HOP_HEADER]: String(hop),
          ...signature,
        },
        body,
      },
      policy,
    );
    // The receiver's body is of no use to us; release the connection instead of reading it.
    await response.body?.cancel().catch(() => {});
    return outcomeOfStatus(response.status, response.headers.get('retry-after'), clock.now());
  } catch (err) {
    if (err instanceof OutboundError) return { ok: false, retry: RETRYABLE_FAILURES.has(err.kind), reason: err.message };
    return { ok: false, retry: true, reason: err instanceof Error ? err.message : String(err) };
  }
}
