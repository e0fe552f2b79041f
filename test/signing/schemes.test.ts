/** Behaviour specific to one scheme: rotation, legacy headers, key types, URL handling, config. */
import { describe, expect, test } from 'bun:test';
import { createHmac, generateKeyPairSync } from 'node:crypto';
import { Value } from '@sinclair/typebox/value';
import type { Static } from '@sinclair/typebox';
import { SigningConfigSchema, verifySignature, type SigningConfig, type VerifyInput } from '../../src/engine/signing';
import * as send from './senders';

const NOW_S = 1_714_000_000;
const NOW = NOW_S * 1000;
const BODY = '{"id":"evt_1","type":"invoice.paid"}';
const enc = new TextEncoder();
const hex = (key: string | Buffer, data: string, alg = 'sha256') => createHmac(alg, key).update(data).digest('hex');

function withHeaders(input: VerifyInput, headers: Record<string, string>): VerifyInput {
  return { ...input, headers: { ...input.headers, ...headers } };
}

describe('stripe', () => {
  const secret = 'whsec_test_secret';
  const config: SigningConfig = { provider: 'stripe', secret };

  test('several v1 signatures (secret rolling): one valid is enough; v0 is ignored', () => {
    const good = hex(secret, `${NOW_S}.${BODY}`);
    const input = send.stripe({ body: BODY, secret, at: NOW_S, now: NOW });
    const header = `t=${NOW_S},v1=${hex('old', `${NOW_S}.${BODY}`)},v1=${good},v0=${hex(secret, BODY)}`;
    expect(verifySignature(config, withHeaders(input, { 'stripe-signature': header })).signatureError).toBeNull();
  });

  test('the whsec_ secret is the HMAC key as is (unlike Standard Webhooks)', () => {
    const header = `t=${NOW_S},v1=${hex(Buffer.from('test_secret', 'base64'), `${NOW_S}.${BODY}`)}`;
    const input = withHeaders(send.stripe({ body: BODY, secret, at: NOW_S, now: NOW }), { 'stripe-signature': header });
    expect(verifySignature(config, input).signatureError).toBe('mismatch');
  });

  test('a non-numeric timestamp or no v1 is a format error', () => {
    const input = send.stripe({ body: BODY, secret, at: NOW_S, now: NOW });
    expect(verifySignature(config, withHeaders(input, { 'stripe-signature': 't=soon,v1=ab' })).signatureError).toBe('bad_format: stripe-signature');
    expect(verifySignature(config, withHeaders(input, { 'stripe-signature': `t=${NOW_S},v0=ab` })).signatureError).toBe('bad_format: stripe-signature');
  });
});

