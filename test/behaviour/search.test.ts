import { beforeAll, describe, expect, test } from 'bun:test';
import { call, eventually, newAccount, type ErrorFields } from '../support/client';
import { describeBackends } from '../support/suite';

interface Rec {
  id: string;
  endpointId: string;
  method: string;
  path: string;
  receivedAt: number;
  body: string;
}

type Params = Record<string, string | number>;

const qs = (params: Params) => new URLSearchParams(Object.entries(params).map(([k, v]): [string, string] => [k, String(v)])).toString();
const ids = (recs: readonly Rec[]) => recs.map((r) => r.id);

// The cap is set just above the SPEC default (50) so that both can be seen with few captures.
const MAX_LIMIT = 52;
const MAX_OFFSET = 60;

describeBackends(
  'search and count (SPEC 4.2)',
  (h) => {
    const search = (token: string, params: Params = {}) => call<Rec[]>(h.url, 'GET', `/api/search/requests?${qs(params)}`, { token });
    const count = (token: string, params: Params = {}) =>
      call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?${qs(params)}`, { token });

    async function newEndpoint(token: string, name = 'search'): Promise<{ id: string; slug: string }> {
      const r = await call(h.url, 'POST', '/api/endpoints', { token, body: { name } });
      if (r.status !== 201) throw new Error(`endpoint: ${r.status} ${r.text}`);
      return r.body;
    }

    async function send(slug: string, path = '', init: RequestInit = {}): Promise<string> {
      const r = await fetch(`${h.url}/w/${slug}${path}`, { method: 'POST', ...init });
      if (r.status !== 200) throw new Error(`capture: ${r.status}`);
      return ((await r.json()) as { id: string }).id;
    }

    /** Waits until `n` captures are searchable for this caller. */
    async function shipped(token: string, n: number, params: Params = {}): Promise<void> {
      await eventually(async () => (await count(token, params)).body.count === n);
    }

    describe('one account, two endpoints, varied captures', () => {
      let key = '';
      let a = { id: '', slug: '' };
      let b = { id: '', slug: '' };
      let all: Rec[] = [];

      beforeAll(async () => {
        key = (await newAccount(h.url)).key;
        a = await newEndpoint(key, 'a');
        b = await newEndpoint(key, 'b');
        // Distinct milliseconds, so from/to can cut between captures.
        const sends: (() => Promise<string>)[] = [
          () => send(a.slug, '/orders/Paid', { body: JSON.stringify({ greeting: 'Hello World', n: 1 }), headers: { 'content-type': 'application/json' } }),
          () => send(a.slug, '/hooks', { method: 'PUT', body: 'plain text', headers: { 'x-custom': 'SuperSecretValue' } }),
          () => send(b.slug, '/cb?page=2&tag=red&tag=Blue', { method: 'GET', body: undefined }),
          () => send(b.slug, '', { body: `it's 100% a\\b_c "quoted"` }),
          () => send(a.slug, '/x', { method: 'PATCH', body: 'Grüße ÜBER alles' }),
          () => send(b.slug, '/last', { body: 'hello from b', headers: { 'x-header-name-only': '1' } }),
        ];
        for (const s of sends) {
          await s();
          await Bun.sleep(5);
        }
        await shipped(key, sends.length);
        all = (await search(key)).body;
      });

      test('without filters: every capture of every own endpoint, newest first, as list records', async () => {
        expect(all.length).toBe(6);
        const times = all.map((r) => r.receivedAt);
        expect(times).toEqual([...times].sort((x, y) => y - x));
        expect(new Set(all.map((r) => r.endpointId))).toEqual(new Set([a.id, b.id]));
        // Exactly the records the list call returns.
        const listed = [
          ...(await call<Rec[]>(h.url, 'GET', `/api/endpoints/${a.slug}/requests`, { token: key })).body,
          ...(await call<Rec[]>(h.url, 'GET', `/api/endpoints/${b.slug}/requests`, { token: key })).body,
        ];
        for (const rec of all) expect(rec).toEqual(listed.find((l) => l.id === rec.id) as Rec);
        expect((await count(key)).body).toEqual({ count: 6 });
      });

      test('slug narrows to one endpoint', async () => {
        const r = await search(key, { slug: b.slug });
        expect(r.status).toBe(200);
        expect(r.body.map((x) => x.path)).toEqual(['/last', '/', '/cb']);
        expect((await count(key, { slug: a.slug })).body.count).toBe(3);
      });

      test('method, any case', async () => {
        expect((await search(key, { method: 'put' })).body.map((x) => x.path)).toEqual(['/hooks']);
        expect((await search(key, { method: 'GET' })).body.map((x) => x.path)).toEqual(['/cb']);
        expect((await count(key, { method: 'patch' })).body.count).toBe(1);
        expect((await search(key, { method: 'DELETE' })).body).toEqual([]);
      });

      test('q: case-insensitive text in body, path, header values and query string', async () => {
        const paths = async (q: string, extra: Params = {}) => (await search(key, { q, ...extra })).body.map((x) => x.path);
        expect(await paths('hello WORLD')).toEqual(['/orders/Paid']);
        expect(await paths('HELLO')).toEqual(['/last', '/orders/Paid']);
        expect(await paths('orders/paid')).toEqual(['/orders/Paid']);
        expect(await paths('supersecret')).toEqual(['/hooks']);
        expect(await paths('page=2')).toEqual(['/cb']);
        expect(await paths('tag=blue')).toEqual(['/cb']);
        expect(await paths('grüße über')).toEqual(['/x']);
        // A whole header name matches, in any case; part of one does not.
        expect(await paths('X-Header-Name-Only')).toEqual(['/last']);
        expect(await paths('header-name')).toEqual([]);
        expect(await paths('hello', { slug: a.slug })).toEqual(['/orders/Paid']);
        expect((await count(key, { q: 'hello' })).body.count).toBe(2);
      });

      test('q with quotes, backslashes and wildcards is matched literally', async () => {
        for (const q of ["it's", '100%', 'a\\b_c', '"quoted"']) {
          expect((await search(key, { q })).body.map((x) => x.path)).toEqual(['/']);
        }
        expect((await search(key, { q: "'; DROP TABLE captures; --" })).body).toEqual([]);
        expect((await search(key, { q: '%' })).body.length).toBe(1);
        expect((await count(key)).body.count).toBe(6);
      });

      test('from and to: inclusive, as ms, ISO 8601 or a duration back from now', async () => {
        const asc = [...all].reverse();
        const [, second, third, fourth] = asc;
        if (!second || !third || !fourth) throw new Error('fixture');
        const window = await search(key, { from: second.receivedAt, to: fourth.receivedAt });
        expect(ids(window.body)).toEqual(ids([fourth, third, second]));
        const iso = await search(key, { from: new Date(second.receivedAt).toISOString(), to: new Date(fourth.receivedAt).toISOString() });
        expect(ids(iso.body)).toEqual(ids(window.body));
        expect((await count(key, { from: second.receivedAt, to: fourth.receivedAt })).body.count).toBe(3);
        expect((await search(key, { from: third.receivedAt })).body.length).toBe(4);
        expect((await search(key, { to: third.receivedAt })).body.length).toBe(3);
        // Everything was received in the last hour, and nothing before it.
        expect((await search(key, { from: '1h' })).body.length).toBe(6);
        expect((await count(key, { from: '2d', to: '1h' })).body.count).toBe(0);
        expect((await count(key, { to: '1w' })).body.count).toBe(0);
        expect((await count(key, { from: '1970-01-01', to: '1h' })).body.count).toBe(0);
        expect((await count(key, { from: '15m', to: String(Date.now() + 60_000) })).body.count).toBe(6);
      });

      test('order, limit and offset page through the results', async () => {
        const asc = await search(key, { order: 'asc' });
        expect(ids(asc.body)).toEqual(ids([...all].reverse()));
        expect(ids((await search(key, { limit: 2 })).body)).toEqual(ids(all.slice(0, 2)));
        expect(ids((await search(key, { limit: 2, offset: 2 })).body)).toEqual(ids(all.slice(2, 4)));
        expect(ids((await search(key, { limit: 4, offset: 3, order: 'asc' })).body)).toEqual(ids([...all].reverse().slice(3, 6)));
        expect((await search(key, { offset: 6 })).body).toEqual([]);
        expect(ids((await search(key, { order: 'desc', offset: 0 })).body)).toEqual(ids(all));
        // count ignores the paging parameters, even malformed ones.
        expect((await count(key, { limit: 1, offset: 3, order: 'sideways' })).body.count).toBe(6);
      });

      test('filters combine', async () => {
        const r = await search(key, { slug: a.slug, method: 'POST', q: 'world', from: '1h', order: 'asc', limit: 10 });
        expect(r.body.map((x) => x.path)).toEqual(['/orders/Paid']);
        expect((await count(key, { slug: b.slug, method: 'POST', q: 'HELLO' })).body.count).toBe(1);
      });
    });

    test('q finds captures by a header name they carry, and by their query as sent', async () => {
      const { key } = await newAccount(h.url);
      const ep = await newEndpoint(key);
      await send(ep.slug, '/github', { body: '{"ref":"main"}', headers: { 'X-GitHub-Event': 'push', 'content-type': 'application/json' } });
      await send(ep.slug, '/stripe', { body: '{"type":"invoice.paid"}', headers: { 'Stripe-Signature': 't=1,v1=ab', 'content-type': 'application/json' } });
      await send(ep.slug, '/signed?sig=a%20b&x=a+b&to=u%40example.com', { body: 'plain' });
      await shipped(key, 3);
      const paths = async (q: string) => (await search(key, { q, order: 'asc' })).body.map((x) => x.path);
      expect(await paths('x-github-event')).toEqual(['/github']);
      expect(await paths('STRIPE-SIGNATURE')).toEqual(['/stripe']);
      // Every capture carries a host header; a name's parts match nothing.
      expect(await paths('host')).toEqual(['/github', '/stripe', '/signed']);
      expect(await paths('github-event')).toEqual([]);
      expect(await paths('%20')).toEqual(['/signed']);
      expect(await paths('a+b')).toEqual(['/signed']);
      expect(await paths('sig=a%20b&x=a+b&to=u%40example.com')).toEqual(['/signed']);
      // The decoded parameters still match.
      expect(await paths('to=u@example.com')).toEqual(['/signed']);
      expect((await count(key, { q: 'x-github-event' })).body.count).toBe(1);
      expect((await count(key, { q: '%40EXAMPLE' })).body.count).toBe(1);
    });

    test('header filters: name:value, repeatable, in search, count and export', async () => {
      const { key } = await newAccount(h.url);
      const ep = await newEndpoint(key);
      const other = await newEndpoint(key, 'other');
      await send(ep.slug, '/push', { body: '{}', headers: { 'X-GitHub-Event': 'push', 'User-Agent': 'GitHub-Hookshot/0a1b' } });
      await Bun.sleep(5);
      // The name and "name: value" only as values elsewhere; a value with ':'; hostile characters.
      await send(ep.slug, '/note', { body: 'x-github-event: push', headers: { 'X-Note': 'X-GitHub-Event: push', 'X-Time': '12:30:00' } });
      await Bun.sleep(5);
      await send(other.slug, '/pr', { body: '{}', headers: { 'x-github-event': 'pull_request', 'x-quote': `it's "quoted" a\\b 100%_x`, 'x-lang': 'ÉTÉ' } });
      await shipped(key, 3);
      const paths = async (header: string[], extra: Params = {}) => {
        const query = new URLSearchParams(Object.entries(extra).map(([k, v]): [string, string] => [k, String(v)]));
        for (const one of header) query.append('header', one);
        query.set('order', 'asc');
        const found = await call<Rec[]>(h.url, 'GET', `/api/search/requests?${query}`, { token: key });
        expect(found.status).toBe(200);
        const counted = await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?${query}`, { token: key });
        expect(counted.body.count).toBe(found.body.length);
        return found.body.map((x) => x.path);
      };
      expect(await paths(['x-github-event:push'])).toEqual(['/push']);
      expect(await paths(['X-GITHUB-EVENT: PUSH'])).toEqual(['/push']);
      expect(await paths(['x-github-event'])).toEqual(['/push', '/pr']);
      expect(await paths(['x-github-event:'])).toEqual(['/push', '/pr']);
      expect(await paths(['github-event'])).toEqual([]);
      expect(await paths(['x-note:x-github-event: push'])).toEqual(['/note']);
      expect(await paths(['x-time:12:30'])).toEqual(['/note']);
      for (const value of ["it's", '"quoted"', 'a\\b', '100%_x']) expect(await paths([`x-quote:${value}`])).toEqual(['/pr']);
      expect(await paths(['x-github-event:%'])).toEqual([]);
      expect(await paths(['x-github-event:_'])).toEqual(['/pr']);
      expect(await paths(['x-lang:été'])).toEqual(['/pr']);
      expect(await paths(['x-github-event:push', 'user-agent:hookshot'])).toEqual(['/push']);
      expect(await paths(['x-github-event:push', 'x-note'])).toEqual([]);
      expect(await paths(['x-github-event'], { q: 'quoted' })).toEqual(['/pr']);
      expect(await paths(['x-github-event'], { slug: ep.slug })).toEqual(['/push']);
      expect(await paths([''])).toEqual(['/push', '/note', '/pr']);
      // The free text still looks for "name: value" as text.
      expect((await search(key, { q: 'x-github-event: push', order: 'asc' })).body.map((x) => x.path)).toEqual(['/note']);
      const exported = await fetch(`${h.url}/api/endpoints/${ep.slug}/requests/export?format=ndjson&header=x-github-event%3Apush`, {
        headers: { authorization: `Bearer ${key}` },
      });
      expect(exported.status).toBe(200);
      expect((await exported.text()).trim().split('\n').map((line) => (JSON.parse(line) as Rec).path)).toEqual(['/push']);
    });

    test('limit defaults to 50 and is capped; offset is bounded', async () => {
      const { key } = await newAccount(h.url);
      const ep = await newEndpoint(key);
      await Promise.all(Array.from({ length: 55 }, (_, i) => send(ep.slug, `/n/${i}`)));
      await shipped(key, 55);
      expect((await search(key)).body.length).toBe(50);
      expect((await search(key, { limit: 1000 })).body.length).toBe(MAX_LIMIT);
      expect((await search(key, { limit: MAX_LIMIT - 1 })).body.length).toBe(MAX_LIMIT - 1);
      expect((await search(key, { offset: MAX_OFFSET })).body).toEqual([]);
      const deep = await search(key, { offset: MAX_OFFSET + 1 });
      expect(deep.status).toBe(400);
      expect(deep.body).toMatchObject({ code: 'validation' });
      expect(String((deep.body as unknown as { error: string }).error)).toStartWith('offset');
    });

    test('bad values are a 400 naming the parameter, before any lookup', async () => {
      const { key } = await newAccount(h.url);
      const cases: [Params, string][] = [
        [{ order: 'up' }, 'order'],
        [{ order: 'ASC' }, 'order'],
        [{ limit: -1 }, 'limit'],
        [{ limit: 0 }, 'limit'],
        [{ limit: 'ten' }, 'limit'],
        [{ offset: -3 }, 'offset'],
        [{ offset: '1.5' }, 'offset'],
        [{ from: 'yesterday' }, 'from'],
        [{ to: '2024-02-30T00:00:00Z' }, 'to'],
        [{ from: '15M' }, 'from'],
        [{ from: '1h', to: '2h' }, 'from'],
        [{ from: '2024-03-11', to: '2024-03-10' }, 'from'],
        [{ method: 'GET POST' }, 'method'],
        [{ q: 'x'.repeat(257) }, 'q'],
        [{ header: 'x a:b' }, 'header'],
        [{ header: ':push' }, 'header'],
        [{ header: `x-a:${'v'.repeat(257)}` }, 'header'],
        // Checked before the slug is looked up: no hint whether it exists.
        [{ slug: 'doesnotexist', order: 'x' }, 'order'],
      ];
      for (const [params, name] of cases) {
        const r = await search(key, params);
        expect(r.status).toBe(400);
        const body = r.body as unknown as { error: string; code: string };
        expect(body.code).toBe('validation');
        // The service-wide form, `field: what is wrong` (src/schema-words.ts).
        expect(body.error).toStartWith(`${name}: `);
      }
      for (const [params, name] of cases.filter(([p]) => p.from !== undefined || p.to !== undefined || p.method || p.q || p.header)) {
        const r = await count(key, params);
        expect(r.status).toBe(400);
        expect((r.body as unknown as { error: string }).error).toStartWith(`${name}: `);
      }
    });

    test('a parameter given twice is a 400 naming it', async () => {
      const { key } = await newAccount(h.url);
      for (const path of ['/api/search/requests?order=asc&order=desc', '/api/search/requests/count?q=a&q=b']) {
        const r = await call<ErrorFields>(h.url, 'GET', path, { token: key });
        expect(r.status).toBe(400);
        expect(String(r.body.error)).toMatch(/^(order|q): was given 2 times/);
      }
      // header is the exception: each is one more filter, up to a bound.
      const twice = await call<{ count: number }>(h.url, 'GET', '/api/search/requests/count?header=x-a&header=x-b', { token: key });
      expect(twice.status).toBe(200);
      const many = Array.from({ length: 9 }, (_, i) => `header=x-${i}`).join('&');
      const r = await call<ErrorFields>(h.url, 'GET', `/api/search/requests?${many}`, { token: key });
      expect(r.status).toBe(400);
      expect(String(r.body.error)).toStartWith('header: may be given at most 8 times');
    });

    test('another account never sees these captures, by search, count or slug', async () => {
      const owner = await newAccount(h.url);
      const ep = await newEndpoint(owner.key);
      await send(ep.slug, '/private', { body: 'owner-only-secret-4711' });
      await shipped(owner.key, 1);

      const other = await newAccount(h.url);
      const mine = await newEndpoint(other.key);
      await send(mine.slug, '/mine', { body: 'mine' });
      await shipped(other.key, 1);

      expect((await search(other.key)).body.map((r) => r.path)).toEqual(['/mine']);
      expect((await search(other.key, { q: 'owner-only-secret-4711' })).body).toEqual([]);
      expect((await count(other.key, { q: 'owner-only-secret' })).body.count).toBe(0);
      for (const r of [await search(other.key, { slug: ep.slug }), await count(other.key, { slug: ep.slug })]) {
        expect(r.status).toBe(404);
        expect(r.body).toMatchObject({ code: 'not_found' });
      }
      // Unknown and not-yours look the same.
      const unknown = await search(other.key, { slug: 'zzzzzzzzzzzz' });
      expect(unknown.status).toBe(404);
      expect(unknown.body).toEqual((await search(other.key, { slug: ep.slug })).body);
      // The owner still sees it.
      expect((await search(owner.key, { q: 'OWNER-ONLY' })).body.map((r) => r.path)).toEqual(['/private']);
    });

    test('an account with no endpoints finds nothing', async () => {
      const { key } = await newAccount(h.url);
      expect((await search(key, { q: 'anything' })).body).toEqual([]);
      expect((await count(key)).body).toEqual({ count: 0 });
    });

    test('cleared captures are not found; later ones are', async () => {
      const { key } = await newAccount(h.url);
      const ep = await newEndpoint(key);
      const kept = await newEndpoint(key);
      await send(ep.slug, '/old', { body: 'needle' });
      await send(kept.slug, '/other', { body: 'needle' });
      await shipped(key, 2);
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: key })).status).toBe(204);
      expect((await search(key, { q: 'needle' })).body.map((r) => r.path)).toEqual(['/other']);
      expect((await count(key, { slug: ep.slug })).body.count).toBe(0);
      await send(ep.slug, '/new', { body: 'needle' });
      await shipped(key, 2, { q: 'needle' });
      expect((await search(key, { q: 'needle' })).body.map((r) => r.path).sort()).toEqual(['/new', '/other']);
    });

    test('a deleted endpoint disappears from search at once', async () => {
      const { key } = await newAccount(h.url);
      const ep = await newEndpoint(key);
      await send(ep.slug, '/gone', { body: 'soon gone' });
      await shipped(key, 1);
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}`, { token: key })).status).toBe(204);
      expect((await search(key)).body).toEqual([]);
      expect((await count(key, { q: 'soon gone' })).body.count).toBe(0);
      expect((await search(key, { slug: ep.slug })).status).toBe(404);
    });

    test('no key is a 401', async () => {
      expect((await call(h.url, 'GET', '/api/search/requests')).status).toBe(401);
      expect((await call(h.url, 'GET', '/api/search/requests/count')).status).toBe(401);
    });
  },
  { SEARCH_MAX_LIMIT: String(MAX_LIMIT), SEARCH_MAX_OFFSET: String(MAX_OFFSET) },
);
