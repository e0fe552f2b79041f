/**
 * A TypeBox refusal in words a client can act on: `field: what is wrong`
 * (`mockResponse.status: must be an integer from 200 to 599`). One wording for every schema the
 * service checks: route schemas (src/http/validation-message.ts, from Elysia's error) and the
 * bodies it checks itself (src/schema-problem.ts: agent bodies, Stripe events, PLANS).
 *
 * TypeBox reports a value that fits no member of a union as one error on the union itself ("Expected
 * union value"), which names no member and nothing inside it. Here a union is read the way the
 * client meant it: the member of the value's own kind (the object, not null), and among several
 * objects the one its discriminator names (`provider: 'hmac'`), is checked again on its own and its
 * first error is reported, so the words point inside the object. A schema's own words (an `error`
 * option, `t.String({ error: 'must be text' })`) win over all of this.
 *
 * @example
 * failureWords(Value.Errors(schema, value).First()) // "signing.provider: must be one of: 'stripe', …, 'hmac'"
 */
import type { TSchema } from '@sinclair/typebox';
import { Value } from '@sinclair/typebox/value';
import { ValueErrorType, type ValueError } from '@sinclair/typebox/errors';

/** The JSON Schema keywords this reads (TypeBox schemas are JSON Schema). */
export interface Schema {
  type?: string;
  const?: unknown;
  anyOf?: Schema[];
  format?: string;
  properties?: Record<string, Schema>;
  required?: string[];
  minimum?: number;
  maximum?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  /** A schema's own words for its refusal (`t.String({ error: 'must be text' })`). */
  error?: unknown;
}

/** One failed check: where (JSON pointer, `/a/b`), against which schema, on what value. */
export interface Failure {
  path: string;
  schema: Schema;
  value: unknown;
  type: number;
  message: string;
}

/** A name compared loosely: case, `_` and `-` ignored (`expires_in`, `ExpiresIn` and `expiresIn` are one). */
const loose = (name: string): string => name.toLowerCase().replace(/[_-]/g, '');

/**
 * What is wrong with a field the request does not take, and the one it looks like when a known
 * field is the same name but for case, `_` or `-`: a client that wrote `expires_in` meant
 * `expiresIn`, and must not believe it was set. Route bodies (src/http/body-fields.ts) and
 * schemas that refuse extra properties themselves (admin bodies) both say it so.
 *
 * @example
 * notAFieldWords('expires_in', ['name', 'expiresIn']) // 'is not a field of this request; did you mean expiresIn?'
 */
export function notAFieldWords(field: string, known: readonly string[]): string {
  const want = loose(field);
  const like = known.find((k) => k !== field && loose(k) === want);
  return like === undefined ? 'is not a field of this request' : `is not a field of this request; did you mean ${like}?`;
}

