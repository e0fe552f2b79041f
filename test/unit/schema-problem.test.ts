/** One reading of schema refusals: agent bodies (SPEC 7.2), Stripe events and PLANS. */
import { describe, expect, test } from 'bun:test';
import { t } from 'elysia';
import { loadConfig } from '../../src/config';
import { schemaProblem } from '../../src/schema-problem';
import { otpOf, parseRegisterJson } from '../../src/services/agent/input';
import { parseStripeEvent } from '../../src/services/stripe-events';
import { refusal } from '../support/refusal';

const event = (value: unknown) => new TextEncoder().encode(JSON.stringify(value));

describe('schemaProblem', () => {
  test('names the first bad field, in the schema’s own words when it has them', () => {
    expect(schemaProblem(t.Object({ otp: t.String() }), { otp: 7 })).toBe('otp: must be a string');
    expect(schemaProblem(t.Object({ a: t.Object({ b: t.Boolean() }) }), { a: { b: 'x' } })).toBe('a.b: must be true or false');
    expect(schemaProblem(t.Object({ a: t.String({ error: 'must be text' }) }), {})).toBe('a: must be text');
    expect(schemaProblem(t.Object({ a: t.String() }), [])).toBe('must be an object');
    expect(schemaProblem(t.Object({ a: t.String() }), { a: 'ok' })).toBeNull();
  });

  test('says it as the route schemas do (src/schema-words.ts): left out, bounds, and inside a union', () => {
    expect(schemaProblem(t.Object({ a: t.String() }), {})).toBe('a: is required');
    expect(schemaProblem(t.Object({ n: t.Integer({ minimum: 1, maximum: 9 }) }), { n: 10 })).toBe('n: must be an integer from 1 to 9');
    const shape = t.Union([
      t.Object({ kind: t.Literal(1), size: t.Number({ maximum: 10 }) }),
      t.Object({ kind: t.Literal(2), items: t.Array(t.String()) }),
    ]);
    const body = t.Object({ v: t.Union([shape, t.Null()]) });
    // TypeBox alone says "v: Expected union value": neither which member nor what inside it.
    expect(schemaProblem(body, { v: { kind: 1, size: 11 } })).toBe('v.size: must be a number of at most 10');
    expect(schemaProblem(body, { v: { kind: 2, items: ['a', 3] } })).toBe('v.items.1: must be a string');
    expect(schemaProblem(body, { v: { kind: 3 } })).toBe('v.kind: must be one of: 1, 2');
    expect(schemaProblem(body, { v: 'x' })).toBe('v: must be an object or null');
    // A union's own words still win over looking inside it.
    expect(schemaProblem(t.Object({ v: t.Union([t.String(), t.Null()], { error: 'must be text' }) }), { v: 5 })).toBe('v: must be text');
  });

  test('a field a closed object does not take is named, with the known one it differs from only by case, _ or -', () => {
    const closed = t.Object({ expiresIn: t.Optional(t.Integer()), name: t.Optional(t.String()) }, { additionalProperties: false });
    expect(schemaProblem(closed, { expires_in: 60 })).toBe('expires_in: is not a field of this request; did you mean expiresIn?');
    expect(schemaProblem(closed, { 'Expires-In': 60 })).toBe('Expires-In: is not a field of this request; did you mean expiresIn?');
    expect(schemaProblem(closed, { ttl: 60 })).toBe('ttl: is not a field of this request');
    expect(schemaProblem(t.Object({ a: closed }), { a: { NAME: 'x' } })).toBe('a.NAME: is not a field of this request; did you mean name?');
  });
});

