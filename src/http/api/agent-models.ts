/**
 * Wire shapes of the agent routes (SPEC 4.8, 4.9), for the OpenAPI document. They are not given to
 * Elysia as response schemas: its response normalisation would rewrite what the services send, and
 * these answers are specified byte for byte. Instead, src/http/api/agent.ts types each handler's
 * answer with these schemas, so a service that drifts from its document fails the typecheck.
 */
import { t } from 'elysia';
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
]);

export const IssuedKey = t.Object({ credential_type: t.Literal('api_key'), credential: t.String({ description: 'Shown once' }), scopes: Scopes });

export const ClaimResult = t.Object({
  registration_id: t.String(),
  status: t.Literal('claimed'),
  client_name: t.String(),
  scopes: Scopes,
  endpoints_adopted: t.Integer({ description: 'Sandbox endpoints that became the account’s' }),
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
