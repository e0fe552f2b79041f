import { expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV } from './agent-support';

const BASE = 'https://hooks.example.test';

describeBackends(
  'agent discovery',
  (h) => {
    test('protected resource metadata (RFC 9728) names {base_url}/api/, also under the RFC 9728 §3.1 path', async () => {
      const expected = {
        resource: `${BASE}/api/`,
        authorization_servers: [BASE],
        bearer_methods_supported: ['header'],
        scopes_supported: ['webhooks:read', 'webhooks:write'],
        resource_name: expect.any(String),
        resource_documentation: `${BASE}/docs`,
      };
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-protected-resource/api/']) {
        const r = await call(h.url, 'GET', path);
        expect(r.status).toBe(200);
        expect(r.headers.get('content-type')).toContain('application/json');
        expect(r.body).toEqual(expected);
      }
    });

    test('authorization server metadata (RFC 8414) says where agents register, and reflects BASE_URL', async () => {
      const r = await call<Record<string, unknown>>(h.url, 'GET', '/.well-known/oauth-authorization-server');
      expect(r.status).toBe(200);
      expect(r.body).toMatchObject({
        issuer: BASE,
        response_types_supported: [],
        scopes_supported: ['webhooks:read', 'webhooks:write'],
        agent_registration_endpoint: `${BASE}/api/agent/auth`,
        // No AGENT_IDJAG_PROVIDERS here: every assertion would be refused, so none is advertised.
        agent_registration_types_supported: ['anonymous', 'verified_email'],
        agent_poll_endpoint: `${BASE}/api/agent/auth/poll`,
        agent_otp_verification_endpoint: `${BASE}/api/agent/auth/claim/verify-otp`,
        agent_claim_endpoint: `${BASE}/api/agent/auth/claim/confirm`,
        agent_claim_page: `${BASE}/agent/claim`,
        agent_sandbox_endpoint: `${BASE}/api/agent/sandbox/endpoints`,
        // The route exists whatever is configured; only issuers' assertions need one.
        agent_revocation_endpoint: `${BASE}/api/agent/auth/revoke`,
      });
      const assertionMembers = Object.keys(r.body).filter((m) => m.startsWith('identity_assertion_'));
      expect(assertionMembers).toEqual([]);
      // Nor does /llms.txt offer it, nor the OpenAPI page's description.
      expect(await (await fetch(`${h.url}/llms.txt`)).text()).not.toContain('application/jwt');
      const openapi = (await call<{ info: { description: string } }>(h.url, 'GET', '/docs/json')).body;
      expect(openapi.info.description).toContain('verified_email');
      expect(openapi.info.description).not.toContain('identity assertion');
      // Every advertised URL is on the configured base, never on the host the request came to.
      expect(r.text).not.toContain('127.0.0.1');
    });

    test('docs/agents.md names every member of both metadata documents', async () => {
      const doc = readFileSync(join(import.meta.dir, '../../docs/agents.md'), 'utf8');
      for (const path of ['/.well-known/oauth-protected-resource', '/.well-known/oauth-authorization-server']) {
        const members = Object.keys((await call<Record<string, unknown>>(h.url, 'GET', path)).body);
        expect({ path, undocumented: members.filter((m) => !doc.includes(`\`${m}\``)) }).toEqual({ path, undocumented: [] });
      }
    });

    test('registrations use the configured base URL for their claim links', async () => {
      const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'links' } });
      expect(r.body.claim_url).toBe(`${BASE}/agent/claim?token=${r.body.claim_token}`);
    });
  },
  { ...AGENT_ENV, BASE_URL: BASE },
);
