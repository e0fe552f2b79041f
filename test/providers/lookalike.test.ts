/**
 * Traffic that resembles a known sender but is not one must get no guess: a wrong icon is worse
 * than none.
 */
import { describe, expect, test } from 'bun:test';
import { detectProvider } from '../../src/engine/providers';
import { request } from './samples';

const none = { provider: '', event: '' };

describe('detectProvider: look-alikes get no guess', () => {
  test('generic JSON with a type field and no provider headers', () => {
    expect(detectProvider(request({ body: { type: 'user.created', data: { id: 1 } } }))).toEqual(none);
  });

  test('generic JSON with event and action fields', () => {
    expect(detectProvider(request({ body: { event: 'invoice.paid', action: 'created', object: 'event' } }))).toEqual(none);
  });

  test('only a GitHub-Hookshot user agent', () => {
    expect(
      detectProvider(request({ headers: { 'user-agent': 'GitHub-Hookshot/5b1d2f3' }, body: { action: 'opened', number: 1 } })),
    ).toEqual(none);
  });

  test('other user agents alone (Stripe, Slackbot, Svix, Shopify)', () => {
    for (const ua of ['Stripe/1.0 (+https://stripe.com/docs/webhooks)', 'Slackbot 1.0 (+https://api.slack.com/robots)', 'Svix-Webhooks/1.24.0', 'Shopify-Captain-Hook']) {
      expect(detectProvider(request({ headers: { 'user-agent': ua }, body: { type: 'x.y' } }))).toEqual(none);
    }
  });

  test('x-hub-signature alone is shared by GitHub, Bitbucket, Intercom, Jira, Meta, Zammad', () => {
    expect(detectProvider(request({ headers: { 'x-hub-signature': 'sha1=7d38cdd689735b008b3c702edd92eea23791c5f6' }, body: { action: 'opened' } }))).toEqual(none);
    expect(detectProvider(request({ headers: { 'x-hub-signature-256': 'sha256=ab' }, body: { zen: 'x', hook_id: 1 } }))).toEqual(none);
  });

  test('x-hub-signature with a Bitbucket-like body but no event key', () => {
    expect(detectProvider(request({ headers: { 'x-hub-signature': 'sha256=ab' }, body: { push: { changes: [] }, repository: { type: 'repository' } } }))).toEqual(none);
  });

  test('x-github-event without a delivery id (hand-made replay)', () => {
    expect(detectProvider(request({ headers: { 'x-github-event': 'push' }, body: { ref: 'refs/heads/main' } }))).toEqual(none);
  });

  test('a generic x-signature header with a JSON body', () => {
    expect(detectProvider(request({ headers: { 'x-signature': 'abc123' }, body: { type: 'order.created', id: 1 } }))).toEqual(none);
  });

  test('x-event-key that is not a Bitbucket key', () => {
    expect(detectProvider(request({ headers: { 'x-event-key': 'OrderCreated', 'x-request-id': '1' }, body: { a: 1 } }))).toEqual(none);
  });

  test('x-webhook-signature that is not a Netlify JWS', () => {
    expect(detectProvider(request({ headers: { 'x-webhook-signature': 'f1a2b3c4' }, body: { state: 'ready', site_id: 's' } }))).toEqual(none);
    const otherIssuer = ['e30', Buffer.from('{"iss":"acme"}').toString('base64url'), 'c2ln'].join('.');
    expect(detectProvider(request({ headers: { 'x-webhook-signature': otherIssuer }, body: { state: 'ready' } }))).toEqual(none);
  });

  test('webhook-signature in another scheme (v1=<hex>, no webhook-id) is not Standard Webhooks', () => {
    expect(
      detectProvider(request({ headers: { 'webhook-signature': 'v1=4e6c1f0b', 'webhook-timestamp': '1714000000' }, body: { type: 'user.created' } })),
    ).toEqual(none);
    expect(
      detectProvider(request({ headers: { 'webhook-id': 'a', 'webhook-timestamp': '1714000000', 'webhook-signature': 'v1=4e6c1f0b' }, body: { type: 'x' } })),
    ).toEqual(none);
  });

  test('stripe-signature without a timestamp', () => {
    expect(detectProvider(request({ headers: { 'stripe-signature': 'whatever' }, body: { type: 'charge.succeeded' } }))).toEqual(none);
  });

  test('x-slack-signature without the timestamp header', () => {
    expect(detectProvider(request({ headers: { 'x-slack-signature': 'v0=ab' }, body: { type: 'event_callback' } }))).toEqual(none);
  });

  test('JSON that mentions provider keys deep inside, not in the provider shape', () => {
    expect(detectProvider(request({ body: { note: 'fields like "RecordType" and "event-data" and "subscription"', subscription: 'pro', message: 'hi' } }))).toEqual(none);
    expect(detectProvider(request({ body: { RecordType: 'Customer', MessageStream: 'x' } }))).toEqual(none);
    expect(detectProvider(request({ body: { object: 'user', entry: [] } }))).toEqual(none);
    expect(detectProvider(request({ body: { update_id: 'abc', message: {} } }))).toEqual(none);
    expect(detectProvider(request({ body: { type: 'track', messageId: 'm' } }))).toEqual(none);
    expect(detectProvider(request({ body: { webhookEvent: 'order_placed', timestamp: 1 } }))).toEqual(none);
  });

  test('a Svix-like body without Svix headers is not Clerk or Resend', () => {
    expect(detectProvider(request({ body: { object: 'event', type: 'user.created', instance_id: 'ins_1', data: { id: 'user_1' } } }))).toEqual(none);
    expect(detectProvider(request({ body: { type: 'email.sent', created_at: '2024-01-01', data: { email_id: 'e' } } }))).toEqual(none);
  });

  test('a provider body shape sent with a non-JSON content type is not parsed', () => {
    const body = JSON.stringify({ message: { data: 'e30=', messageId: '1' }, subscription: 'projects/p/subscriptions/s' });
    expect(detectProvider({ headers: {}, body, contentType: 'text/plain', method: 'POST', query: {} })).toEqual(none);
  });

  test('a generic form post', () => {
    expect(detectProvider(request({ body: 'name=Jo&email=jo%40example.com&type=subscribe', contentType: 'application/x-www-form-urlencoded' }))).toEqual(none);
  });

  test('binary or empty bodies without headers', () => {
    expect(detectProvider(request({}))).toEqual(none);
    expect(detectProvider({ headers: {}, body: '', contentType: 'application/octet-stream', method: 'PUT', query: {} })).toEqual(none);
  });

  test('header names that exist on Object.prototype do not confuse lookups', () => {
    expect(detectProvider(request({ headers: { constructor: 'x', ['__proto__']: 'y', hasOwnProperty: 'z' }, body: { type: 'a' } }))).toEqual(none);
  });
});

