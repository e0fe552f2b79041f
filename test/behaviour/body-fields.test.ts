/**
 * A request is taken as sent or refused, never quietly changed (docs/api.md, "errors"):
 *
 * - a body field the route does not take is a 400 naming it, with the field it looks like
 *   (Elysia used to drop it: `expires_in` made an endpoint that never expires), while an update
 *   still takes back the whole object a GET showed (its read-only fields are ignored);
 * - a number is a number: `"4e2"` or `" 404 "` for a mock status is refused, as `"3600"` for
 *   expiresIn was (Elysia read the text as a number);
 * - a JSON route given a body that is not JSON answers 415, as the docs say;
 * - the plain request list refuses a cursor (a script paging it got page 1 forever) and, as search
 *   does, a parameter given twice.
 *
 * Each refusal leaves nothing made or changed.
 */
import { expect, test } from 'bun:test';
import { call, newAccount, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';

const ADMIN_TOKEN = 'adm_test_2d4f6a8c0e1b3d5f7a9c1e3b5d7f9a1c';

interface Endpoint extends ErrorFields {
  id: string;
  slug: string;
  name: string;
  url: string;
  createdAt: number;
  mockResponse: { status: number; body: string; headers: Record<string, string> } | null;
  expiresAt: number | null;
}

const refusal = (error: string) => ({ status: 400, body: { error, code: 'validation' } });
const seen = (r: { status: number; body: unknown }) => ({ status: r.status, body: r.body });

describeBackends(
  'request bodies and queries taken as sent or refused',
  (h) => {
    const names = async (key: string) => (await call<Endpoint[]>(h.url, 'GET', '/api/endpoints', { token: key })).body.map((e) => e.name).sort();

    test('create: a field it does not take is refused, naming the one it looks like; no endpoint is made', async () => {
      const a = await newAccount(h.url);
      const create = (body: unknown) => call<Endpoint>(h.url, 'POST', '/api/endpoints', { token: a.key, body });
      expect(seen(await create({ name: 'ci-run', expires_in: 3600 }))).toEqual(refusal('expires_in: is not a field of this request; did you mean expiresIn?'));
      expect(seen(await create({ name: 'ci-run', ExpiresIn: 3600 }))).toEqual(refusal('ExpiresIn: is not a field of this request; did you mean expiresIn?'));
      expect(seen(await create({ name: 'ci-run', ttl: 3600 }))).toEqual(refusal('ttl: is not a field of this request'));
      // A field of the endpoint as the API shows it is not something create takes either.
      expect(seen(await create({ name: 'ci-run', slug: 'mine' }))).toEqual(refusal('slug: is not a field of this request'));
      expect(await names(a.key)).toEqual([]);
      const made = await create({ name: 'ci-run', expiresIn: 3600 });
      expect(made.status).toBe(201);
      expect(made.body.expiresAt).toBeNumber();
    });

    test('send-test: a field it does not take (path) is refused, not sent without it', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<Endpoint>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'st' } })).body;
      const r = await call(h.url, 'POST', '/api/send-test', { token: a.key, body: { slug: ep.slug, path: '/orders' } });
      expect(seen(r)).toEqual(refusal('path: is not a field of this request'));
      expect((await call<unknown[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).body).toEqual([]);
    });

    test('update: the whole object a GET showed goes back with one field changed; a field of neither is refused', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<Endpoint>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'before' } })).body;
      const patch = (body: unknown) => call<Endpoint>(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body });
      expect((await patch({ mockResponse: { status: 201, body: 'ok', headers: { 'x-a': '1' } } })).status).toBe(200);
      const shown = (await call<Endpoint>(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body;
      const back = await patch({ ...shown, name: 'after' });
      expect(back.status).toBe(200);
      expect(back.body).toEqual({ ...shown, name: 'after' });

      expect(seen(await patch({ ...shown, name: 'again', expires_in: 60 }))).toEqual(refusal('expires_in: is not a field of this request; did you mean expiresIn?'));
      // expiresAt is read-only: the value shown goes back, an expiry written into it is refused,
      // not answered 200 with the endpoint living on.
      const readOnly = refusal('expiresAt: is read-only (when the endpoint expires); to change it send expiresIn, seconds from now (null: never)');
      expect(seen(await patch({ ...shown, name: 'again', expiresAt: Date.now() + 3_600_000 }))).toEqual(readOnly);
      expect(seen(await patch({ expiresAt: Date.now() + 3_600_000 }))).toEqual(readOnly);
      const renewed = await patch({ ...shown, expiresIn: 3600 });
      expect(renewed.status).toBe(200);
      expect(renewed.body.expiresAt).toBeNumber();
      expect((await patch({ ...renewed.body, expiresIn: null, name: 'after' })).body.expiresAt).toBeNull();
      // Inside a field's object too: `header` for `headers` was dropped, the mock answered without it.
      expect(seen(await patch({ mockResponse: { status: 202, header: { 'x-b': '2' } } }))).toEqual(refusal('mockResponse.header: is not a field of this request'));
      expect(seen(await patch({ mockResponse: { Status: 202 } }))).toEqual(refusal('mockResponse.Status: is not a field of this request; did you mean status?'));
      // A field of another signing shape (hmac's header) is not one of stripe's.
      expect(seen(await patch({ signing: { provider: 'stripe', secret: 'whsec_x', header: 'x-sig' } }))).toEqual(refusal('signing.header: is not a field of this request'));
      expect(seen(await patch({ signing: { provider: 'stripe', secret: 'whsec_x', tolerance_seconds: 60 } }))).toEqual(
        refusal('signing.tolerance_seconds: is not a field of this request; did you mean toleranceSeconds?'),
      );
      expect((await call<Endpoint>(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body).toEqual({ ...shown, name: 'after' });
    });

    test('a team goes back whole as GET showed it (role and subscription included); a field of neither is refused', async () => {
      const a = await newAccount(h.url);
      const team = (await call<{ id: string }>(h.url, 'POST', '/api/teams', { token: a.key, body: { name: 'Old' } })).body;
      const shown = (await call<Record<string, unknown>>(h.url, 'GET', `/api/teams/${team.id}`, { token: a.key })).body;
      const back = await call<{ name: string }>(h.url, 'PATCH', `/api/teams/${team.id}`, { token: a.key, body: { ...shown, name: 'New' } });
      expect(back.status).toBe(200);
      expect(back.body.name).toBe('New');
      const r = await call(h.url, 'PATCH', `/api/teams/${team.id}`, { token: a.key, body: { name: 'Newer', confirmed_members_only: true } });
      expect(seen(r)).toEqual(refusal('confirmed_members_only: is not a field of this request; did you mean confirmedMembersOnly?'));
      expect((await call<{ name: string }>(h.url, 'GET', `/api/teams/${team.id}`, { token: a.key })).body.name).toBe('New');
    });

    test('a mock status given as text is refused, as expiresIn given as text is; nothing is saved', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<Endpoint>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'num' } })).body;
      const patch = (body: unknown) => call<Endpoint>(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body });
      for (const status of ['4e2', ' 404 ', '404', '0x1f4']) {
        expect({ status, answer: seen(await patch({ mockResponse: { status } })) }).toEqual({ status, answer: refusal('mockResponse.status: must be an integer from 200 to 599') });
      }
      expect((await call<Endpoint>(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body.mockResponse).toBeNull();
      expect((await patch({ mockResponse: { status: 404 } })).body.mockResponse?.status).toBe(404);
    });

    test('a JSON route given a body that is not JSON answers 415, whatever the body says', async () => {
      const a = await newAccount(h.url);
      const post = (type: string, raw: string) => call(h.url, 'POST', '/api/endpoints', { token: a.key, headers: { 'content-type': type }, raw });
      const unsupported = { status: 415, body: { error: 'send the body as JSON (Content-Type: application/json)', code: 'unsupported_media_type' } };
      expect(seen(await post('text/plain', '{"name":"x"}'))).toEqual(unsupported);
      // curl -d's default: the JSON text became one form field's name, and "name: is required".
      expect(seen(await post('application/x-www-form-urlencoded', '{"name":"x"}'))).toEqual(unsupported);
      expect(seen(await post('text/plain', 'name=x'))).toEqual(unsupported);
      // Elysia reads no `+json` kind as JSON: it was "name: is required" too.
      expect(seen(await post('application/merge-patch+json', '{"name":"x"}'))).toEqual(unsupported);
      expect(await names(a.key)).toEqual([]);
      expect((await post('application/json; charset=utf-8', '{"name":"json"}')).status).toBe(201);
      expect((await post('application/json;charset=utf-8', '{"name":"json2"}')).status).toBe(201);
    });

    test('the plain list refuses a cursor and names the paged list; a parameter twice is refused on both lists', async () => {
      const a = await newAccount(h.url);
      const ep = (await call<Endpoint>(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'list' } })).body;
      const get = (path: string) => call(h.url, 'GET', path, { token: a.key });
      const list = `/api/endpoints/${ep.slug}/requests`;
      expect(seen(await get(`${list}?cursor=zzz`))).toEqual(
        refusal(`cursor: the plain list takes no cursor (it answers the newest captures only); page with GET /api/endpoints/${ep.slug}/requests/paginated, passing back the cursor each page returns`),
      );
      expect(seen(await get(`${list}?limit=1&limit=2`))).toEqual(refusal('limit: was given 2 times; give it once'));
      expect(seen(await get(`${list}?pinned=true&pinned=false`))).toEqual(refusal('pinned: was given 2 times; give it once'));
      expect(seen(await get(`${list}/paginated?limit=1&limit=2`))).toEqual(refusal('limit: was given 2 times; give it once'));
      expect(seen(await get(`${list}/paginated?cursor=a&cursor=b`))).toEqual(refusal('cursor: was given 2 times; give it once'));
      // As search says it.
      expect(seen(await get('/api/search/requests?limit=1&limit=2'))).toEqual(refusal('limit: was given 2 times; give it once'));
      expect((await get(`${list}?limit=1&pinned=false`)).status).toBe(200);
      expect((await get(`${list}/paginated?limit=1`)).status).toBe(200);
    });

    test('sign-up and sign-in ignore extra fields (other tools send a name there); routes with settings still refuse them', async () => {
      const email = `extras${Date.now()}${Math.random().toString(36).slice(2, 6)}@example.com`;
      const signup = await call<{ token: string }>(h.url, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery', name: 'Ada' } });
      expect(signup.status).toBe(201);
      const login = await call<{ token: string }>(h.url, 'POST', '/api/auth/login', { body: { email, password: 'correct horse battery', remember: true } });
      expect(login.status).toBe(200);
      expect(typeof login.body.token).toBe('string');
      // The same session on a route with settings: refused, as above.
      const made = await call(h.url, 'POST', '/api/endpoints', { token: login.body.token, body: { name: 'x', expires_in: 60 } });
      expect(made.status).toBe(400);
    });

    test('the operator API takes seats as a number only', async () => {
      const a = await newAccount(h.url);
      const team = (await call<{ id: string }>(h.url, 'POST', '/api/teams', { token: a.key, body: { name: 'Ops' } })).body;
      const put = (seats: unknown) =>
        call(h.url, 'PUT', `/admin/api/teams/${team.id}/subscription`, { headers: { authorization: `Bearer ${ADMIN_TOKEN}` }, body: { seats, status: 'active' } });
      expect(seen(await put('4e2'))).toEqual(refusal('seats: must be an integer from 0 to 100000'));
      expect(seen(await put(' 5 '))).toEqual(refusal('seats: must be an integer from 0 to 100000'));
      expect(seen(await put(5))).toMatchObject({ status: 200 });
    });
  },
  { ADMIN_TOKEN },
);
