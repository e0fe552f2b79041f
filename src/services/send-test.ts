/**
 * Send-test (SPEC 4.1): a real HTTP request to the caller's own endpoint, through this deployment's
 * receiver, so it is captured like any other request (and triggers its notification). Only the
 * endpoint slug is chosen by the caller; the host is fixed by the operator, and redirects in the
 * receiver's answer (a mock response may set one) are returned, never followed.
 */
import type { Config } from '../config';
import { RECEIVABLE_METHODS } from '../engine/receiver-headers';
import { AppError } from '../errors';
import { hasControlCharacter, typedHeaderValue } from '../model/header-bytes';
import { isCaptureId } from '../ids';
import { log } from '../log';
import { AllowList } from '../net/allow';
import { parseIp } from '../net/address';
import { OutboundError, sendOutbound } from '../net/outbound';
import type { UserRow } from '../stores/state/schema';
import type { Ctx } from './context';
import { getOwnEndpoint } from './endpoints';
import { errorMessage } from '../unknown';

export interface SendTestInput {
  slug: string;
  method?: string;
  headers?: Record<string, string>;
  body?: string;
}

export interface SendTestResult {
  /** The captured request's id (the receiver's `x-request-id`); null when the receiver refused it. */
  id: string | null;
  /** Where the test request was sent. */
  url: string;
  /** The receiver's answer, exactly as the sender of a real webhook would see it. */
  response: { status: number; headers: Record<string, string>; body: string };
}

export const SEND_TEST_DEFAULTS = {
  method: 'POST',
  body: JSON.stringify({ type: 'hookcap.test', message: 'Test webhook sent by hookcap' }),
  userAgent: 'hookcap-send-test/1',
} as const;

const MAX_HEADERS = 100;
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;
/** Set by the HTTP client itself, or meaningless for one request; letting callers set them would break framing. */
const RESERVED_HEADERS = new Set([
  'host',
  'content-length',
  'transfer-encoding',
  'connection',
  'keep-alive',
  'proxy-connection',
  'upgrade',
  'te',
  'trailer',
  'expect',
]);
/** fetch refuses these, and they have no meaning for a webhook. */
const REFUSED_METHODS = new Set(['CONNECT', 'TRACE', 'TRACK']);

/** Where this node's receiver is: in-process over loopback when it runs the receiver role. */
export interface ReceiverTarget {
  base: string;
  /** host:port of the in-process receiver, allowed through the outbound guard; null when remote. */
  localAllow: string | null;
}

function loopbackFor(host: string): string {
  if (host === '' || host === '0.0.0.0' || host === 'localhost') return '127.0.0.1';
  if (host === '::') return '[::1]';
  return parseIp(host)?.family === 6 && !host.startsWith('[') ? `[${host}]` : host;
}

/**
 * The receiver a send-test goes to. A node running the receiver role sends to itself over loopback
 * (`apiPort` is the port this API call arrived on, which is the receiver's too unless RECEIVER_PORT
 * is set); any other node sends to RECEIVER_URL, through the SSRF guard like every outbound call.
 */
export function receiverTarget(config: Config, apiPort: number | null): ReceiverTarget {
  const port = config.receiverPort ?? apiPort;
  if (!config.roles.has('receiver') || !port) return { base: config.receiverUrl, localAllow: null };
  const host = loopbackFor(config.host);
  return { base: `http://${host}:${port}`, localAllow: `${host}:${port}` };
}

function contentTypeFor(body: string): string {
  try {
    JSON.parse(body);
    return 'application/json';
  } catch {
    return 'text/plain; charset=utf-8';
  }
}

interface PreparedRequest {
  method: string;
  headers: Record<string, string>;
  body: string | undefined;
}

/** Validates the caller's method, headers and body and fills in the documented defaults. */
export function prepareTestRequest(input: SendTestInput, maxBodyBytes: number): PreparedRequest {
  const method = (input.method ?? SEND_TEST_DEFAULTS.method).toUpperCase();
  if (!TOKEN.test(method)) throw new AppError('validation', 'method must be an HTTP method name such as POST');
  if (REFUSED_METHODS.has(method)) throw new AppError('validation', `method ${method} cannot be sent`);
  // Bun's server drops any other method unanswered: the test would only time out.
  if (!RECEIVABLE_METHODS.has(method)) throw new AppError('validation', `method ${method} is not one the receiver can accept`);
  const bodyless = method === 'GET' || method === 'HEAD';
  if (bodyless && input.body) throw new AppError('validation', `a ${method} request cannot have a body`);
  const body = bodyless ? undefined : (input.body ?? SEND_TEST_DEFAULTS.body);
  if (body !== undefined && Buffer.byteLength(body) > maxBodyBytes) {
    throw new AppError('payload_too_large', `body exceeds the ${maxBodyBytes}-byte capture limit`);
  }
  const given = Object.entries(input.headers ?? {});
  if (given.length > MAX_HEADERS) throw new AppError('validation', `at most ${MAX_HEADERS} headers`);
  const headers: Record<string, string> = {};
  for (const [k, v] of given) {
    const name = k.toLowerCase();
    if (!TOKEN.test(name)) throw new AppError('validation', `headers has an invalid header name "${k}"`);
    if (hasControlCharacter(v)) throw new AppError('validation', `headers["${k}"] cannot hold line breaks or control characters`);
    if (RESERVED_HEADERS.has(name)) throw new AppError('validation', `headers may not set "${name}"; it is set by the HTTP client`);
    // Values are text, sent as their UTF-8 bytes (as curl -H and hookcap replay -H send typed
    // text); the outbound client writes each character of this form as one byte.
    headers[name] = typedHeaderValue(v);
  }
  headers['user-agent'] ??= SEND_TEST_DEFAULTS.userAgent;
  if (body) headers['content-type'] ??= contentTypeFor(body);
  return { method, headers, body };
}

export async function sendTest(
  ctx: Ctx,
  user: UserRow,
  input: SendTestInput,
  target: ReceiverTarget,
  allow: AllowList,
): Promise<SendTestResult> {
  const prepared = prepareTestRequest(input, ctx.config.maxBodyBytes);
  const endpoint = await getOwnEndpoint(ctx, user, input.slug);
  const url = `${target.base}/w/${endpoint.slug}`;
  const policy = {
    allow: target.localAllow ? allow.with([target.localAllow]) : allow,
    timeoutMs: ctx.config.notify.timeoutMs,
    maxRedirects: 0,
  };
  try {
    const { response } = await sendOutbound({ url, ...prepared }, policy);
    const body = await response.text();
    const id = response.headers.get('x-request-id');
    return {
      id: id !== null && isCaptureId(id) ? id : null,
      url,
      response: { status: response.status, headers: Object.fromEntries(response.headers), body },
    };
  } catch (err) {
    const reason = errorMessage(err);
    if (err instanceof OutboundError && err.kind === 'blocked') {
      // Only a remote RECEIVER_URL on a private address gets here: an operator setting to fix.
      log.warn('send-test: receiver address refused by the outbound guard; add it to OUTBOUND_ALLOW', { url, reason });
    }
    throw new AppError('unavailable', `the receiver did not answer the test request: ${reason}`);
  }
}
