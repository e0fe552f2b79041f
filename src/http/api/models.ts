/** Response and body schemas shared by the API routes and the OpenAPI page. */
import { t } from 'elysia';
import { CaptureRecord } from '../../model/capture';

export const ErrorBody = t.Object({ error: t.String(), code: t.Optional(t.String()) });

export const MockResponseBody = t.Object({
  status: t.Integer({ minimum: 200, maximum: 599 }),
  body: t.String({ default: '' }),
  headers: t.Record(t.String(), t.String(), { default: {} }),
});

export const EndpointBody = t.Object({
  id: t.String(),
  slug: t.String(),
  name: t.String(),
  url: t.String(),
  createdAt: t.Integer(),
  mockResponse: t.Union([MockResponseBody, t.Null()]),
  notificationUrl: t.Union([t.String(), t.Null()]),
  signing: t.Union([t.Record(t.String(), t.Unknown(), { description: 'Signing config without its secret (secretHint shows the last 4 characters)' }), t.Null()]),
});

export const RequestRecord = CaptureRecord;

export const RequestPage = t.Object({
  items: t.Array(CaptureRecord),
  cursor: t.Union([t.String(), t.Null()]),
  hasMore: t.Boolean(),
});

export const UserBody = t.Object({ id: t.String(), email: t.String() });
export const SessionBody = t.Object({ user: UserBody, token: t.String() });
export const Credentials = t.Object({ email: t.String({ maxLength: 254 }), password: t.String({ maxLength: 1024 }) });

export const ApiKeyBody = t.Object({
  id: t.String(),
  name: t.String(),
  prefix: t.String(),
  scopes: t.Array(t.String()),
  createdAt: t.Integer(),
});
export const NewApiKeyBody = t.Composite([ApiKeyBody, t.Object({ key: t.String() })]);

export const LimitQuery = t.Object({ limit: t.Optional(t.Numeric({ minimum: 1 })) });
export const PageQuery = t.Object({ limit: t.Optional(t.Numeric({ minimum: 1 })), cursor: t.Optional(t.String()) });
