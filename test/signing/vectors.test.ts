/**
 * Example signatures the providers (or their official SDK test suites) publish. Reproducing them
 * proves interoperability, which a round trip through our own sender cannot.
 */
import { describe, expect, test } from 'bun:test';
import { verifySignature, type SigningConfig, type VerifyInput } from '../../src/engine/signing';
import { newStandardWebhooksSecret, standardWebhooksHeaders, standardWebhooksKey } from '../../src/engine/signing/standard-webhooks';

const enc = new TextEncoder();

function run(config: SigningConfig, headers: Record<string, string>, body: string, url = '', now = 0): ReturnType<typeof verifySignature> {
  const input: VerifyInput = { headers, rawBody: enc.encode(body), url, method: 'POST', now };
  return verifySignature(config, input);
}

describe('published vectors', () => {
  test('GitHub: docs "Validating webhook deliveries"', () => {
    const result = run(
      { provider: 'github', secret: "It's a Secret to Everybody" },
      { 'x-hub-signature-256': 'sha256=757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17' },
      'Hello, World!',
    );
    expect(result.signatureError).toBeNull();
  });

  test('Slack: docs "Verifying requests from Slack"', () => {
    const body =
      'token=xyzz0WbapA4vBCDEFasx0q6G&team_id=T1DC2JH3J&team_domain=testteamnow&channel_id=G8PSS9T3V&channel_name=foobar&user_id=U2CERLKJA&user_name=roadrunner&command=%2Fwebhook-collect&text=&response_url=https%3A%2F%2Fhooks.slack.com%2Fcommands%2FT1DC2JH3J%2F397700885554%2F96rGlfmibIGlgcZRskXaIFfN&trigger_id=398738663015.47445629121.803a0bc887a14d10d2c447fce8b6703c';
    const headers = { 'x-slack-signature': 'v0=a2114d57b48eac39b9ad189dd8316235a7b4a8d21a10bd27519666489c69b503', 'x-slack-request-timestamp': '1531420618' };
    const config: SigningConfig = { provider: 'slack', secret: '8f742231b10e8888abcd99yyyzzz85a5' };
    expect(run(config, headers, body, '', 1531420618_000 + 30_000).signatureError).toBeNull();
    // Years later the same request is authentic but stale.
    expect(run(config, headers, body, '', 1714000000_000).signatureError).toBe('timestamp_outside_tolerance');
  });

  test('Standard Webhooks / Svix: the reference libraries\' vector, svix-* and webhook-* headers', () => {
    const config: SigningConfig = { provider: 'standard-webhooks', secret: 'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' };
    const body = '{"test": 2432232314}';
    const signature = 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=';
    const now = 1614265330_000;
    expect(run(config, { 'svix-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'svix-timestamp': '1614265330', 'svix-signature': signature }, body, '', now).signatureError).toBeNull();
    expect(run(config, { 'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'webhook-timestamp': '1614265330', 'webhook-signature': `v1,bm9wZQ== ${signature}` }, body, '', now).signatureError).toBeNull();
    // The prefix is optional, as in the reference libraries.
    expect(run({ ...config, secret: 'MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw' }, { 'svix-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek', 'svix-timestamp': '1614265330', 'svix-signature': signature }, body, '', now).signatureError).toBeNull();
  });

  test('Standard Webhooks, signing: our notifications sign the reference vector as the reference libraries do', () => {
    const key = standardWebhooksKey('whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw');
    if (!key) throw new Error('the reference secret did not decode');
    expect(standardWebhooksHeaders(key, 'msg_p5jXN8AQM9LWM0D4loKWxJek', 1614265330.9, '{"test": 2432232314}')).toEqual({
      'webhook-id': 'msg_p5jXN8AQM9LWM0D4loKWxJek',
      'webhook-timestamp': '1614265330',
      'webhook-signature': 'v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=',
    });
    // A secret we make: `whsec_` + base64 of 32 random bytes, a fresh one each time.
    const made = newStandardWebhooksSecret();
    expect(made).toMatch(/^whsec_[A-Za-z0-9+/]{43}=$/);
    expect(standardWebhooksKey(made)).toHaveLength(32);
    expect(newStandardWebhooksSecret()).not.toBe(made);
    expect(standardWebhooksKey('whsec_')).toBeUndefined();
    expect(standardWebhooksKey('whsec_not base64!')).toBeUndefined();
  });

  test('Square: WebhooksHelper test vector of the official SDKs', () => {
    const body =
      '{"merchant_id":"MLEFBHHSJGVHD","type":"webhooks.test_notification","event_id":"ac3ac95b-f97d-458c-a6e6-18981597e05f","created_at":"2022-07-13T20:30:59.037339943Z","data":{"type":"webhooks","id":"bc368e64-01aa-407e-b46e-3231809b1129"}}';
    const headers = { 'x-square-hmacsha256-signature': 'GF4YkrJgGBDZ9NIYbNXBnMzqb2HoL4RW/S6vkZ9/2N4=' };
    const notificationUrl = 'https://webhook.site/679a4f3a-dcfa-49ee-bac5-9d0edad886b9';
    // Received behind a proxy: the configured URL is what Square signed.
    expect(run({ provider: 'square', secret: 'Ibxx_5AKakO-3qeNVR61Dw', url: notificationUrl }, headers, body, 'http://10.0.0.5:3000/w/abc').signatureError).toBeNull();
    // Received directly on the notification URL: the default works.
    expect(run({ provider: 'square', secret: 'Ibxx_5AKakO-3qeNVR61Dw' }, headers, body, notificationUrl).signatureError).toBeNull();
    // Any other URL is a mismatch.
    expect(run({ provider: 'square', secret: 'Ibxx_5AKakO-3qeNVR61Dw' }, headers, body, 'https://webhook.site/other').signatureError).toBe('mismatch');
  });

  describe('Twilio: docs example and the RequestValidator tests of the official SDKs', () => {
    const url = 'https://mycompany.com/myapp.php?foo=1&bar=2';
    const params = { CallSid: 'CA1234567890ABCDE', Caller: '+14158675309', Digits: '1234', From: '+14158675309', To: '+18005551212' };
    const form = new URLSearchParams(params).toString();
    const twilio = (signature: string, received: string, body = form, contentType = 'application/x-www-form-urlencoded') =>
      run({ provider: 'twilio', secret: '12345' }, { 'x-twilio-signature': signature, 'content-type': contentType }, body, received).signatureError;

    test('form parameters', () => expect(twilio('RSOYDt4T1cUTdK1PDd93/VVr8B8=', url)).toBeNull());
    test('the URL is signed as sent, case included', () =>
      expect(twilio('g9IN/x4Cft2g517EjYvEvM/W7LU=', 'https://MyCompany.com/myapp.php?foo=1&bar=2')).toBeNull());
    test('repeated parameters are deduplicated and sorted', () =>
      expect(twilio('IK+Dwps556ElfBT0I3Rgjkr1wJU=', url, 'Sid=CA123&SidAccount=AC123&Digits=5678&Digits=1234&Digits=1234')).toBeNull());
    test('JSON body covered by bodySHA256', () =>
      expect(
        twilio(
          'a9nBmqA0ju/hNViExpshrM61xv4=',
          `${url}&bodySHA256=0a1ff7634d9ab3b95db5c9a2dfe9416e41502b283a80c7cf19632632f96e6620`,
          '{"property": "value", "boolean": true}',
          'application/json',
        ),
      ).toBeNull());
    test('received on a port the sender did not sign', () => {
      expect(twilio('RSOYDt4T1cUTdK1PDd93/VVr8B8=', 'https://mycompany.com:1234/myapp.php?foo=1&bar=2')).toBeNull();
      expect(twilio('Zmvh+3yNM1Phv2jhDCwEM3q5ebU=', 'http://mycompany.com:1234/myapp.php?foo=1&bar=2')).toBeNull();
    });
    test('signed with the default port made explicit', () => {
      expect(twilio('kvajT1Ptam85bY51eRf/AJRuM3w=', url)).toBeNull();
      expect(twilio('0ZXoZLH/DfblKGATFgpif+LLRf4=', 'http://mycompany.com/myapp.php?foo=1&bar=2')).toBeNull();
    });
    test('credentials in the URL', () => {
      expect(twilio('CukzLTc1tT5dXEDIHm/tKBanW10=', 'https://user:pass@mycompany.com/myapp.php?foo=1&bar=2')).toBeNull();
      expect(twilio('2YRLlVAflCqxaNicjMpJcSTgzSs=', 'https://user@mycompany.com/myapp.php?foo=1&bar=2')).toBeNull();
      expect(twilio('ZQFR1PTIZXF2MXB8ZnKCvnnA+rI=', 'https://user:pass@mycompany.com/myapp.php?foo=1&bar=2')).toBeNull();
    });
    test('a JSON body without bodySHA256 is not covered', () =>
      expect(twilio('RSOYDt4T1cUTdK1PDd93/VVr8B8=', url, '{"property": "value", "boolean": true}', 'application/json')).toBe('missing_field: bodySHA256'));
    test('wrong signature', () => expect(twilio('FAIL', url)).toBe('bad_format: x-twilio-signature'));
  });
});