/** One TypeBox error (a ValueError, or what Elysia keeps of one) as `field: what is wrong`. */
export function failureWords(error: Partial<ValueError>): string {
  const { path, what } = explainSafely(failureOf(error));
  const field = path.replace(/^\//, '').replace(/\//g, '.');
  return field ? `${field}: ${what}` : what;
}

/** The parts of an error this reads, with defaults for what a foreign error leaves out. */
export function failureOf(raw: Partial<ValueError>): Failure {
  return {
    path: typeof raw.path === 'string' ? raw.path : '',
    schema: (raw.schema ?? {}) as Schema,
    value: raw.value,
    type: typeof raw.type === 'number' ? raw.type : -1,
    message: raw.message ?? 'is invalid',
  };
}

interface Said {
  path: string;
  what: string;
}

/** The member a value was meant as, or the words when no member can be named. */
type Chosen = { member: Schema } | { said: Said };

/** A refusal is a 400 whatever the value holds: if looking into it fails, the error's own words. */
function explainSafely(f: Failure): Said {
  try {
    return explain(f);
  } catch {
    return { path: f.path, what: f.message };
  }
}

/** The failure to report and its words, looking through unions to the member the value was meant as. */
function explain(f: Failure): Said {
  // The schema's own words, a union's included, are what its author meant a client to read.
  if (typeof f.schema.error === 'string') return { path: f.path, what: f.schema.error };
  // JSON has no undefined: a field checked as undefined was left out (Elysia checks a missing
  // property as present and undefined, and TypeBox visits a missing property's schema before it
  // says it is missing, so either says "Expected string", not that it is missing).
  if (f.value === undefined && f.path !== '') return { path: f.path, what: 'is required' };
  if (f.type !== ValueErrorType.Union || !f.schema.anyOf) return { path: f.path, what: words(f) };
  const members = f.schema.anyOf.filter((m) => !isNumericText(m, f.schema.anyOf ?? []));
  const unionWords = { path: f.path, what: `must be ${describeAll(members)}` };
  const fitting = members.filter((m) => sameKind(m, f.value));
  const [head, ...rest] = fitting;
  const chosen: Chosen = !head ? { said: unionWords } : rest.length === 0 ? { member: head } : pickByDiscriminator([head, ...rest], f);
  if ('said' in chosen) return chosen.said;
  const inner = failureWithin(chosen.member, f.value, f.path);
  // The member fitting on its own would mean the union fits: say the union's words, never nothing.
  return inner ? explain(inner) : unionWords;
}

/**
 * Elysia's `t.Integer`/`t.Numeric` are a union of the number and its text form (`"201"`, for query
 * strings); a client is told about the number, so the text form is left out when the number is there.
 */
function isNumericText(member: Schema, members: Schema[]): boolean {
  return member.type === 'string' && (member.format === 'integer' || member.format === 'numeric') && members.some((m) => m.type === 'integer' || m.type === 'number');
}

/** Whether `value` is of the member's kind (an object for an object, a number for a number, …). */
function sameKind(member: Schema, value: unknown): boolean {
  if (member.anyOf) return member.anyOf.some((m) => sameKind(m, value));
  if ('const' in member) return member.const === value;
  switch (member.type) {
    case 'null':
      return value === null;
    case 'string':
      return typeof value === 'string';
    case 'integer':
    case 'number':
      return typeof value === 'number';
    case 'boolean':
      return typeof value === 'boolean';
    case 'array':
      return Array.isArray(value);
    case 'object':
      return typeof value === 'object' && value !== null && !Array.isArray(value);
    case undefined:
      return true; // Unknown, Any: anything is its kind.
    default:
      return false;
  }
}

/**
 * Among several object members, the one a discriminating property names: a property every member
 * requires, each with its own literal values (`provider`: the named providers, or `hmac`). When the
 * value names none of them, the failure is that property's, with every allowed value listed.
 */
function pickByDiscriminator(members: [Schema, ...Schema[]], f: Failure): Chosen {
  const key = discriminator(members);
  if (key === null) return { member: fewestErrors(members, f.value) };
  const given = (f.value as Record<string, unknown>)[key];
  const named = members.find((m) => literals(m.properties?.[key]).includes(given));
  if (named) return { member: named };
  const allowed = members.flatMap((m) => literals(m.properties?.[key]));
  return { said: { path: `${f.path}/${key}`, what: `must be one of: ${allowed.map(quote).join(', ')}` } };
}

/**
 * The property that tells several object members apart: one every member requires, each with
 * literal values of its own (`provider`: a named provider, or `hmac`). Null when there is none.
 */
export function discriminator(members: Schema[]): string | null {
  const first = members[0];
  if (!first?.properties) return null;
  for (const key of Object.keys(first.properties)) {
    const sets = members.map((m) => (m.required?.includes(key) ? literals(m.properties?.[key]) : []));
    if (sets.some((s) => s.length === 0)) continue;
    const all = sets.flat();
    if (new Set(all).size === all.length) return key;
  }
  return null;
}

/** The literal values a schema allows (a literal, or a union of literals), else none. */
export function literals(schema: Schema | undefined): unknown[] {
  if (!schema) return [];
  if ('const' in schema) return [schema.const];
  if (!schema.anyOf) return [];
  const inner = schema.anyOf.map((m) => literals(m));
  return inner.some((l) => l.length === 0) ? [] : inner.flat();
}

/** Errors counted per member at most: a large body is not walked whole to pick one. */
const MAX_COUNTED = 64;

/** Without a discriminator, the member the value comes closest to: the fewest things wrong. */
function fewestErrors(members: [Schema, ...Schema[]], value: unknown): Schema {
  let best = members[0];
  let bestCount = Infinity;
  for (const m of members) {
    let count = 0;
    for (const _ of Value.Errors(m as TSchema, value)) if (++count >= MAX_COUNTED) break;
    if (count < bestCount) [best, bestCount] = [m, count];
  }
  return best;
}

/**
 * The first error of `value` against one member alone, its path under the union's. The value as
 * Elysia checked it: a member's defaults are not filled in inside a union (a mock response without
 * `body` is refused), so a missing property is reported as missing.
 */
function failureWithin(member: Schema, value: unknown, at: string): Failure | null {
  const e = Value.Errors(member as TSchema, value).First();
  if (!e) return null;
  return { path: at + e.path, schema: e.schema as Schema, value: e.value, type: e.type, message: e.message };
}

/** One failed check, said as the rest of the API says it (docs/api.md, "errors"). */
function words(f: Failure): string {
  const s = f.schema;
  switch (f.type) {
    case ValueErrorType.ObjectRequiredProperty:
      return 'is required';
    case ValueErrorType.ObjectAdditionalProperties:
      return notAFieldWords(f.path.slice(f.path.lastIndexOf('/') + 1), Object.keys(s.properties ?? {}));
    case ValueErrorType.StringMaxLength:
      return `must be at most ${s.maxLength} characters`;
    case ValueErrorType.StringMinLength:
      return s.minLength === 1 ? 'must not be empty' : `must be at least ${s.minLength} characters`;
    case ValueErrorType.StringPattern:
      return `must match ${s.pattern}`;
    case ValueErrorType.Integer:
    case ValueErrorType.IntegerMinimum:
    case ValueErrorType.IntegerMaximum:
    case ValueErrorType.Number:
    case ValueErrorType.NumberMinimum:
    case ValueErrorType.NumberMaximum:
    case ValueErrorType.String:
    case ValueErrorType.Boolean:
    case ValueErrorType.Object:
    case ValueErrorType.Array:
    case ValueErrorType.Null:
    case ValueErrorType.Literal:
      return `must be ${describe(s) ?? 'valid'}`;
    default:
      return f.message;
  }
}

/** What a set of members allows, as one phrase: `an object or null`, `one of: 'sha1', 'sha256'`. */
function describeAll(members: Schema[]): string {
  const flat = members.flatMap((m) => (m.anyOf && literals(m).length === 0 ? m.anyOf.filter((x) => !isNumericText(x, m.anyOf ?? [])) : [m]));
  const values = flat.flatMap((m) => literals(m));
  const others = [...new Set(flat.filter((m) => literals(m).length === 0).map(describe).filter((d): d is string => d !== null))];
  if (values.length > 0 && others.length === 0) return values.length === 1 ? quote(values[0]) : `one of: ${values.map(quote).join(', ')}`;
  // "true or false" reads well alone; in a list of choices it is one choice.
  const parts = [...values.map(quote), ...others.map((o) => (others.length + values.length > 1 && o === 'true or false' ? 'a boolean' : o))];
  if (parts.length === 0) return 'valid';
  return parts.length === 1 ? (parts[0] ?? 'valid') : `${parts.slice(0, -1).join(', ')} or ${parts[parts.length - 1]}`;
}

/** What one schema allows, or null when it has no short name (a reference, a function). */
function describe(s: Schema): string | null {
  if ('const' in s) return quote(s.const);
  if (s.anyOf) return describeAll(s.anyOf);
  switch (s.type) {
    case 'null':
      return 'null';
    case 'string':
      return 'a string';
    case 'integer':
      return `an integer${bounds(s)}`;
    case 'number':
      return `a number${bounds(s)}`;
    case 'boolean':
      return 'true or false';
    case 'object':
      return 'an object';
    case 'array':
      return 'an array';
    default:
      return null;
  }
}

function bounds(s: Schema): string {
  if (s.minimum !== undefined && s.maximum !== undefined) return ` from ${s.minimum} to ${s.maximum}`;
  if (s.minimum !== undefined) return ` of at least ${s.minimum}`;
  if (s.maximum !== undefined) return ` of at most ${s.maximum}`;
  return '';
}

function quote(v: unknown): string {
  return typeof v === 'string' ? `'${v}'` : String(v);
}
