/**
 * A route schema's refusal in words a client can act on: `field: what is wrong`
 * (`mockResponse.status: must be an integer from 200 to 599`), in the wording every schema the
 * service checks is refused with (src/schema-words.ts).
 *
 * Elysia words a union's refusal from the members' types (`signing: Property 'signing' should be
 * one of: 'undefined', 'null'`), which tells a client sending a signing object to send null; the
 * shared wording looks inside the union instead. This module only finds TypeBox's error in
 * Elysia's, and says what to send when there is no body at all.
 *
 * @example
 * validationMessage(error) // 'signing.provider: must be one of: 'stripe', …, 'hmac''
 */
import type { ValueError } from '@sinclair/typebox/errors';
import { failureOf, failureWords, type Failure } from '../schema-words';

/** Renders Elysia's ValidationError (or anything shaped like it) as one line. */
export function validationMessage(err: unknown): string {
  const raw = firstError(err);
  if (!raw) return 'request is invalid';
  return missingBodyMessage(err, failureOf(raw)) ?? failureWords(raw);
}

/**
 * No body at all where the route takes an object: TypeBox says only "Expected object". Say what to
 * send instead, with the route's required fields, so a caller reading the error alone (an agent)
 * can put it right. (A body that is there but not an object is refused before: src/http/guards.ts.)
 */
function missingBodyMessage(err: unknown, f: Failure): string | null {
  if ((err as { type?: unknown }).type !== 'body' || f.path !== '' || f.value !== undefined || f.schema.type !== 'object') return null;
  const required = (f.schema.required ?? []).filter((name): name is string => typeof name === 'string');
  return `send a JSON object${required.length > 0 ? ` with ${required.join(', ')}` : ''} as the body, with Content-Type: application/json (each route's fields: /docs/json)`;
}

/**
 * The first error as TypeBox reported it. `valueError` is the raw one, before Elysia words it (its
 * wording turns the value into text, which throws on hostile objects); `all` is the fallback.
 */
function firstError(err: unknown): Partial<ValueError> | null {
  const e = err as { valueError?: Partial<ValueError>; all?: Partial<ValueError & { summary: string }>[] };
  const raw = e.valueError ?? e.all?.[0];
  return raw && typeof raw === 'object' ? raw : null;
}

