/**
 * Wire shapes of the agent routes (SPEC 4.8, 4.9), for the OpenAPI document. They are not given to
 * Elysia as response schemas: its response normalisation would rewrite what the services send, and
 * these answers are specified byte for byte. Instead, src/http/api/agent.ts types each handler's
 * answer with these schemas, so a service that drifts from its document fails the typecheck.
 */
import { t, type TSchema } from 'elysia';
import { CaptureRecord } from '../../model/capture';

const Iso = (description: string) => t.String({ description: `${description} (ISO 8601)` });
const Scopes = t.Array(t.String());

export const AnonymousRegistration = t.Object({
  registration_id: t.String(),
  registration_type: t.Literal('anonymous'),
  credential_type: t.Literal('api_key'),
  credential: t.String({ description: 'The unclaimed key (sandbox only until claimed)' }),
  credential_expires: t.Null(),
  scopes: Scopes,
  claim_url: t.String({ description: 'Where a signed-in person claims the key' }),
  claim_token: t.String(),
  user_code: t.String(),
  claim_token_expires: Iso('End of the claim window'),
  post_claim_scopes: Scopes,
});

export const EmailRegistration = t.Object({
  registration_id: t.String(),
  registration_type: t.Literal('email-verification'),
  claim_url: t.String({ description: 'The verify-otp route' }),
  claim_token: t.String(),
  claim_token_expires: Iso('End of the code window'),
  post_claim_scopes: Scopes,
});

export const AssertionRegistration = t.Object({
  credential_type: t.Literal('api_key'),
  credential: t.String(),
  credential_expires: t.Null(),
  scopes: Scopes,
});

export const AgentRegistration = t.Union([AnonymousRegistration, EmailRegistration, AssertionRegistration]);

const RegistrationType = t.Union([t.Literal('anonymous'), t.Literal('email-verification')]);

export const RegistrationStatus = t.Union([
  t.Object({
    registration_id: t.String(),
    registration_type: RegistrationType,
    status: t.Literal('pending'),
    claim_token_expires: Iso('End of the claim window'),
    user_code: t.Optional(t.String({ description: 'Anonymous registrations only' })),
  }),
  t.Object({
    registration_id: t.String(),
    registration_type: RegistrationType,
    status: t.Literal('claimed'),
    scopes: Scopes,
    claimed_at: Iso('When it was claimed'),
  }),
  t.Object({
    registration_id: t.String(),
    registration_type: RegistrationType,
    status: t.Literal('denied', { description: 'A person refused it: the key is revoked and its sandbox endpoints ended; register again' }),
    denied_at: Iso('When it was refused'),
  }),
]);

export const IssuedKey = t.Object({ credential_type: t.Literal('api_key'), credential: t.String({ description: 'Shown once' }), scopes: Scopes });

export const ClaimResult = t.Object({
  registration_id: t.String(),
  status: t.Literal('claimed'),
  client_name: t.String(),
  scopes: Scopes,
  endpoints_adopted: t.Integer({ description: 'Sandbox endpoints that became the account’s' }),
});

export const DenyResult = t.Object({
  registration_id: t.String(),
  status: t.Literal('denied'),
  client_name: t.String(),
  endpoints_ended: t.Integer({ description: 'Live sandbox endpoints of the key that ended with it' }),
});

export const RevokeResult = t.Object({ revoked: t.Integer({ description: 'Keys revoked' }) });

export const SandboxEndpoint = t.Object({
  url: t.String(),
  slug: t.String(),
  expiresAt: t.Integer({ description: 'ms since the epoch' }),
});

export const SandboxListing = t.Union([t.Array(SandboxEndpoint), t.Array(CaptureRecord)], {
  description: "The key's sandbox endpoints, or with ?slug= that endpoint's captured requests",
});

/*
 * Request bodies, for the OpenAPI document only: the routes read their bodies raw and check them
 * in src/services/agent/input.ts, so every refusal is a SPEC 7.2 code, never Elysia's message.
 */

const ClientName = t.String({ minLength: 1, maxLength: 100, description: 'Shown to the person who claims the key (one printable line)' });
const ClaimToken = t.String({ pattern: '^clm_', description: 'The claim_token of the registration (clm_…)' });

export const AnonymousRequest = t.Object({
  type: t.Literal('anonymous', { description: '`identity_type` is accepted as an alias' }),
  client_name: ClientName,
  requested_credential_type: t.Optional(t.Literal('api_key', { description: 'Anything else is unsupported_credential_type' })),
});

export const EmailRequest = t.Object({
  type: t.Literal('verified_email', { description: '`identity_type` is accepted as an alias' }),
  email: t.String({ description: 'A 6-digit code is mailed here; the key is bound to the account of this address' }),
  client_name: ClientName,
  requested_credential_type: t.Optional(t.Literal('api_key')),
});

const Jwt = (description: string) => t.String({ pattern: '^[A-Za-z0-9_-]+\\.[A-Za-z0-9_-]*\\.[A-Za-z0-9_-]*$', description });

/** OpenAPI request body objects, by media type. */
const requestBody = (content: Record<string, TSchema>, description?: string) => ({
  required: true,
  ...(description ? { description } : {}),
  content: Object.fromEntries(Object.entries(content).map(([type, schema]) => [type, { schema }])),
});

export const RegisterRequestDoc = requestBody(
  {
    'application/json': t.Union([AnonymousRequest, EmailRequest]),
    'application/jwt': Jwt('Identity assertion (ID-JAG): header typ oauth-id-jag+jwt; aud {base_url}/api/; iss, sub, jti, exp, iat, email, email_verified: true'),
  },
  'JSON with `type` anonymous or verified_email, or the signed identity assertion itself with Content-Type: application/jwt',
);

export const PollRequestDoc = requestBody({ 'application/json': t.Object({ claim_token: ClaimToken }) });

export const VerifyOtpRequestDoc = requestBody({
  'application/json': t.Object({ claim_token: ClaimToken, otp: t.String({ pattern: '^[0-9]{6}$', description: 'The 6-digit code from the mail' }) }),
});

export const ConfirmRequestDoc = requestBody(
  {
    'application/json': t.Union([
      t.Object({ claim_token: ClaimToken }),
      t.Object({ user_code: t.String({ description: 'XXXX-XXXX; case, spaces and dashes do not matter' }) }),
    ]),
  },
  'Exactly one of claim_token and user_code',
);

export const RevokeRequestDoc = requestBody({
  'application/logout+jwt': Jwt('OIDC Back-Channel Logout token: header typ logout+jwt; iss, aud, sub, jti, iat, exp, events'),
});

export const SandboxQueryDoc: { name: string; in: 'query'; required: false; schema: { type: 'string' | 'integer'; minimum?: number }; description: string }[] = [
  { name: 'slug', in: 'query', required: false, schema: { type: 'string' }, description: "One of this key's sandbox endpoints: list its captured requests (newest first) instead of the endpoints" },
  { name: 'limit', in: 'query', required: false, schema: { type: 'integer', minimum: 1 }, description: 'With slug: how many requests, in plain decimal digits (LIST_DEFAULT_LIMIT, at most LIST_MAX_LIMIT are returned)' },
];
