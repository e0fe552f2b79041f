import { Type, type Static } from '@sinclair/typebox';

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
    headers: Type.Record(Type.String(), Type.String(), { description: 'Header names lower-cased' }),
    body: Type.String({ description: 'Raw body; base64 when bodyEncoding is "base64"' }),
    bodyEncoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')], {
      description: '"base64" when the body was not valid UTF-8, so it is kept byte for byte',
    }),
    queryParams: Type.Record(Type.String(), Type.Union([Type.String(), Type.Array(Type.String())])),
    contentType: Type.String(),
    ip: Type.String(),
    size: Type.Number({ description: 'Body size in bytes' }),
    receivedAt: Type.Integer({ description: 'ms since epoch' }),
    detectedProvider: Type.String({ description: 'Best-effort sender guess; "" when unknown' }),
    detectedEvent: Type.String({ description: 'Best-effort event name; "" when unknown' }),
    signatureVerified: Type.Optional(Type.Boolean()),
    signatureError: Type.Optional(Type.Union([Type.String(), Type.Null()])),
    signingProvider: Type.Optional(Type.String()),
  },
  { $id: 'RequestRecord' },
);

export type Capture = Static<typeof CaptureRecord>;
