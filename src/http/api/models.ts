/** Response and body schemas shared by the API routes and the OpenAPI page. */
import { Type } from '@sinclair/typebox';
import { t, type TSchema } from 'elysia';
import { REFUSAL_CODES, REFUSAL_REASONS, refusalStatus } from '../../engine/refusals';
import { CaptureRecord } from '../../model/capture';

/**
 * Every refusal (src/http/errors.ts): SPEC 7.1 `{error, code}` (a message and its code), or on the
 * agent routes SPEC 7.2 `{error, error_description}` (the code and its message).
 */
export const ErrorBody = t.Object(
  {
    error: t.String({ description: 'What went wrong (SPEC 7.1), or the error code on /api/agent (SPEC 7.2)' }),
    code: t.Optional(t.String({ description: 'SPEC 7.1 code: validation, unauthorized, forbidden, not_found, …' })),
    error_description: t.Optional(t.String({ description: 'SPEC 7.2: the message, on /api/agent' })),
    limit: t.Optional(t.Integer({ description: 'On a limit refusal (team_limit, pin_limit): the limit reached' })),
  },
  { description: 'An error' },
);

/** The receiver's default answer to a capture (docs/api.md, "default receiver answer"). */
export const ReceiverAck = t.Object({ ok: t.Literal(true), id: t.String({ description: 'The capture id, req_…; also in x-request-id' }) });

/** A part of the /healthz report that only some roles have (null on the others); docs/operations.md. */
const rolePart = (description: string) => t.Union([t.Object({}, { additionalProperties: true }), t.Null()], { description });

/** The /healthz report (src/health.ts), for the OpenAPI page; documented, not validated. */
export const HealthReport = t.Object({
  ok: t.Boolean({ description: 'False while a background part is failing (the shipper worker)' }),
  status: t.Union([t.Literal('ok'), t.Literal('degraded')], { description: 'degraded: captures are acknowledged but the capture store refuses inserts or is behind' }),
  roles: t.Array(t.Union([t.Literal('receiver'), t.Literal('api'), t.Literal('stream')])),
  backends: t.Object({
    state: t.String(),
    captures: t.String(),
    bus: t.String(),
    busConnected: t.Boolean(),
    stateReachable: t.Union([t.Boolean(), t.Null()], { description: 'null on PGlite' }),
    capturesReachable: t.Union([t.Boolean(), t.Null()], { description: 'null on SQLite' }),
  }),
  shipper: rolePart('Receiver nodes: captures acknowledged but not yet stored, the worker state and counters'),
  notifications: rolePart('Receiver nodes: notifications pending, delivered, failed, dropped'),
  stream: rolePart('Stream nodes: {topics, clients, idle}'),
  unknownSlugs: rolePart('Receiver nodes: {entries, bytes} of unknown slugs remembered'),
  endpointCache: rolePart('Receiver nodes: endpoint snapshots cached'),
  captureLog: rolePart('Receiver nodes: {groups, frames, recycled, writeMs} of the capture log'),
  refusals: t.Object(
    Object.fromEntries(REFUSAL_REASONS.map((r) => [r, t.Integer({ minimum: 0, description: `Answered ${refusalStatus(r)} ${REFUSAL_CODES[r]}` })])),
    { description: 'Requests to /w/ refused since start, by reason, every reason present (0 until one happens); docs/operations.md, "/healthz"' },
  ),
});

/** A 204's (empty) body, so the OpenAPI document shows the route's real status. */
export const NoContent = t.Void({ description: 'No content' });

/**
 * Error answers a route documents, each with the shared error schema:
 * `response: { 200: X, ...errors(400, 404) }`. Every /api route may also answer 429 (SPEC 8).
 */
export function errors<const S extends number>(...statuses: S[]): { [K in S | 429]: typeof ErrorBody } {
  const out: Record<number, typeof ErrorBody> = { 429: ErrorBody };
  for (const s of statuses) out[s] = ErrorBody;
  return out as { [K in S | 429]: typeof ErrorBody };
}

/** Refusals of any route behind the auth macro (src/http/auth.ts). */
export const AUTH_ERRORS = [401, 403] as const;

/**
 * OpenAPI response objects for routes whose answers are documented but not validated by Elysia:
 * downloads and streams (a Response), and the agent routes, whose SPEC 4.8 wire shapes are
 * sent exactly as the services build them (their types are checked against these schemas).
 */