describe('detectProvider: parsing is avoided when nothing asks for it', () => {
  const parse = JSON.parse;
  function countParses(run: () => void): number {
    let calls = 0;
    JSON.parse = ((text: string, reviver?: (this: unknown, key: string, value: unknown) => unknown) => {
      calls += 1;
      return parse(text, reviver);
    }) as typeof JSON.parse;
    try {
      run();
    } finally {
      JSON.parse = parse;
    }
    return calls;
  }

  test('a generic JSON body is never parsed', () => {
    const input = request({ body: { type: 'user.created', data: { id: 1, name: 'x'.repeat(1000) } } });
    expect(countParses(() => detectProvider(input))).toBe(0);
  });

  test('a body over the size cap is never parsed, even for a known sender', () => {
    const input = request({ headers: { 'stripe-signature': 't=1,v1=00' }, body: { type: 'charge.succeeded', pad: 'x'.repeat(300 * 1024) } });
    expect(countParses(() => expect(detectProvider(input)).toEqual({ provider: 'stripe', event: '' }))).toBe(0);
  });

  test('a known sender body is parsed once however many fields are read', () => {
    const input = request({
      headers: { 'svix-id': 'msg_1', 'svix-timestamp': '1', 'svix-signature': 'v1,abc' },
      body: { type: 'invoice.paid', data: {} },
    });
    expect(countParses(() => expect(detectProvider(input).provider).toBe('svix'))).toBe(1);
  });
});
