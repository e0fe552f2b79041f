/**
 * One reading of a TypeBox refusal for values checked outside Elysia's route validation: agent
 * bodies (SPEC 7.2 `invalid_request`), Stripe events and settings (the config error line). Each
 * caller wraps the line in its own error; the words are those of the API's validation messages
 * (src/schema-words.ts, shared with src/http/validation-message.ts): `field: what is wrong`.
 */
import type { Static, TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { failureWords } from './schema-words';

/**
 * The first thing wrong with `value` as one line, or null when it fits. A schema may word its own
 * refusal with an `error` option (`t.String({ error: 'must be a string of 6 digits' })`); a union
 * is looked into, to the member the value was meant as.
 *
 * @example
 * schemaProblem(t.Object({ otp: t.String() }), { otp: 7 }) // 'otp: must be a string'
 */
export function schemaProblem(schema: TSchema, value: unknown): string | null {
  if (Value.Check(schema, value)) return null;
  const first = Value.Errors(schema, value).First();
  return first ? failureWords(first) : 'is invalid';
}

/**
 * `value` typed by `schema`, or the error `refuse` makes of the problem's line.
 *
 * @example
 * const plans = checked(PlansSchema, parsed, (line) => new ConfigError(`PLANS: ${line}`));
 */
export function checked<S extends TSchema>(schema: S, value: unknown, refuse: (problem: string) => Error): Static<S> {
  const problem = schemaProblem(schema, value);
  if (problem !== null) throw refuse(problem);
  return value as Static<S>;
}
