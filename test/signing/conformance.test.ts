/**
 * The same five questions for every scheme: does a correctly signed delivery verify, and do a
 * tampered body, a wrong secret, a stale timestamp and a missing header each fail with the right
 * reason?
 */
import { describe, expect, test } from 'bun:test';
import { createHmac } from 'node:crypto';
import { verifySignature, type SigningConfig, type VerifyInput } from '../../src/engine/signing';
import * as send from './senders';
import type { Delivery } from './senders';

const NOW_S = 1_714_000_000;
const NOW = NOW_S * 1000;
const JSON_BODY = JSON.stringify({ id: 'evt_1', type: 'invoice.paid', data: { amount: 4200, note: 'naïve café ✓' } });
const FORM_BODY = 'AccountSid=AC1&Body=Hello+there&From=%2B15005550006&MessageSid=SM1&To=%2B15005550001&MediaUrl0=a&MediaUrl0=b';

interface Scheme {
  name: string;
  config: (secret: string) => SigningConfig;
  secret: string;
  body: (at: number) => string;
  sign: (d: Delivery) => VerifyInput;
  /** Header whose absence must be reported. */
  header: string;
  /** A value for that header in the wrong format. */
  malformed: string;
  malformedError: string;
  timestamped: boolean;
}

const SCHEMES: Scheme[] = [
  {
    name: 'stripe',
    config: (secret) => ({ provider: 'stripe', secret }),
    secret: 'whsec_test_51H8xyzABC',
    body: () => JSON_BODY,
    sign: send.stripe,
    header: 'stripe-signature',
    malformed: 'v1=abc',
    malformedError: 'bad_format: stripe-signature',
    timestamped: true,
  },
  {
    name: 'github',
    config: (secret) => ({ provider: 'github', secret }),
    secret: 'gh-hook-secret',
    body: () => JSON_BODY,
    sign: send.github,
    header: 'x-hub-signature-256',
    malformed: 'md5=abcd',
    malformedError: 'bad_format: x-hub-signature-256',
    timestamped: false,
  },
  {
    name: 'shopify',
    config: (secret) => ({ provider: 'shopify', secret }),
    secret: 'shpss_0123456789abcdef',
    body: () => JSON_BODY,
    sign: send.shopify,
    header: 'x-shopify-hmac-sha256',
    malformed: 'not base64!',
    malformedError: 'bad_format: x-shopify-hmac-sha256',
    timestamped: false,
  },
  {
    name: 'slack',
    config: (secret) => ({ provider: 'slack', secret }),
    secret: '8f742231b10e8888abcd99yyyzzz85a5',
    body: () => 'token=t&team_id=T1&command=%2Fweather&text=94070',
    sign: send.slack,
    header: 'x-slack-signature',
    malformed: 'v1=abcd',
    malformedError: 'bad_format: x-slack-signature',
    timestamped: true,
  },
  {
    name: 'standard-webhooks',
    config: (secret) => ({ provider: 'standard-webhooks', secret }),
    secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
    body: () => JSON_BODY,
    sign: (d) => send.standardWebhooks(d),
    header: 'webhook-signature',
    malformed: 'g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    malformedError: 'bad_format: webhook-signature',
    timestamped: true,
  },
  {
    name: 'twilio (form)',
    config: (secret) => ({ provider: 'twilio', secret }),
    secret: '12345',
    body: () => FORM_BODY,
    sign: send.twilio,
    header: 'x-twilio-signature',
    malformed: 'abc',
    malformedError: 'bad_format: x-twilio-signature',
    timestamped: false,
  },
  {
    name: 'twilio (JSON with bodySHA256)',
    config: (secret) => ({ provider: 'twilio', secret }),
    secret: '12345',
    body: () => JSON_BODY,
    sign: send.twilioJson,
    header: 'x-twilio-signature',
    malformed: '%%%',
    malformedError: 'bad_format: x-twilio-signature',
    timestamped: false,
  },
  {
    name: 'paddle',
    config: (secret) => ({ provider: 'paddle', secret }),
    secret: 'pdl_ntfset_01gkpjp8bkm3tm53kdgkx6sms7_6h3qd3uFSi9YCD3OLYAShQI90XTI5vEI',
    body: () => JSON_BODY,
    sign: send.paddle,
    header: 'paddle-signature',
    malformed: 'h1=abcd',
    malformedError: 'bad_format: paddle-signature',
    timestamped: true,
  },
  {
    name: 'linear',
    config: (secret) => ({ provider: 'linear', secret }),
    secret: 'lin_wh_secret',
    body: (at) => send.linearBody(at),
    sign: send.linear,
    header: 'linear-signature',
    malformed: 'zz',
    malformedError: 'bad_format: linear-signature',
    timestamped: true,
  },
  {
    name: 'square',
    config: (secret) => ({ provider: 'square', secret }),
    secret: 'Ibxx_5AKakO-3qeNVR61Dw',
    body: () => JSON_BODY,
    sign: send.square,
    header: 'x-square-hmacsha256-signature',
    malformed: '***',
    malformedError: 'bad_format: x-square-hmacsha256-signature',
    timestamped: false,
  },
  {
    name: 'hmac sha256 hex with prefix',
    config: (secret) => ({ provider: 'hmac', secret, header: 'X-Signature', algorithm: 'sha256', encoding: 'hex', prefix: 'sha256=' }),
    secret: 'generic-secret',
    body: () => JSON_BODY,
    sign: (d) => hmacDelivery(d, 'x-signature', 'sha256', 'hex', 'sha256='),
    header: 'x-signature',
    malformed: 'sha1=abcd',
    malformedError: 'bad_format: x-signature',
    timestamped: false,
  },
  {
    name: 'hmac sha1 base64',
    config: (secret) => ({ provider: 'hmac', secret, header: 'x-trello-webhook', algorithm: 'sha1', encoding: 'base64' }),
    secret: 'generic-secret',
    body: () => JSON_BODY,
    sign: (d) => hmacDelivery(d, 'x-trello-webhook', 'sha1', 'base64', ''),
    header: 'x-trello-webhook',
    malformed: 'not-base64!',
    malformedError: 'bad_format: x-trello-webhook',
    timestamped: false,
  },
  {
    name: 'hmac sha512 hex',
    config: (secret) => ({ provider: 'hmac', secret, header: 'x-razorpay-signature', algorithm: 'sha512', encoding: 'hex' }),
    secret: 'generic-secret',
    body: () => JSON_BODY,
    sign: (d) => hmacDelivery(d, 'x-razorpay-signature', 'sha512', 'hex', ''),
    header: 'x-razorpay-signature',
    malformed: 'xyz',
    malformedError: 'bad_format: x-razorpay-signature',
    timestamped: false,
  },
];

