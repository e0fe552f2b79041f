/**
 * Discovery (SPEC 4.10): protected resource metadata (RFC 9728) and authorization server metadata
 * (RFC 8414), both built from BASE_URL so they name the host clients actually use.
 */
import { Elysia } from 'elysia';
import type { IdJagProvider } from '../auth/agent/providers';
import { ID_JAG_TOKEN_TYPE } from '../auth/agent/assertion';
import type { Config } from '../config';
import { POST_CLAIM_SCOPES } from '../services/agent/keys';
import { OTP_MAX_ATTEMPTS } from '../auth/agent/codes';
import { durationWords } from '../mail/duration-words';
import { AppError } from '../errors';
import { errorResponse } from './errors';

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
 * Identity assertions are advertised only when AGENT_IDJAG_PROVIDERS names at least one issuer
 * (without one every assertion is refused `invalid_issuer`): then the registration type, the
 * issuers an assertion may come from, their token type and algorithms.
 */
export function authorizationServerMetadata(config: Pick<Config, 'baseUrl'>, providers: readonly IdJagProvider[]) {
  const base = config.baseUrl;
  const common = {
    issuer: base,
    response_types_supported: [],
    grant_types_supported: [],
    scopes_supported: [...POST_CLAIM_SCOPES],
    service_documentation: `${base}/docs`,
    protected_resources: [`${base}/api/`],
    agent_registration_endpoint: `${base}/api/agent/auth`,
    agent_credential_types_supported: ['api_key'],
    agent_poll_endpoint: `${base}/api/agent/auth/poll`,
    agent_otp_verification_endpoint: `${base}/api/agent/auth/claim/verify-otp`,
    agent_claim_endpoint: `${base}/api/agent/auth/claim/confirm`,
    agent_claim_deny_endpoint: `${base}/api/agent/auth/claim/deny`,
    agent_claim_page: `${base}/agent/claim`,
    agent_sandbox_endpoint: `${base}/api/agent/sandbox/endpoints`,
    // Listed with or without an issuer: the route always exists (SPEC 4.8), and AGENT-AUTH asks
    // the document to say where revocation happens.
    agent_revocation_endpoint: `${base}/api/agent/auth/revoke`,
  };
  if (providers.length === 0) return { ...common, agent_registration_types_supported: ['anonymous', 'verified_email'] };
  return {
    ...common,
    agent_registration_types_supported: ['anonymous', 'verified_email', 'identity_assertion'],
    identity_assertion_issuers_supported: providers.map((p) => p.iss),
    identity_assertion_token_types_supported: [ID_JAG_TOKEN_TYPE],
    identity_assertion_signing_alg_values_supported: [...new Set(providers.flatMap((p) => p.algs))],
  };
}

/**
 * `/llms.txt` (the llmstxt.org convention): what the service is and how an agent gets a key, in
 * Markdown an LLM reads as is, with links to the machine-readable document. Every API route it
 * names is in /docs/json (tested). Built from BASE_URL like the metadata, and its limits from the
 * settings in force, so an agent plans within them instead of finding them by refusal.
 */
