/**
 * The shapes of union the API's routes do not have today, read by the same mechanism
 * (src/http/validation-message.ts): Elysia's real ValidationError, from a route it validates.
 * The routes' own unions are covered over HTTP in test/behaviour/validation-unions.test.ts.
 */
import { expect, test } from 'bun:test';
import { Elysia, t, type TSchema } from 'elysia';
import { validationMessage } from '../../src/http/validation-message';

/** The message for `body` refused by a route whose body is `{ v: schema }`. */
async function refusal(schema: TSchema, body: unknown): Promise<string> {
  const app = new Elysia()
    .onError(({ error, code }) => new Response(code === 'VALIDATION' ? validationMessage(error) : `not a validation error: ${String(code)}`, { status: 400 }))
    .post('/', () => 'accepted', { body: t.Object({ v: schema }) });
  const r = await app.handle(new Request('http://localhost/', { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(body) }));
  return r.text();
}

test('objects without a discriminator: the first error of the one the value comes closest to', async () => {
  const either = t.Union([t.Object({ a: t.String(), b: t.String() }), t.Object({ c: t.Integer({ minimum: 1 }) })]);
  expect(await refusal(either, { v: { a: 'x', b: 5 } })).toBe('v.b: must be a string');
  expect(await refusal(either, { v: { c: 0 } })).toBe('v.c: must be an integer of at least 1');
});

test('a discriminator shared by nested unions, a number, and a value of no allowed kind', async () => {
  const shape = t.Union([
    t.Object({ kind: t.Literal(1), size: t.Number({ maximum: 10 }) }),
    t.Object({ kind: t.Literal(2), items: t.Array(t.String()) }),
  ]);
  expect(await refusal(t.Union([shape, t.Null()]), { v: { kind: 1, size: 11 } })).toBe('v.size: must be a number of at most 10');
  expect(await refusal(t.Union([shape, t.Null()]), { v: { kind: 2, items: ['a', 3] } })).toBe('v.items.1: must be a string');
  expect(await refusal(t.Union([shape, t.Null()]), { v: { kind: 3 } })).toBe('v.kind: must be one of: 1, 2');
  expect(await refusal(t.Union([t.Array(t.String()), t.Boolean(), t.Literal('auto')]), { v: 5 })).toBe("v: must be 'auto', an array or a boolean");
});

test('a required union left out is required', async () => {
  expect(await refusal(t.Union([t.String(), t.Null()]), {})).toBe('v: is required');
});
