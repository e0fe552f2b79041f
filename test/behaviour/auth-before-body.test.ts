/**
 * SPEC 7.1: an authenticated route answers 401 to a caller without a valid credential before it
 * reads or validates anything, so a stranger learns nothing of its schema. The routes come from
 * the OpenAPI document: every /api operation not marked public (`security: []`) is checked, so a
 * route added later is covered without editing this file.
 */
import { expect, test } from 'bun:test';
import type { OpenApiDoc } from '../support/client';
import { describeBackends } from '../support/suite';

interface Operation {
  security?: unknown[];
}

const METHODS = ['get', 'post', 'put', 'patch', 'delete'] as const;

/** A body no route accepts: wrong types for every field a route could want, or not JSON at all. */
const BAD_BODIES = ['{"name":[1],"slug":{},"email":7,"endpointId":false,"url":null}', '{not json', '[]'];

async function authenticatedOperations(base: string): Promise<{ method: string; path: string }[]> {
  const doc = (await (await fetch(`${base}/docs/json`)).json()) as OpenApiDoc;
  const out: { method: string; path: string }[] = [];
  for (const [path, ops] of Object.entries(doc.paths)) {
    if (!path.startsWith('/api/')) continue;
    for (const method of METHODS) {
      const op = ops[method] as Operation | undefined;
      if (!op) continue;
      if (Array.isArray(op.security) && op.security.length === 0) continue;
      out.push({ method: method.toUpperCase(), path: path.replace(/\{[^}]+\}/g, 'x0000000000x') });
    }
  }
  return out;
}

describeBackends('authentication runs before body validation', (h) => {
  test('every authenticated /api route answers 401 without a credential, or with an invalid one, whatever the body', async () => {
    const ops = await authenticatedOperations(h.url);
    // The list is derived, not written out: make sure it is the real one.
    const names = ops.map((o) => `${o.method} ${o.path}`);
    expect(names).toContain('POST /api/endpoints');
    expect(names).toContain('POST /api/send-test');
    expect(names).toContain('GET /api/api-keys');
    expect(names).toContain('POST /api/agent/sandbox/endpoints');
    expect(names).not.toContain('POST /api/auth/login');
    expect(ops.length).toBeGreaterThan(30);

    const failures: string[] = [];
    for (const { method, path } of ops) {
      const credentials: Record<string, string>[] = [{}, { authorization: 'Bearer svc_not_a_real_key' }, { cookie: 'session=%ZZ' }];
      for (const auth of credentials) {
        const bodies = method === 'GET' || method === 'DELETE' ? [undefined] : BAD_BODIES;
        for (const body of bodies) {
          const r = await fetch(`${h.url}${path}`, {
            method,
            headers: { ...auth, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
            body,
          });
          const text = await r.text();
          if (r.status !== 401) failures.push(`${method} ${path} ${JSON.stringify(auth)} ${body ?? ''} -> ${r.status} ${text.slice(0, 120)}`);
          else if (!text.includes('"error"')) failures.push(`${method} ${path}: 401 without an error body`);
        }
      }
    }
    expect(failures).toEqual([]);
  });
});
