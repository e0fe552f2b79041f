/**
 * A field that takes one of several shapes (an object or null, a named provider or `hmac`, an
 * integer or null) is refused in words that point at what is wrong, over real HTTP: the first
 * error inside the object the client sent, the discriminator's allowed values when it names none,
 * or what the field takes when the value is of no allowed kind (src/http/validation-message.ts).
 * TypeBox's own words for these were "signing: Property 'signing' should be one of: 'undefined',
 * 'null'", which tells a client sending a signing object to send null. Nothing is written.
 */
import { expect, test } from 'bun:test';
import { call, newAccount, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';

const ADMIN_TOKEN = 'adm_test_4b8e2c6a0d1f3e5a7c9b1d3f5a7c9e1b';
const PROVIDERS = "'stripe', 'github', 'shopify', 'slack', 'standard-webhooks', 'twilio', 'paddle', 'linear', 'square', 'hmac'";

describeBackends(
  'validation of fields with several shapes',
  (h) => {
    /** An account and an endpoint, and PATCH of it answering `{status, body}`. */
    async function endpoint() {
      const a = await newAccount(h.url);
      const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'shapes' } })).body;
      const patch = (body: unknown) => call<ErrorFields & { signing?: unknown; mockResponse?: unknown }>(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body });
      const stored = async () => {
        const got = (await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).body;
        return { name: got.name, mockResponse: got.mockResponse, notificationUrl: got.notificationUrl, signing: got.signing, expiresAt: got.expiresAt };
      };
      return { a, patch, stored };
    }

    /** Each body refused with exactly this message, a 400 `validation`, and the endpoint unchanged. */
    async function expectRefusals(cases: [unknown, string][]) {
      const { patch, stored } = await endpoint();
      const before = await stored();
      for (const [body, error] of cases) {
        const r = await patch(body);
        expect({ body, status: r.status, answer: r.body }).toEqual({ body, status: 400, answer: { error, code: 'validation' } });
      }
      expect(await stored()).toEqual(before);
    }

    test('signing: the provider picks the shape; its first error is named; an unknown provider lists the allowed ones', async () => {
      await expectRefusals([
        [{ signing: { provider: 'nope', secret: 'x' } }, `signing.provider: must be one of: ${PROVIDERS}`],
        [{ signing: { secret: 'x' } }, `signing.provider: must be one of: ${PROVIDERS}`],
        [{ signing: { provider: 'stripe' } }, 'signing.secret: is required'],
        [{ signing: { provider: 'stripe', secret: '' } }, 'signing.secret: must not be empty'],
        [{ signing: { provider: 'stripe', secret: 'x'.repeat(4097) } }, 'signing.secret: must be at most 4096 characters'],
        [{ signing: { provider: 'github', secret: 's', toleranceSeconds: 0 } }, 'signing.toleranceSeconds: must be an integer from 1 to 86400'],
        [{ signing: { provider: 'twilio', secret: 's', url: 'ftp://example.com/' } }, 'signing.url: must match ^https?://'],
        [{ signing: { provider: 'hmac', secret: 's', algorithm: 'md5', encoding: 'hex', header: 'x-sig' } }, "signing.algorithm: must be one of: 'sha1', 'sha256', 'sha512'"],
        [{ signing: { provider: 'hmac', secret: 's', algorithm: 'sha256', encoding: 'hex' } }, 'signing.header: is required'],
        [{ signing: { provider: 'hmac', secret: 's', algorithm: 'sha256', encoding: 'base32', header: 'x-sig' } }, "signing.encoding: must be one of: 'hex', 'base64'"],
        [{ signing: 'stripe' }, 'signing: must be an object or null'],
        [{ signing: [] }, 'signing: must be an object or null'],
      ]);
    });

    test('mockResponse: an object is checked as a mock response and its first error named; anything else is not an object or null', async () => {
      await expectRefusals([
        [{ mockResponse: { status: 99, body: '', headers: {} } }, 'mockResponse.status: must be an integer from 200 to 599'],
        [{ mockResponse: { status: 600, body: '', headers: {} } }, 'mockResponse.status: must be an integer from 200 to 599'],
        [{ mockResponse: { status: 'ok', body: '', headers: {} } }, 'mockResponse.status: must be an integer from 200 to 599'],
        [{ mockResponse: { status: 200, body: 5, headers: {} } }, 'mockResponse.body: must be a string'],
        [{ mockResponse: { status: 200, body: '', headers: { 'x-a': 5 } } }, 'mockResponse.headers.x-a: must be a string'],
        // body and headers may be left out (test/behaviour/endpoints.test.ts); the status may not.
        [{ mockResponse: { body: '', headers: {} } }, 'mockResponse.status: is required'],
        [{ mockResponse: 5 }, 'mockResponse: must be an object or null'],
        [{ mockResponse: 'teapot' }, 'mockResponse: must be an object or null'],
      ]);
    });

    test('notificationUrl and expiresIn: a value of the wrong kind says what the field takes; a wrong integer says its bounds', async () => {
      await expectRefusals([
        [{ notificationUrl: 5 }, 'notificationUrl: must be a string or null'],
        [{ notificationUrl: { href: 'https://example.com/' } }, 'notificationUrl: must be a string or null'],
        [{ expiresIn: '3600' }, 'expiresIn: must be an integer from 60 to 2592000 or null'],
        [{ expiresIn: 59 }, 'expiresIn: must be an integer from 60 to 2592000'],
        [{ expiresIn: 2_592_001 }, 'expiresIn: must be an integer from 60 to 2592000'],
      ]);
    });

    test('a field of one shape is worded from its schema the same way', async () => {
      await expectRefusals([
        [{ name: 'x'.repeat(201) }, 'name: must be at most 200 characters'],
        [{ name: 5 }, 'name: must be a string'],
      ]);
      const a = await newAccount(h.url);
      const create = (body: unknown) => call<ErrorFields>(h.url, 'POST', '/api/endpoints', { token: a.key, body });
      expect((await create({})).body).toEqual({ error: 'name: is required', code: 'validation' });
      expect((await create({ name: 'x', expiresIn: 59 })).body).toEqual({ error: 'expiresIn: must be an integer from 60 to 2592000', code: 'validation' });
      expect((await create({ name: 'x', expiresIn: null })).body).toEqual({ error: 'expiresIn: must be an integer from 60 to 2592000', code: 'validation' });
    });

    test('a valid value of each shape is still taken', async () => {
      const { patch } = await endpoint();
      const ok = await patch({
        signing: { provider: 'hmac', secret: 's3cret', algorithm: 'sha256', encoding: 'hex', header: 'x-sig' },
        mockResponse: { status: 202, body: 'ok', headers: {} },
        notificationUrl: null,
        expiresIn: 3600,
      });
      expect(ok.status).toBe(200);
      expect(ok.body.signing).toMatchObject({ provider: 'hmac', algorithm: 'sha256' });
      expect(ok.body.mockResponse).toEqual({ status: 202, body: 'ok', headers: {} });
      expect((await patch({ signing: null, mockResponse: null, expiresIn: null })).status).toBe(200);
    });

    test('a query number out of range or not a number is named with its bounds, on every list and search', async () => {
      const { a } = await endpoint();
      const [ep] = (await call(h.url, 'GET', '/api/endpoints', { token: a.key })).body;
      const limit = 'limit: must be an integer of at least 1 (at most 1000 are returned)';
      const offset = 'offset: must be an integer from 0 to 10000 (to go deeper, narrow the search with from and to)';
      const cases: [string, string][] = [];
      for (const path of [`/api/endpoints/${ep?.slug}/requests`, `/api/endpoints/${ep?.slug}/requests/paginated`, '/api/search/requests']) {
        // 0 and -1 were "must be a number of at least 1" on the lists: the field unnamed.
        for (const value of ['0', '-1', '1.5', 'many']) cases.push([`${path}?limit=${value}`, limit]);
        // Plain decimal digits only, on every route alike: the lists' numeric schema used to take
        // these (1e3 as 1000) where search refused them.
        for (const value of ['1e3', '1.0', ' 5', '5 ', '+5', '0x10', '１']) cases.push([`${path}?limit=${encodeURIComponent(value)}`, limit]);
      }
      // Checked before the endpoint is looked up, as search does: no hint whether it exists.
      cases.push(['/api/endpoints/doesnotexist/requests?limit=0', limit]);
      for (const value of ['-1', '10001']) cases.push([`/api/search/requests?offset=${value}`, offset]);
      for (const [path, error] of cases) {
        const r = await call<ErrorFields>(h.url, 'GET', path, { token: a.key });
        expect({ path, status: r.status, body: r.body }).toEqual({ path, status: 400, body: { error, code: 'validation' } });
      }
      // Above the cap is not refused: fewer are returned (docs/api.md, "list limits").
      expect((await call(h.url, 'GET', `/api/endpoints/${ep?.slug}/requests?limit=5000`, { token: a.key })).status).toBe(200);
      for (const path of [`/api/endpoints/${ep?.slug}/requests`, `/api/endpoints/${ep?.slug}/requests/paginated`, '/api/search/requests']) {
        for (const value of ['05', '']) expect({ path, value, status: (await call(h.url, 'GET', `${path}?limit=${value}`, { token: a.key })).status }).toEqual({ path, value, status: 200 });
      }
    });

    test('replay: a header is set (text) or removed (null); bodyEncoding lists its values', async () => {
      const { a } = await endpoint();
      const replay = (body: unknown) => call<ErrorFields>(h.url, 'POST', '/api/requests/req_doesnotmatter/replay', { token: a.key, body });
      expect((await replay({ url: 'https://example.com/', headers: { 'x-a': 5 } })).body).toEqual({ error: 'headers.x-a: must be a string or null', code: 'validation' });
      expect((await replay({ url: 'https://example.com/', bodyEncoding: 'hex' })).body).toEqual({ error: "bodyEncoding: must be one of: 'utf8', 'base64'", code: 'validation' });
    });

    test('operator API: a subscription status lists the allowed ones', async () => {
      const bad = await call(h.url, 'PUT', '/admin/api/teams/team_x/subscription', { body: { seats: 1, status: 'gold' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect({ status: bad.status, body: bad.body }).toEqual({ status: 400, body: { error: "status: must be one of: 'active', 'canceled'", code: 'validation' } });
      const seats = await call(h.url, 'PUT', '/admin/api/teams/team_x/subscription', { body: { seats: -1, status: 'active' }, headers: { authorization: `Bearer ${ADMIN_TOKEN}` } });
      expect(seats.body).toEqual({ error: 'seats: must be an integer from 0 to 100000', code: 'validation' });
    });
  },
  { ADMIN_TOKEN },
);
