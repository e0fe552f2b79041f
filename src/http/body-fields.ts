/**
 * A JSON body is taken whole or refused: a field the route does not take is a 400 `validation`
 * (`expires_in: is not a field of this request; did you mean expiresIn?`), never dropped. Elysia
 * strips such fields before it validates (its `normalize`), so `POST /api/endpoints
 * {"name":"ci-run","expires_in":3600}` made an endpoint that never expires and said nothing, though
 * /docs/json publishes `additionalProperties: false`.
 *
 * One check for every route, read from the route schemas the server registered, so it cannot
 * drift from them: the body schema's fields, and inside them the fields of each object a field
 * takes (`mockResponse.header`; among several objects, the one its discriminator names:
 * `signing.header` is hmac's, not stripe's). Elysia strips these too, even where the schema says
 * `additionalProperties: false`. An update (PATCH, PUT) also takes, and ignores, the fields of its
 * resource as the API shows it, read from the GET on the same path and the update's own answer:
 * a client that changes one field of what it read and sends the whole object back is not refused
 * for the `id`, `slug` or `createdAt` it holds (docs/api.md, "errors").
 *
 * Also here, for the same routes: a body that is not JSON is 415 `unsupported_media_type`, as the
 * browser-session routes answer it (src/http/origin.ts), not a field-by-field refusal of whatever
 * Elysia made of it (`text/plain` read as a string, a form as an object of one odd key).
 *
 * Not the receiver (/w/ is answered ahead of Elysia and takes any body), nor the routes that read
 * their body as raw text (the agent API, the Stripe webhook: their bodies are strings here, and
 * they check them in their own error shapes).
 */
import { Elysia } from 'elysia';
import { AppError } from '../errors';
import { discriminator, literals, notAFieldWords, type Schema } from '../schema-words';
import { isRecord } from '../unknown';
import { hasBody, mediaTypeOf } from './origin';

/** The fields one object in a body takes, and what each field's own objects take. */
interface Fields {
  /** Field name → what its value, when an object, takes (null: anything, or not an object). */
  taken: ReadonlyMap<string, Shape | null>;
  /** Read-only fields of the resource, taken and ignored on an update (not looked into). */
  ignored: ReadonlySet<string>;
}

/**
 * What an object value of a field takes: one set of fields, or, for a union of objects told apart
 * by a discriminator (`signing.provider`), the member the value names (a `header` is hmac's, not
 * stripe's); a value naming none is judged by all members' fields together, and validation then
 * says what the discriminator takes.
 */
interface Shape {
  all: Fields;
  discriminator: string | null;
  members: { values: unknown[]; fields: Fields }[];
}

export interface RouteLike {
  readonly method: string;
  readonly path: string;
  readonly hooks?: unknown;
}

const UPDATE_METHODS = new Set(['PATCH', 'PUT']);

/** The account routes (src/http/api/auth.ts), whose extra fields are ignored (below). */
const EXTRAS_IGNORED = '/api/auth/';

/**
 * The object schemas a value of `schema` may be: itself, or the object members of a union
 * (`mockResponse`: an object or null; `signing`: one of several objects). None when extra fields
 * are allowed (a record, `additionalProperties` given) or when it is no object at all.
 */
function objectShapes(schema: Schema | undefined): Schema[] {
  if (!schema) return [];
  if (schema.anyOf) return schema.anyOf.flatMap(objectShapes);
  const extra = (schema as { additionalProperties?: unknown }).additionalProperties;
  if (schema.type !== 'object' || !schema.properties || (extra !== undefined && extra !== false)) return [];
  return [schema];
}

/** What an object of any of `shapes` takes: a field any of them names. */
function fieldsOf(shapes: Schema[], resource: Schema[] = []): Fields {
  const names = new Map<string, Schema[]>();
  for (const s of shapes) for (const [name, inner] of Object.entries(s.properties ?? {})) names.set(name, [...(names.get(name) ?? []), ...objectShapes(inner)]);
  const taken = new Map<string, Shape | null>();
  for (const [name, inner] of names) taken.set(name, shapeOf(inner));
  const ignored = new Set(resource.flatMap((r) => Object.keys(r.properties ?? {})).filter((name) => !taken.has(name)));
  return { taken, ignored };
}

