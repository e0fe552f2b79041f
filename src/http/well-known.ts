/**
 * Discovery (SPEC 4.10): protected resource metadata (RFC 9728) and authorization server metadata
 * (RFC 8414), both built from BASE_URL so they name the host clients actually use.
 */
import { Elysia } from 'elysia';
import type { IdJagProvider } from '../auth/agent/providers';
import { ID_JAG_TOKEN_TYPE } from '../auth/agent/assertion';
import type { Config } from '../config';
import { POST_CLAIM_SCOPES } from '../services/agent/keys';

export function protectedResourceMetadata(config: Pick<Config, 'baseUrl'>) {
  const base = config.baseUrl;
  return {
    resource: `${base}/api/`,
    authorization_servers: [base],
    bearer_methods_supported: ['header'],
    scopes_supported: [...POST_CLAIM_SCOPES],
    resource_name: 'hookcap webhook capture API',
    resource_documentation: `${base}/docs`,
  };
}

/**
 * There is no OAuth authorization or token endpoint: keys come from the agent registration
 * endpoint, so the response and grant type lists are empty and the agent_* members say where
 * agents register, poll, verify codes and get claimed, and where identity providers revoke.
 */
export function authorizationServerMetadata(config: Pick<Config, 'baseUrl'>, providers: readonly IdJagProvider[]) {
  const base = config.baseUrl;
  const algs = [...new Set(providers.flatMap((p) => p.algs))];
  return {
    issuer: base,
    response_types_supported: [],
    grant_types_supported: [],
    scopes_supported: [...POST_CLAIM_SCOPES],
    service_documentation: `${base}/docs`,
    protected_resources: [`${base}/api/`],
    agent_registration_endpoint: `${base}/api/agent/auth`,
    agent_registration_types_supported: ['anonymous', 'verified_email', 'identity_assertion'],
    agent_credential_types_supported: ['api_key'],
    agent_poll_endpoint: `${base}/api/agent/auth/poll`,
    agent_otp_verification_endpoint: `${base}/api/agent/auth/claim/verify-otp`,
    agent_claim_endpoint: `${base}/api/agent/auth/claim/confirm`,
    agent_claim_page: `${base}/agent/claim`,
    agent_sandbox_endpoint: `${base}/api/agent/sandbox/endpoints`,
    agent_revocation_endpoint: `${base}/api/agent/auth/revoke`,
    identity_assertion_token_types_supported: [ID_JAG_TOKEN_TYPE],
    identity_assertion_signing_alg_values_supported: algs,
  };
}

const HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'public, max-age=300',
  // Metadata is public; browser-based agents may read it from any origin.
  'access-control-allow-origin': '*',
};

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: HEADERS });

export const wellKnownRoutes = (config: Config, providers: readonly IdJagProvider[]) => {
  const resource = protectedResourceMetadata(config);
  const server = authorizationServerMetadata(config, providers);
  const detail = { tags: ['discovery'] };
  return (
    new Elysia()
      .get('/.well-known/oauth-protected-resource', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      // RFC 9728 §3.1 puts the well-known segment before the resource path (`/api/`).
      .get('/.well-known/oauth-protected-resource/api', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      .get('/.well-known/oauth-protected-resource/api/', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      .get('/.well-known/oauth-authorization-server', () => json(server), { detail: { ...detail, summary: 'RFC 8414 metadata' } })
  );
};