export function llmsTxt(config: Pick<Config, 'baseUrl' | 'receiverUrl' | 'agent'>, providers: readonly IdJagProvider[]): string {
  const base = config.baseUrl;
  const agent = config.agent;
  // Named only when an issuer is configured, as in the authorization server metadata.
  const assertion =
    providers.length === 0
      ? ''
      : `- POST /api/agent/auth with \`Content-Type: application/jwt\` and a signed identity assertion (ID-JAG) from a trusted provider (${providers.map((p) => p.iss).join(', ')}), with \`aud\` exactly ${base}/api/: the key at once.\n`;
  return `# hookcap

> hookcap captures webhooks: each endpoint has a URL (${config.receiverUrl}/w/<slug>) that records every request sent to it, and an API lists, searches, streams and replays what was captured. AI agents can get an API key themselves; a person then claims it into their account.

Every API call carries \`Authorization: Bearer <key>\` (keys start \`svc_\`). Errors of the agent routes are JSON \`{"error": "<code>", "error_description": "<words>"}\`. A \`429\` (\`rate_limited\`) carries \`Retry-After\`: wait that many seconds before trying again.

## Get a key (agents)

- POST /api/agent/auth with JSON \`{"type": "anonymous", "client_name": "<your name>"}\`: a key at once (sandbox only), a \`claim_url\` and a \`user_code\` to show your person, and a \`claim_token\`. The person has ${durationWords(agent.claimTtlMs)} to claim it (\`claim_token_expires\`).
- POST /api/agent/auth/poll with JSON \`{"claim_token": "clm_…"}\`, every few seconds: \`status\` is \`pending\`, then \`claimed\` (the key now uses the full API) or \`denied\` (the person refused; the key is revoked: register again). Unclaimed when the time is up, the poll answers \`410\` \`claim_expired\`: register again.
- POST /api/agent/auth with JSON \`{"type": "verified_email", "email": "…", "client_name": "…"}\`: a 6-digit code is mailed; then POST /api/agent/auth/claim/verify-otp with \`{"claim_token", "otp"}\` returns the key. The code works for ${durationWords(agent.otpTtlMs)} and ${OTP_MAX_ATTEMPTS} tries.
${assertion}- A person signed in at ${base}/agent/claim confirms or denies an anonymous registration; agents never call the confirm or deny routes.

## Sandbox (an unclaimed key)

- POST /api/agent/sandbox/endpoints: a capture-only endpoint (\`url\`, \`slug\`, \`expiresAt\` in ms since the epoch), no body. Send webhooks to its \`url\` (any method; a path and query after it are kept).
- GET /api/agent/sandbox/endpoints: this key's sandbox endpoints; with \`?slug=<slug>\` the requests it captured, newest first. There is no live stream in the sandbox: to wait for a webhook, poll this.
- Limits: at most ${agent.sandboxMaxEndpoints} live sandbox endpoints per key (one more is \`409\`), each lasting ${durationWords(agent.sandboxTtlMs)}; ${agent.sandboxMaxCaptures} captures a month per key, counted on each node that receives them (past it senders get \`429\`). No mock responses, notifications or signing.
- Sandbox endpoints cannot be deleted: each ends at its \`expiresAt\`. When a person claims the key they become endpoints of the account.

## Once claimed

- GET /api/endpoints, POST /api/endpoints with \`{"name": "…"}\`: the account's endpoints; each has a \`url\` to send webhooks to.
- GET /api/stream/{slug}: Server-Sent Events, one \`event: request\` per capture: the way to wait for a webhook.
- GET /api/endpoints/{slug}/requests: the captured requests, newest first; GET /api/requests/{id}: one of them.
- DELETE /api/endpoints/{slug}: the endpoint and its captures, when you are done.
- GET /api/auth/me: who the key belongs to. The key itself is deleted by its person, signed in (DELETE /api/api-keys takes a browser session).

## Docs

- [OpenAPI document](${base}/docs/json): every route, its body, its answers and error codes
- [API reference](${base}/docs): the same, as a page
- [Protected resource metadata](${base}/.well-known/oauth-protected-resource) (RFC 9728)
- [Authorization server metadata](${base}/.well-known/oauth-authorization-server) (RFC 8414): where agents register, poll and get claimed
`;
}

const HEADERS = {
  'content-type': 'application/json',
  'cache-control': 'public, max-age=300',
  // Metadata is public; browser-based agents may read it from any origin.
  'access-control-allow-origin': '*',
};

const json = (body: unknown) => new Response(JSON.stringify(body), { headers: HEADERS });

export const wellKnownRoutes = (config: Config, providers: readonly IdJagProvider[]) => {
  const llms = llmsTxt(config, providers);
  const resource = protectedResourceMetadata(config);
  const server = authorizationServerMetadata(config, providers);
  const detail = { tags: ['discovery'] };
  const apiRootHint = `no route at /api/, the API's base: every route is in the OpenAPI document, ${config.baseUrl}/docs/json (as a page: /docs). An AI agent without a key starts at ${config.baseUrl}/llms.txt or ${config.baseUrl}/.well-known/oauth-authorization-server`;
  return (
    new Elysia()
      .get('/.well-known/oauth-protected-resource', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      // RFC 9728 §3.1 puts the well-known segment before the resource path (`/api/`).
      .get('/.well-known/oauth-protected-resource/api', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      .get('/.well-known/oauth-protected-resource/api/', () => json(resource), { detail: { ...detail, summary: 'RFC 9728 metadata' } })
      .get('/.well-known/oauth-authorization-server', () => json(server), { detail: { ...detail, summary: 'RFC 8414 metadata' } })
      // The resource identifier (`resource` above) is where an agent may look first; it has no
      // route of its own, so its 404 says where the routes are rather than a bare "not found",
      // whatever the method (a POST there is no more a route than a GET).
      .all('/api', () => errorResponse(new AppError('not_found', apiRootHint)), { detail: { hide: true } })
      .all('/api/', () => errorResponse(new AppError('not_found', apiRootHint)), { detail: { hide: true } })
      // Public text that changes only with a deploy: cached like the metadata, no CORS (docs/agents.md).
      .get('/llms.txt', () => new Response(llms, { headers: { 'content-type': 'text/plain; charset=utf-8', 'cache-control': 'public, max-age=300' } }), {
        detail: { ...detail, summary: 'llms.txt: what hookcap is and how an agent gets a key (llmstxt.org)' },
      })
  );
};
