/**
 * What the CLI says for the API's 404 and 405 (cli/errors.ts): a route the server does not have
 * means the address (or the server's version) is wrong, not the slug or id the user typed.
 */
import { describe, expect, test } from 'bun:test';
import { describeError } from '../../cli/errors';
import { HookcapError } from '../../client/index';

const API = 'http://localhost:3000';
const NOT_HOOKCAP = `${API} does not answer as a hookcap API`;

describe('describeError', () => {
  test("the server's 404 for a route it does not have says the address is wrong, in either wording", () => {
    for (const message of [
      'no route GET /api/v1/api/endpoints; the API is described at /docs (JSON at /docs/json)',
      // An --api-url with a path before /api: outside /api, the server's page miss.
      'no page GET /hookcap/api/endpoints; the dashboard is at /, the API at /api (described at /docs)',
      'not found',
    ]) {
      const said = describeError(new HookcapError(404, 'not_found', message), API);
      expect({ message, said: said.message, exitCode: said.exitCode }).toEqual({ message, said: NOT_HOOKCAP, exitCode: 1 });
      expect(said.hint).toContain('HOOKCAP_API_URL');
    }
  });

  test('a 404 for a slug or id is about the slug or id', () => {
    const said = describeError(new HookcapError(404, 'not_found', 'endpoint not found'), API);
    expect(said.message).toBe('endpoint not found');
    expect(said.hint).toStartWith('check the slug or id');
  });

  test("a 405 (the route, not the CLI's method) points at the server's version", () => {
    const message = 'no route PUT /api/endpoints: /api/endpoints answers GET, HEAD, POST; the API is described at /docs (JSON at /docs/json)';
    const said = describeError(new HookcapError(405, 'method_not_allowed', message), API);
    expect(said).toEqual({ message, hint: `the hookcap server at ${API} may be older than this CLI: upgrade it, or use a CLI of its version`, exitCode: 1 });
  });
});