export function documented(responses: Record<number, { description: string; schema?: TSchema; type?: string }>) {
  const out: Record<string, { description: string; content?: Record<string, { schema: TSchema }> }> = {};
  for (const [status, r] of Object.entries(responses)) {
    out[status] = r.schema ? { description: r.description, content: { [r.type ?? 'application/json']: { schema: r.schema } } } : { description: r.description };
  }
  return out;
}

/** The documented refusals of a route documented with `documented`. */
export function documentedErrors(...statuses: number[]) {
  const out: Record<number, { description: string; schema: TSchema }> = {};
  for (const s of [...statuses, 429]) out[s] = { description: 'Error', schema: ErrorBody };
  return out;
}

/**
 * Like `documentedErrors`, each status described by the `error` codes it carries, so a client
 * reading the OpenAPI document knows which codes to expect where (SPEC 7.2 on /api/agent).
 * 429 is always included.
 */
export function codedErrors(codes: Record<number, string>) {
  const out: Record<number, { description: string; schema: TSchema }> = {};
  for (const [status, list] of Object.entries({ 429: 'rate_limited (Retry-After says when to retry)', ...codes })) {
    out[Number(status)] = { description: `Error: ${list}`, schema: ErrorBody };
  }
  return out;
}

/** A mock response as the API answers it: every field present. */
export const MockResponseBody = t.Object({
  status: t.Integer({ minimum: 200, maximum: 599 }),
  body: t.String(),
  headers: t.Record(t.String(), t.String()),
});

/**
 * A mock response as a client sets it: `body` and `headers` may be left out (an empty body, no
 * headers; services/endpoints.ts fills them in). Not schema defaults: Elysia merges those into
 * whatever body arrives, and drops them inside an object-or-null union anyway.
 */
export const MockResponseInput = t.Object({
  // TypeBox's Integer, not Elysia's, which also takes text and reads "4e2" as 400 and " 404 " as
  // 404: a number is asked for, as expiresIn asks (src/http/api/endpoints.ts).
  status: Type.Integer({ minimum: 200, maximum: 599 }),
  body: t.Optional(t.String({ description: 'Left out: an empty body' })),
  headers: t.Optional(t.Record(t.String(), t.String(), { description: 'Left out: no headers of its own. Kept, answered and sent in the order given' })),
});

export const EndpointBody = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  url: t.String(),
  createdAt: t.Integer(),
  mockResponse: t.Union([MockResponseBody, t.Null()]),
  notificationUrl: t.Union([t.String(), t.Null()]),
  notificationWarning: t.Optional(
    t.String({
      description:
        'Present only when notifications to notificationUrl will not be sent: its host is an IP literal or localhost on a loopback, private or other non-public address that OUTBOUND_ALLOW does not list (the URL is still saved, as SPEC 2.3 allows). Says the address and its class. A host name is judged at each send instead',
    }),
  ),
  signing: t.Union([t.Record(t.String(), t.Unknown(), { description: 'Signing config without its secret (secretHint shows the last 4 characters)' }), t.Null()]),
  notificationSigning: t.Union(
    [t.Object({ createdAt: t.Integer({ description: 'ms since epoch: when the current notification secret was made' }) }), t.Null()],
    { description: 'Whether notifications are signed (POST /api/endpoints/{slug}/notification-secret); never the secret itself. null: unsigned' },
  ),
  expiresAt: t.Union([t.Integer({ description: 'ms since epoch, as createdAt: from then on the endpoint and its captures are gone, as if deleted' }), t.Null()], {
    description: 'When the endpoint expires (set with expiresIn); null: never',
  }),
});

export const EndpointActivity = t.Object({
  slug: t.String(),
  count: t.Integer({ description: 'Captures the endpoint holds now: what its request list pages through (after Clear captures and retention)' }),
  lastReceivedAt: t.Union([t.Integer({ description: 'ms since epoch: receivedAt of its newest capture' }), t.Null()], { description: 'null: it holds none' }),
});

export const RequestRecord = CaptureRecord;

/**
 * `GET /api/requests/{id}`: the record plus where it was sent, so a client holding only a
 * request's id (a deep link) can name its endpoint without loading every endpoint list. Added
 * fields only: a client that reads the plain record still reads this one.
 */
export const RequestById = t.Composite([
  CaptureRecord,
  t.Object({
    endpointSlug: t.String({ description: 'The slug of the endpoint it was sent to (the `endpointId`\'s endpoint: own or shared with a team)' }),
    endpointUrl: t.String({ description: 'That endpoint\'s receiver URL (`{RECEIVER_URL}/w/{slug}`), without the captured path and query' }),
  }),
]);