describe('github', () => {
  const secret = 'gh-secret';
  const config: SigningConfig = { provider: 'github', secret };

  test('falls back to the legacy SHA-1 header only when the SHA-256 one is absent', () => {
    const input: VerifyInput = { headers: { 'x-hub-signature': `sha1=${hex(secret, BODY, 'sha1')}` }, rawBody: enc.encode(BODY), url: '', method: 'POST', now: NOW };
    expect(verifySignature(config, input).signatureError).toBeNull();
    const downgraded = withHeaders(input, { 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` });
    expect(verifySignature(config, downgraded).signatureError).toBe('mismatch');
  });
});

describe('slack', () => {
  const config: SigningConfig = { provider: 'slack', secret: 's' };
  const input = send.slack({ body: 'a=1', secret: 's', at: NOW_S, now: NOW });

  test('timestamp header missing or not a number', () => {
    const headers = { ...input.headers };
    delete headers['x-slack-request-timestamp'];
    expect(verifySignature(config, { ...input, headers }).signatureError).toBe('missing_header: x-slack-request-timestamp');
    expect(verifySignature(config, withHeaders(input, { 'x-slack-request-timestamp': '17e8' })).signatureError).toBe('bad_format: x-slack-request-timestamp');
  });
});

describe('standard-webhooks', () => {
  const secret = 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw';
  const config: SigningConfig = { provider: 'standard-webhooks', secret };
  const delivery = { body: BODY, secret, at: NOW_S, now: NOW };

  test('several space-separated signatures, one valid', () => {
    const input = send.standardWebhooks(delivery);
    const header = `v1,${Buffer.alloc(32, 1).toString('base64')} ${input.headers['webhook-signature']} v2,abc`;
    expect(verifySignature(config, withHeaders(input, { 'webhook-signature': header })).signatureError).toBeNull();
  });

  test('svix-* headers are accepted as well', () => {
    const input = send.standardWebhooks(delivery);
    const headers: Record<string, string> = {};
    for (const [k, v] of Object.entries(input.headers)) headers[k.replace(/^webhook-/, 'svix-')] = v;
    expect(verifySignature(config, { ...input, headers }).signatureError).toBeNull();
    delete headers['svix-timestamp'];
    expect(verifySignature(config, { ...input, headers }).signatureError).toBe('missing_header: svix-timestamp');
  });

  test('missing id or timestamp header, bad timestamp', () => {
    const input = send.standardWebhooks(delivery);
    const noId = { ...input.headers };
    delete noId['webhook-id'];
    expect(verifySignature(config, { ...input, headers: noId }).signatureError).toBe('missing_header: webhook-id');
    expect(verifySignature(config, withHeaders(input, { 'webhook-timestamp': '2024-04-24T00:00:00Z' })).signatureError).toBe('bad_format: webhook-timestamp');
  });

  test('the id is part of the signed content', () => {
    const input = send.standardWebhooks(delivery);
    expect(verifySignature(config, withHeaders(input, { 'webhook-id': 'msg_other' })).signatureError).toBe('mismatch');
  });

  test('a secret that is not base64 is reported, not thrown', () => {
    const input = send.standardWebhooks(delivery);
    expect(verifySignature({ provider: 'standard-webhooks', secret: 'whsec_not base64!' }, input).signatureError).toBe('invalid_secret');
  });

  test('v1a Ed25519 signatures with a whpk_ public key', () => {
    const { publicKey, privateKey } = generateKeyPairSync('ed25519');
    const jwk = publicKey.export({ format: 'jwk' });
    const raw = Buffer.from(String(jwk.x), 'base64url').toString('base64');
    const asymmetric: SigningConfig = { provider: 'standard-webhooks', secret: `whpk_${raw}` };
    const input = send.standardWebhooksEd25519(delivery, privateKey);
    expect(verifySignature(asymmetric, input).signatureError).toBeNull();
    expect(verifySignature(asymmetric, { ...input, rawBody: enc.encode(`${BODY} `) }).signatureError).toBe('mismatch');
    const stale = send.standardWebhooksEd25519({ ...delivery, at: NOW_S - 3600 }, privateKey);
    expect(verifySignature(asymmetric, stale).signatureError).toBe('timestamp_outside_tolerance');
    // An HMAC secret cannot check v1a signatures, and a short public key is no key.
    expect(verifySignature(config, input).signatureError).toBe('mismatch');
    expect(verifySignature({ provider: 'standard-webhooks', secret: 'whpk_AAAA' }, input).signatureError).toBe('invalid_secret');
  });
});

describe('twilio', () => {
  const secret = 'auth-token';
  const body = 'AccountSid=AC1&MessageStatus=delivered&MessageSid=SM1';

  test('config.url replaces the received URL; the received query string is kept', () => {
    const signedAt = 'https://hooks.example.com/w/abc?tag=x';
    const input = send.twilio({ body, secret, at: 0, now: NOW, url: signedAt });
    const received = { ...input, url: 'http://10.0.0.5:8080/w/abc?tag=x' };
    expect(verifySignature({ provider: 'twilio', secret }, received).signatureError).toBe('mismatch');
    expect(verifySignature({ provider: 'twilio', secret, url: 'https://hooks.example.com/w/abc' }, received).signatureError).toBeNull();
    expect(verifySignature({ provider: 'twilio', secret, url: signedAt }, received).signatureError).toBeNull();
  });

  test('form fields parsed by the caller are used as given', () => {
    const input = send.twilio({ body, secret, at: 0, now: NOW });
    const formParams = Object.fromEntries(new URLSearchParams(body));
    expect(verifySignature({ provider: 'twilio', secret }, { ...input, rawBody: new Uint8Array(), formParams }).signatureError).toBeNull();
  });

  test('a JSON body whose hash differs from bodySHA256', () => {
    const input = send.twilioJson({ body: BODY, secret, at: 0, now: NOW });
    expect(verifySignature({ provider: 'twilio', secret }, { ...input, rawBody: enc.encode('{}') }).signatureError).toBe('mismatch');
  });

  test('a GET request signs the URL alone', () => {
    const url = 'https://hooks.example.com/w/abc?CallSid=CA1&CallStatus=completed';
    const signature = createHmac('sha1', secret).update(url).digest('base64');
    const input: VerifyInput = { headers: { 'x-twilio-signature': signature }, rawBody: new Uint8Array(), url, method: 'GET', now: NOW };
    expect(verifySignature({ provider: 'twilio', secret }, input).signatureError).toBeNull();
  });
});

describe('paddle', () => {
  test('two h1 signatures during secret rotation', () => {
    const secret = 'pdl_ntfset_new';
    const input = send.paddle({ body: BODY, secret, at: NOW_S, now: NOW });
    const header = `ts=${NOW_S};h1=${hex('pdl_ntfset_old', `${NOW_S}:${BODY}`)};h1=${hex(secret, `${NOW_S}:${BODY}`)}`;
    expect(verifySignature({ provider: 'paddle', secret }, withHeaders(input, { 'paddle-signature': header })).signatureError).toBeNull();
  });
});

describe('linear', () => {
  const secret = 'lin';
  test('webhookTimestamp missing, or the body not JSON', () => {
    const noTimestamp = send.linear({ body: '{"action":"create","type":"Issue"}', secret, at: NOW_S, now: NOW });
    expect(verifySignature({ provider: 'linear', secret }, noTimestamp).signatureError).toBe('missing_field: webhookTimestamp');
    const notJson = send.linear({ body: 'hello', secret, at: NOW_S, now: NOW });
    expect(verifySignature({ provider: 'linear', secret }, notJson).signatureError).toBe('bad_format: body');
  });
});

describe('hmac', () => {
  test('the configured header name is matched case-insensitively', () => {
    const input: VerifyInput = { headers: { 'x-custom-sig': hex('k', BODY) }, rawBody: enc.encode(BODY), url: '', method: 'POST', now: NOW };
    expect(verifySignature({ provider: 'hmac', secret: 'k', header: 'X-Custom-Sig', algorithm: 'sha256', encoding: 'hex' }, input)).toEqual({
      signatureVerified: true,
      signatureError: null,
      signingProvider: 'hmac',
    });
  });

  test('upper-case hex is accepted; a value without the prefix is a format error', () => {
    const input: VerifyInput = { headers: { 'x-sig': `sha256=${hex('k', BODY).toUpperCase()}` }, rawBody: enc.encode(BODY), url: '', method: 'POST', now: NOW };
    const config: SigningConfig = { provider: 'hmac', secret: 'k', header: 'x-sig', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' };
    expect(verifySignature(config, input).signatureError).toBeNull();
    expect(verifySignature(config, withHeaders(input, { 'x-sig': hex('k', BODY) })).signatureError).toBe('bad_format: x-sig');
  });

  test('a digest of another algorithm is a mismatch, not a crash', () => {
    const input: VerifyInput = { headers: { 'x-sig': hex('k', BODY, 'sha1') }, rawBody: enc.encode(BODY), url: '', method: 'POST', now: NOW };
    expect(verifySignature({ provider: 'hmac', secret: 'k', header: 'x-sig', algorithm: 'sha256', encoding: 'hex' }, input).signatureError).toBe('mismatch');
  });
});

test('an empty secret is reported as invalid_secret for every scheme', () => {
  const input: VerifyInput = { headers: {}, rawBody: enc.encode(BODY), url: '', method: 'POST', now: NOW };
  for (const provider of ['stripe', 'github', 'shopify', 'slack', 'standard-webhooks', 'twilio', 'paddle', 'linear', 'square'] as const) {
    expect(verifySignature({ provider, secret: '' }, input)).toEqual({ signatureVerified: false, signatureError: 'invalid_secret', signingProvider: provider });
  }
});

describe('SigningConfigSchema', () => {
  // Compile-time: the schema's static type and SigningConfig are the same type.
  type Schema = Static<typeof SigningConfigSchema>;
  const toConfig = (x: Schema): SigningConfig => x;
  const toSchema = (x: SigningConfig): Schema => x;

  test('accepts every documented shape', () => {
    const valid: SigningConfig[] = [
      { provider: 'stripe', secret: 'whsec_x' },
      { provider: 'standard-webhooks', secret: 'whsec_x', toleranceSeconds: 600 },
      { provider: 'twilio', secret: 't', url: 'https://hooks.example.com/w/abc' },
      { provider: 'hmac', secret: 's', header: 'X-Signature', algorithm: 'sha512', encoding: 'base64', prefix: 'sha512=' },
    ];
    for (const config of valid) expect(Value.Check(SigningConfigSchema, toSchema(toConfig(config)))).toBe(true);
  });

  test('rejects unknown providers, missing fields, extra fields and bad values', () => {
    const invalid: unknown[] = [
      { provider: 'gitlab', secret: 's' },
      { provider: 'stripe' },
      { provider: 'stripe', secret: '' },
      { provider: 'stripe', secret: 's', extra: true },
      { provider: 'stripe', secret: 's', toleranceSeconds: 0 },
      { provider: 'square', secret: 's', url: 'ftp://x' },
      { provider: 'hmac', secret: 's', header: 'x-sig', algorithm: 'md5', encoding: 'hex' },
      { provider: 'hmac', secret: 's', header: 'bad header', algorithm: 'sha1', encoding: 'hex' },
      { provider: 'hmac', secret: 's', header: 'x-sig', algorithm: 'sha1' },
    ];
    for (const config of invalid) expect(Value.Check(SigningConfigSchema, config)).toBe(false);
  });
});
