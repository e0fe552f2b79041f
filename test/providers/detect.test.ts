import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { KNOWN_PROVIDERS, detectProvider } from '../../src/engine/providers';
import { SAMPLES } from './samples';

describe('detectProvider: realistic deliveries', () => {
  for (const sample of SAMPLES) {
    test(sample.name, () => {
      expect(detectProvider(sample.input)).toEqual({ provider: sample.provider, event: sample.event });
    });
  }

  test('every provider in the table has at least one sample', () => {
    const sampled = new Set(SAMPLES.map((s) => s.provider));
    expect(KNOWN_PROVIDERS.filter((id) => !sampled.has(id))).toEqual([]);
  });

  test('the issue list is covered', () => {
    const required = [
      'stripe', 'github', 'gitlab', 'bitbucket', 'shopify', 'slack', 'twilio', 'sendgrid', 'mailgun',
      'postmark', 'paypal', 'square', 'paddle', 'linear', 'discord', 'zoom', 'twitch', 'intercom',
      'hubspot', 'jira', 'vercel', 'netlify', 'typeform', 'calendly', 'zendesk', 'sentry', 'pagerduty',
      'svix', 'standard-webhooks', 'clerk', 'resend', 'aws-sns', 'google-pubsub', 'microsoft-graph',
      'coinbase-commerce', 'razorpay', 'woocommerce',
    ];
    expect(required.filter((id) => !KNOWN_PROVIDERS.includes(id))).toEqual([]);
  });

  test('docs/providers.md documents every provider id', () => {
    const doc = readFileSync(join(import.meta.dir, '../../docs/providers.md'), 'utf8');
    expect(KNOWN_PROVIDERS.filter((id) => !doc.includes(`\`${id}\``))).toEqual([]);
  });

  test('header names are matched as given (captures lower-case them)', () => {
    const sample = SAMPLES.find((s) => s.provider === 'stripe');
    if (sample === undefined) throw new Error('no stripe sample');
    const shouting: Record<string, string> = {};
    for (const [k, v] of Object.entries(sample.input.headers)) shouting[k.toUpperCase()] = v;
    expect(detectProvider({ ...sample.input, headers: shouting }).provider).toBe('');
  });

  test('the query may hold repeated keys', () => {
    const result = detectProvider({ headers: {}, body: '', contentType: '', method: 'POST', query: { validationToken: ['a', 'b'] } });
    expect(result).toEqual({ provider: 'microsoft-graph', event: 'validation' });
  });

  test('event names from sender fields are capped', () => {
    const body = JSON.stringify({ type: 'x'.repeat(5000) });
    const result = detectProvider({ headers: { 'stripe-signature': 't=1,v1=00' }, body, contentType: 'application/json', method: 'POST', query: {} });
    expect(result.provider).toBe('stripe');
    expect(result.event.length).toBe(200);
  });

  test('control characters and bidi overrides in event names become U+FFFD', () => {
    const body = JSON.stringify({ id: 'evt_1', type: 'invoice.\u001b]0;owned\u0007paid\u202e\u0085' });
    const result = detectProvider({ headers: { 'stripe-signature': 't=1,v1=00' }, body, contentType: 'application/json', method: 'POST', query: {} });
    expect(result).toEqual({ provider: 'stripe', event: 'invoice.\ufffd]0;owned\ufffdpaid\ufffd\ufffd' });
    // An ordinary name is returned as read, non-ASCII letters included.
    const plain = detectProvider({ headers: { 'stripe-signature': 't=1,v1=00' }, body: JSON.stringify({ type: 'facture.payée' }), contentType: 'application/json', method: 'POST', query: {} });
    expect(plain.event).toBe('facture.payée');
  });

  test('a header-identified sender with an unparseable body still gets a provider', () => {
    const result = detectProvider({ headers: { 'stripe-signature': 't=1,v1=00' }, body: '{not json', contentType: 'application/json', method: 'POST', query: {} });
    expect(result).toEqual({ provider: 'stripe', event: '' });
  });
});