export const RequestPage = t.Object({
  items: t.Array(CaptureRecord),
  cursor: t.Union([t.String(), t.Null()]),
  hasMore: t.Boolean(),
});

/** GET /api/endpoints/{slug}/position: a capture-id position of this moment (services/requests.ts positionNow). */
export const Position = t.Object({
  position: t.String({ description: 'A capture id below every capture received from this call on: pass it as `after`' }),
  at: t.Number({ description: 'The server time it stands for, ms since the epoch' }),
});

export const UserBody = t.Object({
  id: t.String(),
  email: t.String(),
  emailVerified: t.Boolean({
    description:
      'Whether the account\'s address was ever proven: by its sign-up verification link, a password reset, an agent\'s verified email or an identity assertion (docs/security.md, "Proving the address")',
  }),
});
export const EmailVerifyRequest = t.Object({
  token: t.String({ maxLength: 200, description: 'The `token` from the emailed link\'s fragment (`#token=evf_…`)' }),
});
export const EmailVerifyDone = t.Object({
  email: t.String({ description: 'The address now confirmed' }),
  emailVerified: t.Literal(true),
});
export const EmailVerifySent = t.Object({
  message: t.String(),
  email: t.String({ description: 'Where the link went: the account\'s address' }),
});
export const SessionBody = t.Object({ user: UserBody, token: t.String() });
export const Credentials = t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 1024 }) });
export const PasswordResetRequest = t.Object({ email: t.String({ maxLength: 254, description: 'The address of the account' }) });
export const PasswordResetAccepted = t.Object({ message: t.String({ description: 'The same sentence whether or not an account has this address' }) });
export const PasswordResetToken = t.Object({
  token: t.String({ maxLength: 200, description: 'The `token` from the emailed link\'s fragment (`#token=rst_…`)' }),
});
export const PasswordResetAccount = t.Object({ email: t.String({ description: 'The address of the account the token belongs to' }) });
export const PasswordResetDone = t.Object({
  user: t.Composite([t.Omit(UserBody, ['email']), t.Object({ email: t.String({ description: 'The account whose password was set: the new session is signed in as it' }) })]),
  token: t.String(),
  revokedApiKeys: t.Integer({ minimum: 0, description: 'API keys of the account revoked by this reset (0 when the account had no password before)' }),
});
export const PasswordResetConfirm = t.Object({
  token: t.String({ maxLength: 200, description: 'The `token` from the emailed link\'s fragment (`#token=rst_…`)' }),
  password: t.String({ maxLength: 1024, description: 'The new password: at least 8 characters' }),
});

export const PasswordChange = t.Object({
  currentPassword: t.String({ maxLength: 1024, description: "The account's password now" }),
  newPassword: t.String({ maxLength: 1024, description: 'The new password: at least 8 characters' }),
});
export const PasswordChanged = t.Object({
  signedOutSessions: t.Integer({ description: 'Other browser sessions of the account that were signed out (this one stays)' }),
});

export const ApiKeyBody = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String(),
  scopes: t.Array(t.String()),
  createdAt: t.Integer(),
});
export const NewApiKeyBody = t.Composite([ApiKeyBody, t.Object({ key: t.String() })]);

/**
 * A list's `limit`: text, read by the service (src/services/search-params.ts, parseLimit) as
 * search reads its own, so both take plain decimal digits only and refuse the rest in the same
 * words. A numeric schema would take `1e3`, ` 5` or `0x10`, which search refuses.
 */
const listLimit = (max: number) => t.Optional(t.String({ description: `Plain decimal digits, at least 1; at most ${max} are returned` }));
/** The plain list: a limit, and `pinned=true` for the pinned captures only (docs/retention.md). */
export const listQuery = (max: number) =>
  t.Object({
    limit: listLimit(max),
    pinned: t.Optional(t.String({ description: 'true: only pinned captures; false or absent: all' })),
  });
export const pageQuery = (max: number) => t.Object({ limit: listLimit(max), cursor: t.Optional(t.String()) });

/** `POST /api/endpoints/{slug}/notification-secret`: the new secret, shown this once. */
export const NotificationSecretBody = t.Object({
  secret: t.String({ description: 'Standard Webhooks secret: `whsec_` + base64 of 32 random bytes (the HMAC key). Shown only in this answer' }),
  createdAt: t.Integer({ description: 'ms since epoch' }),
});