function shapeOf(shapes: Schema[]): Shape | null {
  if (shapes.length === 0) return null;
  const key = shapes.length > 1 ? discriminator(shapes) : null;
  const members = key === null ? [] : shapes.map((s) => ({ values: literals(s.properties?.[key]), fields: fieldsOf([s]) }));
  return { all: fieldsOf(shapes), discriminator: key, members };
}

/** The fields an object value of `shape` is judged by: its member's when it names one. */
function fieldsFor(shape: Shape, value: Record<string, unknown>): Fields {
  if (shape.discriminator === null) return shape.all;
  const named = value[shape.discriminator];
  return shape.members.find((m) => m.values.includes(named))?.fields ?? shape.all;
}

/**
 * The first field `value` holds that `fields` does not take, as `path: is not a field …`, or null.
 * Own keys only: a `__proto__` or `constructor` key is a field like any other.
 */
function unknownField(fields: Fields, value: Record<string, unknown>, at = ''): string | null {
  for (const key of Object.keys(value)) {
    const path = at === '' ? key : `${at}.${key}`;
    if (!fields.taken.has(key)) {
      if (fields.ignored.has(key)) continue;
      return `${path}: ${notAFieldWords(key, [...fields.taken.keys()])}`;
    }
    const inner = fields.taken.get(key);
    const v = value[key];
    if (inner && isRecord(v)) {
      const found = unknownField(fieldsFor(inner, v), v, path);
      if (found !== null) return found;
    }
  }
  return null;
}

const schemaOf = (hooks: unknown, name: 'body' | 'response'): unknown => (isRecord(hooks) ? hooks[name] : undefined);

/** A route's answer on success: the 200 or 201 schema of a response map, or the one schema. */
function successSchema(hooks: unknown): Schema | undefined {
  const response = schemaOf(hooks, 'response');
  if (!isRecord(response)) return undefined;
  if ('type' in response || 'anyOf' in response) return response as Schema;
  return (response[200] ?? response[201]) as Schema | undefined;
}

/** Each route with a JSON object body, by `METHOD path` as Elysia names its matched route. */
export function bodyFieldsByRoute(routes: readonly RouteLike[]): Map<string, Fields> {
  const gets = new Map(routes.filter((r) => r.method === 'GET').map((r) => [r.path, successSchema(r.hooks)]));
  const out = new Map<string, Fields>();
  for (const r of routes) {
    // Sign-up, sign-in and the password and address routes take no setting that a dropped field
    // could lose (a mistyped required field is refused as missing), and they are what other tools'
    // account set-ups call, some with extras such as a `name`: those are ignored, not refused.
    if (r.path.startsWith(EXTRAS_IGNORED)) continue;
    const body = schemaOf(r.hooks, 'body');
    if (!isRecord(body)) continue;
    const resource = UPDATE_METHODS.has(r.method) ? [gets.get(r.path), successSchema(r.hooks)].flatMap((s) => objectShapes(s)) : [];
    const shapes = objectShapes(body as Schema);
    if (shapes.length > 0) out.set(`${r.method} ${r.path}`, fieldsOf(shapes, resource));
  }
  return out;
}

/**
 * The check, global: after the request guards (a JSON body that is no object is theirs), before
 * validation. `routes` is read at the first request, when every route is registered.
 */
export const bodyFieldCheck = (routes: () => readonly RouteLike[]) => {
  let byRoute: Map<string, Fields> | null = null;
  return new Elysia({ name: 'body-fields' }).onTransform({ as: 'global' }, ({ request, route, body }) => {
    byRoute ??= bodyFieldsByRoute(routes());
    const fields = byRoute.get(`${request.method} ${route}`);
    if (!fields) return;
    // application/json itself, as Elysia spells it: it reads no other type as JSON (`+json` kinds,
    // or `Application/JSON`, arrive as text, which no field check could make sense of).
    if (hasBody(request) && (mediaTypeOf(request) !== 'application/json' || typeof body === 'string')) {
      throw new AppError('unsupported_media_type', 'send the body as JSON (Content-Type: application/json)');
    }
    if (!isRecord(body)) return;
    const unknown = unknownField(fields, body);
    if (unknown !== null) throw new AppError('validation', unknown);
  });
};
