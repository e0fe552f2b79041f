import { Type, type Static } from '@sinclair/typebox';

/** POST /api/requests/{id}/replay: where to send the capture again, and what to change. */
export const ReplayInputSchema = Type.Object(
  {
    url: Type.String({ minLength: 1, maxLength: 2048, description: 'http(s) URL the capture is sent to, as given (path and query are not appended)' }),
    headers: Type.Optional(
      Type.Record(Type.String(), Type.Union([Type.String(), Type.Null()]), {
        description: 'Headers to set (string) or remove (null) on top of the captured ones; host, content-length and hop-by-hop headers cannot be given',
      }),
    ),
    body: Type.Optional(Type.String({ description: 'Replaces the captured body' })),
    bodyEncoding: Type.Optional(Type.Union([Type.Literal('utf8'), Type.Literal('base64')], { description: 'How body is written (default utf8)' })),
  },
  { $id: 'ReplayInput' },
);
export type ReplayInput = Static<typeof ReplayInputSchema>;

/** What the target answered. */
export const ReplayResultSchema = Type.Object(
  {
    url: Type.String(),
    status: Type.Integer(),
    headers: Type.Record(Type.String(), Type.String()),
    body: Type.String({ description: 'The start of the answer (64 KiB at most); base64 when bodyEncoding is "base64"' }),
    bodyEncoding: Type.Union([Type.Literal('utf8'), Type.Literal('base64')]),
    truncated: Type.Boolean({ description: 'The target sent more than was kept' }),
    timing: Type.Object({
      headersMs: Type.Number({ description: 'Start (address checks included) to response headers' }),
      totalMs: Type.Number({ description: 'Start to the end of the body read' }),
    }),
  },
  { $id: 'ReplayResult' },
);
export type ReplayResult = Static<typeof ReplayResultSchema>;
