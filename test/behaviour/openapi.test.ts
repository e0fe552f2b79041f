/**
 * The OpenAPI document (/docs/json) describes every /api route's answers: its success status with
 * the body's schema (a 204 with none), and its refusals with the shared error schema (SPEC 7).
 */
import { expect, test } from 'bun:test';
import { describeBackends } from '../support/suite';

interface MediaType {
  schema?: { type?: string; properties?: Record<string, unknown>; required?: string[]; anyOf?: unknown[] };
}
interface ResponseObject {
  description?: string;
  content?: Record<string, MediaType>;
}
interface Operation {
  responses?: Record<string, ResponseObject>;
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

describeBackends('OpenAPI document', (h) => {
  test('every /api route documents its success body and status and its errors with the shared error schema', async () => {
    const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    const problems: string[] = [];
    let routes = 0;
    for (const [path, ops] of Object.entries(doc.paths)) {
      if (!path.startsWith('/api/')) continue;
      for (const method of METHODS) {
        const op = ops[method];
        if (!op) continue;
        routes++;
        const name = `${method.toUpperCase()} ${path}`;
        const responses = op.responses ?? {};
        const success = Object.keys(responses).filter((s) => /^2\d\d$/.test(s));
        if (success.length === 0) problems.push(`${name}: no success response`);
        for (const status of success) {
          const r = responses[status];
          const schemas = Object.values(r?.content ?? {}).filter((m) => m.schema);
          if (status === '204') {
            if (schemas.length > 0) problems.push(`${name}: a 204 with a body schema`);
          } else if (schemas.length === 0) {
            problems.push(`${name}: ${status} without a body schema`);
          }
        }
        const errors = Object.keys(responses).filter((s) => /^[45]\d\d$/.test(s));
        if (!errors.some((s) => s.startsWith('4'))) problems.push(`${name}: no error responses`);
        for (const status of errors) {
          const schema = responses[status]?.content?.['application/json']?.schema;
          if (!schema?.properties?.error || !schema.required?.includes('error')) {
            problems.push(`${name}: ${status} is not the shared error schema`);
          }
        }
      }
    }
    expect(problems).toEqual([]);
    expect(routes).toBeGreaterThan(40);
    // The agent routes are in it too, and deletions say 204.
    const post = (p: string) => doc.paths[p]?.post?.responses ?? {};
    expect(Object.keys(post('/api/agent/auth'))).toContain('201');
    expect(Object.keys(doc.paths['/api/endpoints/{slug}']?.delete?.responses ?? {})).toContain('204');
    expect(Object.keys(post('/api/endpoints'))).toEqual(expect.arrayContaining(['201', '400', '401']));
    // One request by id: the record plus the endpoint it was sent to (a deep link needs nothing else).
    const one = doc.paths['/api/requests/{id}']?.get?.responses?.['200']?.content?.['application/json']?.schema;
    expect(Object.keys(one?.properties ?? {})).toEqual(expect.arrayContaining(['id', 'endpointId', 'body', 'endpointSlug', 'endpointUrl']));
    expect(one?.required).toEqual(expect.arrayContaining(['endpointSlug', 'endpointUrl']));
    // The endpoint object: notificationWarning is documented, and optional (absent unless there is one).
    const endpoint = doc.paths['/api/endpoints/{slug}']?.patch?.responses?.['200']?.content?.['application/json']?.schema;
    const warning = endpoint?.properties?.notificationWarning as { type?: string; description?: string } | undefined;
    expect([warning?.type, warning?.description?.includes('OUTBOUND_ALLOW')]).toEqual(['string', true]);
    expect(endpoint?.required).toContain('notificationUrl');
    expect(endpoint?.required).not.toContain('notificationWarning');
  });

  test('the teams and invites routes document every refusal docs/teams.md lists', async () => {
    const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, Operation>> };
    // docs/teams.md "Who may do what", plus 401 and 403 (credentials) everywhere.
    const listed: [string, string, number[]][] = [
      ['post', '/api/teams', [400, 409]],
      ['get', '/api/teams/{teamId}', [404]],
      ['patch', '/api/teams/{teamId}', [400, 403, 404]],
      ['delete', '/api/teams/{teamId}', [403, 404]],
      ['get', '/api/teams/{teamId}/members', [404]],
      ['delete', '/api/teams/{teamId}/members/{userId}', [403, 404, 409]],
      ['post', '/api/teams/{teamId}/leave', [404, 409]],
      ['post', '/api/teams/{teamId}/invite', [400, 402, 403, 404, 409, 503]],
      ['delete', '/api/teams/{teamId}/invites/{inviteId}', [403, 404]],
      ['get', '/api/teams/{teamId}/endpoints', [404]],
      ['post', '/api/teams/{teamId}/endpoints', [400, 402, 404]],
      ['delete', '/api/teams/{teamId}/endpoints/{endpointId}', [403, 404]],
      ['post', '/api/invites/{inviteId}/accept', [402, 404, 409]],
      ['post', '/api/invites/{inviteId}/decline', [404, 409]],
    ];
    const missing: string[] = [];
    for (const [method, path, statuses] of listed) {
      const documented = Object.keys(doc.paths[path]?.[method]?.responses ?? {});
      for (const status of [401, 403, ...statuses]) if (!documented.includes(String(status))) missing.push(`${method.toUpperCase()} ${path}: ${status}`);
    }
    expect(missing).toEqual([]);
  });

  test('a 204 route answers 204 with no body, as documented', async () => {
    const signup = await fetch(`${h.url}/api/auth/signup`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email: `openapi-${crypto.randomUUID()}@example.com`, password: 'a long enough password' }),
    });
    const { token } = (await signup.json()) as { token: string };
    const auth = { authorization: `Bearer ${token}`, 'content-type': 'application/json' };
    const ep = (await (await fetch(`${h.url}/api/endpoints`, { method: 'POST', headers: auth, body: '{"name":"x"}' })).json()) as { slug: string };
    const del = await fetch(`${h.url}/api/endpoints/${ep.slug}`, { method: 'DELETE', headers: { authorization: auth.authorization } });
    expect(del.status).toBe(204);
    expect(await del.text()).toBe('');
    const out = await fetch(`${h.url}/api/auth/logout`, { method: 'POST', headers: { authorization: auth.authorization } });
    expect(out.status).toBe(204);
    expect(await out.text()).toBe('');
  });
});

describeBackends('OpenAPI document: search parameters', (h) => {
  test('search, count and export document header (name:value, repeatable)', async () => {
    type Param = { name: string; in: string; description?: string; schema?: { description?: string } };
    const doc = (await (await fetch(`${h.url}/docs/json`)).json()) as { paths: Record<string, Record<string, { parameters?: Param[] }>> };
    for (const path of ['/api/search/requests', '/api/search/requests/count', '/api/endpoints/{slug}/requests/export']) {
      const header = doc.paths[path]?.get?.parameters?.find((p) => p.name === 'header' && p.in === 'query');
      expect(`${header?.description ?? ''} ${header?.schema?.description ?? ''}`, path).toContain('name:value');
    }
    // pinned=true is read by search and count (docs/retention.md, docs/search.md), so it is documented there.
    for (const path of ['/api/search/requests', '/api/search/requests/count', '/api/endpoints/{slug}/requests']) {
      expect(doc.paths[path]?.get?.parameters?.some((p) => p.name === 'pinned' && p.in === 'query'), `${path}: pinned`).toBe(true);
    }
  });
});
