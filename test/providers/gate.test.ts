/**
 * The body gate decides which captures pay a JSON.parse for body-shape detection. It must let
 * every body-only sender through (compact or pretty-printed) and keep ordinary payloads out, even
 * ones that happen to use the same key names: that is what keeps detection off the capture path's
 * cost (bench/capture, bench/capture-stages).
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { detectProvider } from '../../src/engine/providers';
import { bodyCandidates, compile } from '../../src/engine/providers/engine';
import { PROVIDERS } from '../../src/engine/providers/rules';
import { request, SAMPLES } from './samples';

const index = compile(PROVIDERS);

/** A sample with no header or query anchor of its sender is detected from the body alone. */
function bodyOnly(input: (typeof SAMPLES)[number]['input']): boolean {
  return !Object.keys(input.headers).some((h) => index.byHeader.has(h)) && !Object.keys(input.query).some((q) => index.byQuery.has(q));
}

describe('body gate', () => {
  const bodySamples = SAMPLES.filter((s) => s.provider !== '' && bodyOnly(s.input));

  test('there are body-only samples to check', () => {
    expect(bodySamples.length).toBeGreaterThanOrEqual(10);
  });

  for (const s of bodySamples) {
    test(`${s.name}: opens the gate`, () => {
      expect(bodyCandidates(index, s.input.body, s.input.contentType)).toBeDefined();
    });
  }

  test('pretty-printed JSON bodies are detected like compact ones', () => {
    let checked = 0;
    for (const s of bodySamples) {
      if (!/json/.test(s.input.contentType)) continue;
      const pretty = JSON.stringify(JSON.parse(s.input.body), null, 2);
      expect({ name: s.name, ...detectProvider({ ...s.input, body: pretty }) }).toEqual({ name: s.name, provider: s.provider, event: s.event });
      checked++;
    }
    expect(checked).toBeGreaterThanOrEqual(8);
  });

  // Ordinary payloads using the key names older, looser anchors matched on.
  const ordinary: Record<string, unknown> = {
    'the bench body (a Stripe-like invoice with "subscription")': JSON.parse(
      /wrk\.body = '(.*)'/.exec(readFileSync(new URL('../../bench/lib/post.lua', import.meta.url), 'utf8'))?.[1] ?? 'null',
    ),
    'a subscription id': { id: 'in_1', subscription: 'sub_123', status: 'paid' },
    'a feed with entry': { feed: 'news', entry: [{ id: '1', title: 'x' }] },
    'a message id': { messageId: 'm-1', anonymousId: 'a-1', type: 'message' },
    'a record type': { RecordType: 'Custom', MessageStream: 'x' },
    'a configuration id': { configurationId: 'c1', event: 'created' },
    'a webhook event name': { webhookEvent: 'order_created' },
    'an update id string': { update_id: 'abc' },
    'an event type': { eventType: 'com.example.thing', source: 's' },
    'notification items as text': { notificationItems: 'none' },
  };
  for (const [name, body] of Object.entries(ordinary)) {
    test(`${name}: keeps the gate shut`, () => {
      const input = request({ body });
      expect(bodyCandidates(index, input.body, input.contentType)).toBeUndefined();
      expect(detectProvider(input)).toEqual({ provider: '', event: '' });
    });
  }

  test('a body anchor with flags is refused at compile time', () => {
    expect(() => compile([{ id: 'x', fingerprints: [{ on: [{ json: /"a"/i }], event: [] }] }])).toThrow(/flags/);
  });
});

describe('event fields read at the body edges without a parse', () => {
  const stripe = (body: string) =>
    detectProvider({ headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=a' }, body, contentType: 'application/json', method: 'POST', query: {} });

  test('first or last member, compact or pretty-printed', () => {
    expect(stripe('{"type":"a.first","id":1}').event).toBe('a.first');
    expect(stripe('{"id":1,"data":{"x":2},"type":"b.last"}').event).toBe('b.last');
    expect(stripe(JSON.stringify({ id: 1, data: { type: 'card' }, type: 'c.pretty' }, null, 2)).event).toBe('c.pretty');
  });

  test('a nested member at the edge is not taken for the top-level one', () => {
    expect(stripe('{"id":1,"data":{"type":"nested"}}').event).toBe('');
    expect(stripe('{"data":{"type":"nested"},"id":1}').event).toBe('');
    expect(stripe('{"id":1,"data":{"type":"nested"},"type":"real"}').event).toBe('real');
    expect(stripe('{"data":{"type":"nested"},"type":"real","id":2}').event).toBe('real');
  });

  test('values with escapes, and bodies over the window, give what a parse gives', () => {
    expect(stripe('{"type":"with\\"quote","id":1}').event).toBe('with"quote');
    const long = JSON.stringify({ id: 1, pad: 'x'.repeat(5000), type: 'far.end' });
    expect(stripe(long).event).toBe('far.end');
    const middle = JSON.stringify({ id: 1, type: 'in.middle', pad: 'x'.repeat(5000) });
    expect(stripe(middle).event).toBe('in.middle');
  });
});
