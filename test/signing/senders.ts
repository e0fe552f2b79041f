/**
 * The sending side of each scheme, written from the providers' documentation with node:crypto
 * directly (not with the verifier's helpers), so a shared misreading cannot make both sides agree.
 */
import { createHash, createHmac, sign as signAsymmetric, type KeyObject } from 'node:crypto';
import type { VerifyInput } from '../../src/engine/signing';

export interface Delivery {
  body: string;
  secret: string;
  /** Unix seconds the sender stamps on the delivery. */
  at: number;
  /** Wall clock of the receiver, ms. */
  now: number;
  url?: string;
}

const enc = new TextEncoder();
const hmacHex = (alg: string, key: string | Buffer, data: string) => createHmac(alg, key).update(data).digest('hex');
const hmacB64 = (alg: string, key: string | Buffer, data: string) => createHmac(alg, key).update(data).digest('base64');

function input(d: Delivery, headers: Record<string, string>, url = d.url ?? 'https://hooks.example.com/w/abc'): VerifyInput {
  return { headers, rawBody: enc.encode(d.body), url, method: 'POST', now: d.now };
}

/** stripe.com/docs/webhooks#verify-manually */
export const stripe = (d: Delivery) =>
  input(d, { 'stripe-signature': `t=${d.at},v1=${hmacHex('sha256', d.secret, `${d.at}.${d.body}`)}`, 'content-type': 'application/json' });

/** docs.github.com: validating webhook deliveries */
export const github = (d: Delivery) =>
  input(d, {
    'x-hub-signature-256': `sha256=${hmacHex('sha256', d.secret, d.body)}`,
    'x-hub-signature': `sha1=${hmacHex('sha1', d.secret, d.body)}`,
    'x-github-event': 'push',
  });

/** shopify.dev: verify webhooks */
export const shopify = (d: Delivery) => input(d, { 'x-shopify-hmac-sha256': hmacB64('sha256', d.secret, d.body) });

/** api.slack.com/authentication/verifying-requests-from-slack */
export const slack = (d: Delivery) =>
  input(d, { 'x-slack-request-timestamp': String(d.at), 'x-slack-signature': `v0=${hmacHex('sha256', d.secret, `v0:${d.at}:${d.body}`)}` });

/** standardwebhooks.com spec: key is the base64 part of whsec_… */
export const standardWebhooks = (d: Delivery, id = 'msg_2KWPBgLlAfxdpx2AI54pPJ85f4W') => {
  const key = Buffer.from(d.secret.replace(/^whsec_/, ''), 'base64');
  return input(d, {
    'webhook-id': id,
    'webhook-timestamp': String(d.at),
    'webhook-signature': `v1,${hmacB64('sha256', key, `${id}.${d.at}.${d.body}`)}`,
  });
};

/** Standard Webhooks asymmetric variant: `v1a,` + base64 Ed25519 signature. */
export const standardWebhooksEd25519 = (d: Delivery, privateKey: KeyObject, id = 'msg_ed') =>
  input(d, {
    'webhook-id': id,
    'webhook-timestamp': String(d.at),
    'webhook-signature': `v1a,${signAsymmetric(null, Buffer.from(`${id}.${d.at}.${d.body}`), privateKey).toString('base64')}`,
  });

/** twilio.com/docs/usage/security: URL + sorted name/value pairs, HMAC-SHA1, base64. */
export const twilio = (d: Delivery) => {
  const url = d.url ?? 'https://hooks.example.com/w/abc';
  const fields = new URLSearchParams(d.body);
  const names = [...new Set(fields.keys())].sort();
  let data = url;
  for (const name of names) for (const value of [...new Set(fields.getAll(name))].sort()) data += name + value;
  return input(d, { 'x-twilio-signature': hmacB64('sha1', d.secret, data), 'content-type': 'application/x-www-form-urlencoded' }, url);
};

/** Twilio JSON webhooks: bodySHA256 appended to the URL, which is then signed with no fields. */
export const twilioJson = (d: Delivery) => {
  const hash = createHash('sha256').update(d.body).digest('hex');
  const base = d.url ?? 'https://hooks.example.com/w/abc';
  const url = `${base}${base.includes('?') ? '&' : '?'}bodySHA256=${hash}`;
  return input(d, { 'x-twilio-signature': hmacB64('sha1', d.secret, url), 'content-type': 'application/json' }, url);
};

/** developer.paddle.com/webhooks/signature-verification */
export const paddle = (d: Delivery) =>
  input(d, { 'paddle-signature': `ts=${d.at};h1=${hmacHex('sha256', d.secret, `${d.at}:${d.body}`)}` });

/** linear.app/developers/webhooks: body carries webhookTimestamp in ms. */
export const linear = (d: Delivery) => input(d, { 'linear-signature': hmacHex('sha256', d.secret, d.body), 'linear-event': 'Issue' });

/** A Linear body with the given send time. */
export const linearBody = (atSeconds: number) =>
  JSON.stringify({ action: 'create', type: 'Issue', data: { id: 'i1' }, webhookTimestamp: atSeconds * 1000, webhookId: 'w' });

/** developer.squareup.com/docs/webhooks/step3validate: notification URL + body. */
export const square = (d: Delivery) => {
  const url = d.url ?? 'https://hooks.example.com/w/abc';
  return input(d, { 'x-square-hmacsha256-signature': hmacB64('sha256', d.secret, url + d.body) }, url);
};
