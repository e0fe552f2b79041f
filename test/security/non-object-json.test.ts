/**
 * Every JSON body the API takes is an object. Elysia merged a schema's defaults into whatever body
 * arrived and skipped an optional body that was not an object, so `"nope"`, `[]` or `5` passed as
 * `{}`: a PATCH that changed nothing answered 200, and POST /api/api-keys made a key. They are a
 * 400 now, and nothing is written (src/http/guards.ts).
 */
import { expect, test } from 'bun:test';
import { call, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';
import { accountWithEndpoint } from './support';

const NOT_OBJECTS: [raw: string, got: string][] = [
  ['"nope"', 'a string'],
  ['[]', 'an array'],
  ['[{"name":"x"}]', 'an array'],
  ['5', 'a number'],
  ['true', 'a boolean'],
  ['null', 'null'],
];
const JSON_HEADERS = { 'content-type': 'application/json' };

describeBackends('security: JSON bodies that are not objects', (h) => {
  test('are a 400 naming what came, on routes with and without required fields, and change nothing', async () => {
    const { account, endpoint } = await accountWithEndpoint(h.url);
    const keys = async () => (await call<{ id: string }[]>(h.url, 'GET', '/api/api-keys', { token: account.session })).body.map((k) => k.id);
    const keysBefore = await keys();
    const endpointBefore = (await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}`, { token: account.key })).body;
    for (const [raw, got] of NOT_OBJECTS) {
      for (const [method, path, token] of [
        ['PATCH', `/api/endpoints/${endpoint.slug}`, account.key],
        ['POST', '/api/endpoints', account.key],
        ['POST', '/api/api-keys', account.session],
      ] as const) {
        const r = await call<ErrorFields>(h.url, method, path, { token, raw, headers: JSON_HEADERS });
        expect({ raw, path, status: r.status, body: r.body }).toEqual({
          raw,
          path,
          status: 400,
          body: { error: `the request body must be a JSON object, got ${got}`, code: 'validation' },
        });
      }
    }
    expect(await keys()).toEqual(keysBefore);
    expect((await call(h.url, 'GET', `/api/endpoints/${endpoint.slug}`, { token: account.key })).body).toEqual(endpointBefore);
    const listed = (await call<{ slug: string }[]>(h.url, 'GET', '/api/endpoints', { token: account.key })).body;
    expect(listed.map((e) => e.slug)).toEqual([endpoint.slug]);
  });

  test('no body at all is still no body: a key is made without one, as the README shows', async () => {
    const { account } = await accountWithEndpoint(h.url);
    for (const headers of [{}, JSON_HEADERS]) {
      const r = await call<{ key: string }>(h.url, 'POST', '/api/api-keys', { token: account.session, headers });
      expect(r.status).toBe(201);
      expect(r.body.key).toStartWith('svc_');
    }
  });

  test('the agent API still reads its raw bodies itself and answers in its own shape', async () => {
    const r = await call<{ error: string; error_description: string }>(h.url, 'POST', '/api/agent/auth', { raw: '"nope"', headers: JSON_HEADERS });
    expect(r.status).toBe(400);
    expect(r.body.error).toBe('invalid_request');
    expect(r.body.error_description).not.toContain('must be a JSON object, got');
  });
});