describe('agent bodies', () => {
  test('a wrong type is invalid_request with the field in error_description', () => {
    const e = refusal(() => parseRegisterJson({ type: 'anonymous', client_name: 7 }));
    expect(e.code).toBe('invalid_request');
    expect(e.toJSON()).toEqual({ error: 'invalid_request', error_description: 'client_name: must be a string or null' });
    expect(refusal(() => otpOf({ otp: 123456 })).message).toBe('otp: must be a string of 6 digits');
    expect(refusal(() => otpOf({})).code).toBe('invalid_request');
    // null reads as absent, as before the schemas.
    expect(parseRegisterJson({ type: 'anonymous', identity_type: null, client_name: 'bot' })).toEqual({ type: 'anonymous', clientName: 'bot' });
  });
});

describe('Stripe events', () => {
  const sub = { id: 'sub_1', status: 'active', quantity: 3, customer: 'cus_1', metadata: { team_id: 'team_1' }, current_period_end: 1_800_000_000 };

  test('a subscription event is read from its schema', () => {
    const e = parseStripeEvent(event({ id: 'evt_1', type: 'customer.subscription.updated', created: 1, data: { object: sub } }));
    expect(e).toEqual({
      id: 'evt_1',
      type: 'customer.subscription.updated',
      created: 1,
      subscription: { id: 'sub_1', customerId: 'cus_1', status: 'active', seats: 3, teamId: 'team_1', currentPeriodEnd: 1_800_000_000_000 },
    });
  });

  test('newer API versions: seats and period from the items; an expanded customer', () => {
    const newer = { ...sub, quantity: undefined, current_period_end: undefined, customer: { id: 'cus_2' }, items: { data: [{ quantity: 2, current_period_end: 5 }, { quantity: 1 }] } };
    const e = parseStripeEvent(event({ id: 'evt_2', type: 'customer.subscription.created', created: 2, data: { object: newer } }));
    expect(e.subscription).toMatchObject({ seats: 3, customerId: 'cus_2', currentPeriodEnd: 5000 });
  });

  test('other event types need only the envelope', () => {
    expect(parseStripeEvent(event({ id: 'evt_3', type: 'invoice.paid', created: 3, data: 'anything' })).subscription).toBeNull();
  });

  test('refusals are validation errors naming the field', () => {
    const cases: [unknown, string][] = [
      [{ type: 'invoice.paid', created: 1 }, 'Stripe event: id: must be a non-empty string'],
      [{ id: 'evt', type: 'x', created: 1.5 }, 'Stripe event: created: must be an integer (seconds)'],
      [{ id: 'evt', type: 'customer.subscription.updated', created: 1 }, 'Stripe event: data.object: must be an object'],
      [{ id: 'evt', type: 'customer.subscription.updated', created: 1, data: { object: { ...sub, status: 'Active!' } } }, 'Stripe event: data.object: status: is not a Stripe status'],
      [{ id: 'evt', type: 'customer.subscription.updated', created: 1, data: { object: { ...sub, quantity: undefined } } }, 'Stripe event: subscription has no quantity (seats)'],
    ];
    for (const [body, message] of cases) {
      const e = refusal(() => parseStripeEvent(event(body)));
      expect(e.code).toBe('validation');
      expect(e.message).toBe(message);
    }
  });
});

describe('PLANS', () => {
  test('its schema’s refusal is the config error line', () => {
    const load = (PLANS: string) => () => loadConfig({ PLANS, DATA_DIR: '/tmp/hookcap-plans-test' });
    expect(load('{"pro":{"limit":1}}')).toThrow('PLANS has the wrong shape: free: is required');
    expect(load('{"free":{"limit":1},"pro":{"limit":"x"}}')).toThrow('PLANS has the wrong shape: pro.limit: must be an integer of at least 0');
    expect(loadConfig({ PLANS: '{"free":{"limit":5},"pro":{"limit":8}}', DATA_DIR: '/tmp/hookcap-plans-test' }).plans).toEqual({ free: { limit: 5, retentionDays: 7 }, pro: { limit: 8, retentionDays: 30 } });
    expect(load('{"free":{"limit":1,"retentionDays":0}}')).toThrow('PLANS has the wrong shape: free.retentionDays: must be an integer of at least 1');
  });
});