function hmacDelivery(d: Delivery, header: string, alg: string, encoding: 'hex' | 'base64', prefix: string): VerifyInput {
  const digest = createHmac(alg, d.secret).update(d.body).digest(encoding);
  return { headers: { [header]: prefix + digest }, rawBody: new TextEncoder().encode(d.body), url: 'https://hooks.example.com/w/abc', method: 'POST', now: d.now };
}

/** A different secret of the same kind (appending to a base64 key may not change its bytes). */
const otherSecret = (scheme: Scheme) =>
  scheme.name === 'standard-webhooks' ? 'whsec_C2FVsBQIhrscChlQIMV+b5sSYspob7oD' : `${scheme.secret}x`;

function deliver(scheme: Scheme, at: number, secret = scheme.secret): VerifyInput {
  return scheme.sign({ body: scheme.body(at), secret, at, now: NOW });
}

const ok = (provider: string) => ({ signatureVerified: true, signatureError: null, signingProvider: provider });
const failed = (provider: string, error: string) => ({ signatureVerified: false, signatureError: error, signingProvider: provider });

for (const scheme of SCHEMES) {
  describe(`verifySignature: ${scheme.name}`, () => {
    const config = scheme.config(scheme.secret);
    const provider = config.provider;

    test('a delivery signed by the documented algorithm verifies', () => {
      expect(verifySignature(config, deliver(scheme, NOW_S - 5))).toEqual(ok(provider));
    });

    test('a tampered body fails with mismatch', () => {
      const input = deliver(scheme, NOW_S - 5);
      const bytes = new Uint8Array(input.rawBody);
      const i = bytes.indexOf('1'.charCodeAt(0)) >= 0 ? bytes.indexOf('1'.charCodeAt(0)) : 0;
      bytes[i] = '7'.charCodeAt(0);
      expect(verifySignature(config, { ...input, rawBody: bytes })).toEqual(failed(provider, 'mismatch'));
    });

    test('a delivery signed with another secret fails with mismatch', () => {
      expect(verifySignature(config, deliver(scheme, NOW_S - 5, otherSecret(scheme)))).toEqual(failed(provider, 'mismatch'));
    });

    test('a missing signature header fails with missing_header', () => {
      const input = deliver(scheme, NOW_S - 5);
      const headers = { ...input.headers };
      delete headers[scheme.header];
      if (scheme.name === 'github') delete headers['x-hub-signature'];
      expect(verifySignature(config, { ...input, headers })).toEqual(failed(provider, `missing_header: ${scheme.header}`));
    });

    test('a malformed signature header fails with bad_format', () => {
      const input = deliver(scheme, NOW_S - 5);
      const headers = { ...input.headers, [scheme.header]: scheme.malformed };
      expect(verifySignature(config, { ...input, headers })).toEqual(failed(provider, scheme.malformedError));
    });

    if (scheme.timestamped) {
      test('a stale timestamp fails with timestamp_outside_tolerance', () => {
        expect(verifySignature(config, deliver(scheme, NOW_S - 301))).toEqual(failed(provider, 'timestamp_outside_tolerance'));
      });

      test('a timestamp too far in the future fails too', () => {
        expect(verifySignature(config, deliver(scheme, NOW_S + 301))).toEqual(failed(provider, 'timestamp_outside_tolerance'));
      });

      test('toleranceSeconds widens or narrows the window', () => {
        const wide = { ...config, toleranceSeconds: 3600 } as SigningConfig;
        const narrow = { ...config, toleranceSeconds: 5 } as SigningConfig;
        expect(verifySignature(wide, deliver(scheme, NOW_S - 1800))).toEqual(ok(provider));
        expect(verifySignature(narrow, deliver(scheme, NOW_S - 10))).toEqual(failed(provider, 'timestamp_outside_tolerance'));
      });

      test('a stale delivery with a forged signature is reported as mismatch', () => {
        expect(verifySignature(config, deliver(scheme, NOW_S - 3600, otherSecret(scheme)))).toEqual(failed(provider, 'mismatch'));
      });
    } else {
      test('the scheme signs no timestamp, so an old delivery still verifies', () => {
        expect(verifySignature(config, deliver(scheme, NOW_S - 86_400 * 30))).toEqual(ok(provider));
      });
    }
  });
}
