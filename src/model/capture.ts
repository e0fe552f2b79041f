import { Type, type Static, type TSchema } from '@sinclair/typebox';

/**
 * A map of names a stranger chose (headers, query parameters) to values. Same JSON Schema as
 * Type.Record, written as an object with additionalProperties because Elysia's response cleaner
 * copies a Record key by key into a plain object, where a key named `__proto__` is lost; an
 * object with additionalProperties is copied whole, every key kept.
 */
function nameMap<T extends TSchema>(value: T, options: { description?: string } = {}) {
  return Type.Unsafe<Record<string, Static<T>>>(Type.Object({}, { ...options, additionalProperties: value }));
}

/**
 * A captured request as clients see it (SPEC 2.4). Defined once: the capture log, both capture
 * stores, the API responses and the SSE stream all use this shape.
 */
export const CaptureRecord = Type.Object(
  {
    id: Type.String({ description: 'req_ + 26-char ULID; its time part equals receivedAt' }),
    endpointId: Type.String(),
    method: Type.String(),
    path: Type.String({ description: 'Path received after the slug, "/" when none' }),
    headers: nameMap(Type.String(), { description: 'Header names lower-cased' }),
    body: Type.String({ description: 'Raw body; base64 when bodyEncoding is "base64"' }),
    bodyEncoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
      description: '"base64" when the body was not valid UTF-8, so it is kept byte for byte',
    }),
    queryParams: nameMap(Type.Union([Type.String(), Type.Array(Type.String())]), { description: 'Repeated names become arrays' }),
    query: Type.Optional(
      Type.String({
        description: 'The query string exactly as sent, without "?" ("" when none); absent on captures stored before it was kept (rebuild from queryParams)',
      }),
    ),
    contentType: Type.String(),
    ip: Type.String(),
    size: Type.Number({ description: 'Body size in bytes' }),
    receivedAt: Type.Integer({ description: 'ms since epoch' }),
    detectedProvider: Type.String({ description: 'Best-effort sender guess; "" when unknown' }),
    detectedEvent: Type.String({ description: 'Best-effort event name; "" when unknown' }),
    signatureVerified: Type.Optional(Type.Boolean()),
    signatureError: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    signingProvider: Type.Optional(Type.String()),
    responseStatus: Type.Optional(
      Type.Integer({
        description: 'HTTP status the sender was answered (the mock response\'s, or 200); absent on captures stored before it was recorded',
      }),
    ),
    pinned: Type.Optional(Type.Boolean({ description: 'true when pinned: kept past the plan\'s retention (API reads only; absent otherwise)' })),
  },
  { $id: 'RequestRecord' },
);

export type Capture = Static<typeof CaptureRecord>;
