/**
 * The answered status on every capture, one capture exported (cURL, HAR, raw), an endpoint's
 * captures exported (HAR, NDJSON) with the search filters, and server-side replay through the
 * outbound guard. Same visibility as the list calls: team shares yes, cleared or foreign never.
 */
import { afterAll, expect, test } from 'bun:test';
import { har as validateHar } from 'har-validator';
import type { Capture } from '../../src/model/capture';
import { bodyBytes } from '../../src/model/render';

/** The parts of a HAR export these tests read (har-validator checks the whole document). */
interface Har {
  log: { entries: { request: { url: string; postData: { _encoding?: string; text: string } }; response: { status: number }; _hookcap: { id: string } }[] };
}
import { call, eventually, newAccount } from '../support/client';
import { startHookReceiver } from '../support/hook-receiver';
import { freePort } from '../support/server';
import { describeBackends } from '../support/suite';
import { joinTeam, paidTeam, TEAMS_ENV } from './teams-support';

const target = startHookReceiver();
afterAll(() => target.stop());

const BINARY = new Uint8Array([0x00, 0xff, 0x27, 0x25, 0x5c, 0x0a, 0x80, 0xc3, 0x28, 0x41]);

describeBackends(
  'exports and replay',
  (h) => {
    async function endpoint(token: string, name = 'exp') {
      const r = await call(h.url, 'POST', '/api/endpoints', { token, body: { name } });
      expect(r.status).toBe(201);
      return r.body as { id: string; slug: string; url: string };
    }

    async function send(slug: string, path: string, init: RequestInit = {}): Promise<string> {
      const r = await fetch(`${h.url}/w/${slug}${path}`, { method: 'POST', ...init });
      const id = r.headers.get('x-request-id');
      if (!id) throw new Error(`no capture: ${r.status}`);
      return id;
    }

    async function record(key: string, id: string): Promise<Capture> {
      return eventually(async () => {
        const r = await call<Capture>(h.url, 'GET', `/api/requests/${id}`, { token: key });
        return r.status === 200 ? r.body : null;
      });
    }

    const get = (path: string, key: string) => fetch(`${h.url}${path}`, { headers: { authorization: `Bearer ${key}` } });

    test('responseStatus: 200 by default, the mock status when one is set, in get, list and search', async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const plain = await send(ep.slug, '/a');
      const patched = await call(h.url, 'PATCH', `/api/endpoints/${ep.slug}`, { token: a.key, body: { mockResponse: { status: 418, body: 'teapot', headers: {} } } });
      expect(patched.status).toBe(200);
      const mocked = await eventually(async () => {
        const r = await fetch(`${h.url}/w/${ep.slug}/b`, { method: 'POST' });
        return r.status === 418 ? r.headers.get('x-request-id') : null;
      });
      expect((await record(a.key, plain)).responseStatus).toBe(200);
      expect((await record(a.key, mocked)).responseStatus).toBe(418);
      const list = await call<Capture[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
      expect(list.body.find((c) => c.id === mocked)?.responseStatus).toBe(418);
      const found = await call<Capture[]>(h.url, 'GET', `/api/search/requests?slug=${ep.slug}&q=%2Fb`, { token: a.key });
      expect(found.body.map((c) => c.responseStatus)).toEqual([418]);
    });

    test('one capture as cURL: running the command captures the same request again, binary body included', async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const id = await send(ep.slug, '/hooks/in?x=1&tag=a&tag=b', { body: BINARY, headers: { 'content-type': 'application/octet-stream', 'x-sig': "it's 100%" } });
      const original = await record(a.key, id);
      const r = await get(`/api/requests/${id}/export?format=curl`, a.key);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toStartWith('text/plain');
      expect(r.headers.get('content-disposition')).toBe(`attachment; filename="${id}.sh"`);
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
      const command = await r.text();
      expect(command).toContain('--data-binary @-');
      const run = Bun.spawn(['sh', '-c', `${command.trim()} -s -o /dev/null -w '%{http_code}'`], { stdout: 'pipe', stderr: 'pipe' });
      expect(await new Response(run.stdout).text()).toBe('200');
      const again = await eventually(async () => {
        const list = await call<Capture[]>(h.url, 'GET', `/api/endpoints/${ep.slug}/requests`, { token: a.key });
        return list.body.length === 2 ? list.body[0] : null;
      });
      expect(again.id).not.toBe(id);
      expect(again.method).toBe(original.method);
      expect(again.path).toBe(original.path);
      expect(again.queryParams).toEqual(original.queryParams);
      expect(again.headers['x-sig']).toBe("it's 100%");
      expect(again.headers['content-type']).toBe('application/octet-stream');
      expect(bodyBytes(again)).toEqual(BINARY);
    });

    test('one capture as HAR 1.2 and as raw HTTP', async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const id = await send(ep.slug, '/p?k=v', { body: BINARY, headers: { 'content-type': 'application/octet-stream' } });
      await record(a.key, id);

      const har = await get(`/api/requests/${id}/export?format=har`, a.key);
      expect(har.status).toBe(200);
      const doc = (await har.json()) as Har;
      await validateHar(doc);
      const entry = doc.log.entries[0];
      if (!entry) throw new Error('no HAR entry');
      expect(entry.request.url).toBe(`${h.url}/w/${ep.slug}/p?k=v`);
      expect(entry.request.postData._encoding).toBe('base64');
      expect(bodyBytes({ body: entry.request.postData.text, bodyEncoding: 'base64' })).toEqual(BINARY);
      expect(entry.response.status).toBe(200);
      expect(entry._hookcap.id).toBe(id);

      const raw = await get(`/api/requests/${id}/export?format=raw`, a.key);
      expect(raw.headers.get('content-type')).toBe('message/http');
      const bytes = new Uint8Array(await raw.arrayBuffer());
      const head = new TextDecoder().decode(bytes).split('\r\n\r\n')[0] ?? '';
      expect(head.split('\r\n')[0]).toBe(`POST /w/${ep.slug}/p?k=v HTTP/1.1`);
      expect(head).toContain(`content-length: ${BINARY.length}`);
      expect(bytes.subarray(bytes.length - BINARY.length)).toEqual(BINARY);
    });

    test('one capture: bad format 400; another account, a cleared capture, an unknown id 404', async () => {
      const a = await newAccount(h.url);
      const b = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const id = await send(ep.slug, '/');
      await record(a.key, id);
      expect((await get(`/api/requests/${id}/export?format=xml`, a.key)).status).toBe(400);
      expect((await get(`/api/requests/${id}/export`, a.key)).status).toBe(400);
      expect((await get(`/api/requests/${id}/export?format=har`, b.key)).status).toBe(404);
      expect((await get(`/api/requests/req_00000000000000000000000000/export?format=har`, a.key)).status).toBe(404);
      expect((await get(`/api/requests/nope/export?format=har`, a.key)).status).toBe(404);
      const replayed = await call(h.url, 'POST', `/api/requests/${id}/replay`, { token: b.key, body: { url: `${target.url}/x` } });
      expect(replayed.status).toBe(404);
      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: a.key })).status).toBe(204);
      expect((await get(`/api/requests/${id}/export?format=har`, a.key)).status).toBe(404);
      expect((await call(h.url, 'POST', `/api/requests/${id}/replay`, { token: a.key, body: { url: `${target.url}/x` } })).status).toBe(404);
    });

    test("an endpoint's captures as NDJSON and HAR: all of them, oldest first, filtered, as an attachment", async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const ids: string[] = [];
      // Bodies of very different sizes make the export resize its pages.
      for (let i = 0; i < 120; i++) {
        const body = i % 40 === 0 ? 'x'.repeat(200_000) : JSON.stringify({ n: i, kind: i % 3 === 0 ? 'fizz' : 'plain' });
        ids.push(await send(ep.slug, `/n/${i}`, { method: i % 2 ? 'PUT' : 'POST', body }));
      }
      ids.push(await send(ep.slug, '/bin', { body: BINARY }));
      await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 121);

      const nd = await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson`, a.key);
      expect(nd.status).toBe(200);
      expect(nd.headers.get('content-type')).toBe('application/x-ndjson');
      expect(nd.headers.get('content-disposition')).toMatch(new RegExp(`^attachment; filename="hookcap-${ep.slug}-\\d{8}T\\d{6}Z\\.ndjson"$`));
      const lines = (await nd.text()).split('\n');
      expect(lines.pop()).toBe('');
      const records = lines.map((l) => JSON.parse(l) as Capture);
      expect(records.map((r) => r.id)).toEqual(ids);
      expect(bodyBytes(records[120] as Capture)).toEqual(BINARY);

      const har = await get(`/api/endpoints/${ep.slug}/requests/export?format=har`, a.key);
      expect(har.headers.get('content-disposition')).toMatch(/\.har"$/);
      const doc = (await har.json()) as Har;
      await validateHar(doc);
      expect(doc.log.entries.map((e) => e._hookcap.id)).toEqual(ids);

      const fizz = await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson&q=FIZZ&method=post`, a.key);
      const fizzIds = (await fizz.text()).trim().split('\n').map((l) => (JSON.parse(l) as Capture).id);
      // n % 3 === 0 is fizz; POST is even n (n % 40 === 0 bodies are plain x's).
      const expected = ids.filter((_, n) => n < 120 && n % 6 === 0 && n % 40 !== 0);
      expect(fizzIds).toEqual(expected);

      const later = await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson&from=${Date.now() + 60_000}`, a.key);
      expect(await later.text()).toBe('');
      const emptyHar = (await (await get(`/api/endpoints/${ep.slug}/requests/export?format=har&from=${Date.now() + 60_000}`, a.key)).json()) as Har;
      expect(emptyHar.log.entries).toEqual([]);

      // Kept (pinned) ones only, as search's pinned=true: none kept is an empty export, then the kept ones.
      const kept = async () => (await (await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson&pinned=true`, a.key)).text()).trim();
      expect(await kept()).toBe('');
      for (const id of [ids[7], ids[3]] as string[]) expect((await call(h.url, 'POST', `/api/requests/${id}/pin`, { token: a.key })).status).toBe(200);
      expect((await kept()).split('\n').map((l) => (JSON.parse(l) as Capture).id)).toEqual([ids[3], ids[7]] as string[]);
      expect((await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson&pinned=false`, a.key)).status).toBe(200);
      const badPinned = await get(`/api/endpoints/${ep.slug}/requests/export?format=ndjson&pinned=yes`, a.key);
      expect(badPinned.status).toBe(400);
      expect(((await badPinned.json()) as { error: string }).error).toBe('pinned: must be true or false, got "yes"');
    });

    test('endpoint export: bad format or filter 400, another account 404, cleared captures never, team members yes', async () => {
      const owner = await newAccount(h.url);
      const member = await newAccount(h.url);
      const stranger = await newAccount(h.url);
      const ep = await endpoint(owner.key, 'shared');
      const first = await send(ep.slug, '/old');
      await record(owner.key, first);
      const path = `/api/endpoints/${ep.slug}/requests/export?format=ndjson`;
      expect((await get(`/api/endpoints/${ep.slug}/requests/export?format=csv`, owner.key)).status).toBe(400);
      expect((await get(`${path}&from=yesterday`, owner.key)).status).toBe(400);
      expect((await get(`${path}&q=a&q=b`, owner.key)).status).toBe(400);
      expect((await get(path, stranger.key)).status).toBe(404);
      expect((await get('/api/endpoints/nosuchslug99/requests/export?format=ndjson', owner.key)).status).toBe(404);

      expect((await call(h.url, 'DELETE', `/api/endpoints/${ep.slug}/requests`, { token: owner.key })).status).toBe(204);
      const second = await send(ep.slug, '/new');
      await record(owner.key, second);
      const team = await paidTeam(h.url, owner);
      await joinTeam(h.url, owner, team, member);
      expect((await call(h.url, 'POST', `/api/teams/${team.id}/endpoints`, { token: owner.key, body: { endpointId: ep.id } })).status).toBe(201);
      for (const key of [owner.key, member.key]) {
        const text = await (await get(path, key)).text();
        expect(text.trim().split('\n').map((l) => (JSON.parse(l) as Capture).id)).toEqual([second]);
      }
      expect((await get(`/api/requests/${second}/export?format=curl`, member.key)).status).toBe(200);
    });

    test('replay: the captured request, with changes, reaches the target; its answer comes back', async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const id = await send(ep.slug, '/orig?x=1', { body: BINARY, headers: { 'content-type': 'application/octet-stream', 'x-keep': 'k', 'x-drop': 'd' } });
      await record(a.key, id);
      target.script('/replayed', () => new Response('x'.repeat(100_000), { status: 201, headers: { 'x-answer': 'yes' } }));
      const r = await call(h.url, 'POST', `/api/requests/${id}/replay`, {
        token: a.key,
        body: { url: `${target.url}/replayed?y=2`, headers: { 'X-Drop': null, 'x-new': 'n' } },
      });
      expect(r.status).toBe(200);
      expect(r.body.status).toBe(201);
      expect(r.body.headers['x-answer']).toBe('yes');
      expect(r.body.truncated).toBe(true);
      expect(r.body.body.length).toBe(64 * 1024);
      expect(r.body.timing.totalMs).toBeGreaterThanOrEqual(r.body.timing.headersMs);
      const got = target.received('/replayed').at(-1);
      expect(got?.method).toBe('POST');
      expect(got?.headers['x-keep']).toBe('k');
      expect(got?.headers['x-new']).toBe('n');
      expect(got?.headers['x-drop']).toBeUndefined();

      // Exact bytes: the hook receiver reads text, so compare through a body it can hold.
      target.script('/echo', async (_n, req) => new Response(req.body, { status: 200 }));
      const replaced = await call(h.url, 'POST', `/api/requests/${id}/replay`, {
        token: a.key,
        body: { url: `${target.url}/echo`, body: 'new body ✓' },
      });
      expect(replaced.body).toMatchObject({ status: 200, body: 'new body ✓', bodyEncoding: 'utf8', truncated: false });
      const binary = await call(h.url, 'POST', `/api/requests/${id}/replay`, {
        token: a.key,
        body: { url: `${target.url}/echo`, body: Buffer.from(BINARY).toString('base64'), bodyEncoding: 'base64' },
      });
      expect(binary.body.status).toBe(200);
    });

    test('replay: the outbound guard refuses private addresses (400 address_not_public); a target that does not answer is 502; bad input 400 validation', async () => {
      const a = await newAccount(h.url);
      const ep = await endpoint(a.key);
      const id = await send(ep.slug, '/');
      await record(a.key, id);
      const replay = (body: unknown) => call(h.url, 'POST', `/api/requests/${id}/replay`, { token: a.key, body });
      const blocked = await replay({ url: 'http://169.254.169.254/latest/meta-data' });
      expect(blocked.status).toBe(400);
      expect(blocked.body.code).toBe('address_not_public');
      expect(blocked.body.error).toContain(`hookcap replay ${id} --to URL`);
      // Loopback (only 127.0.0.1 is allowed here) and private: the same code, so a client offers
      // `hookcap replay` without reading the words.
      for (const url of ['http://127.0.0.2:8080/hook', 'http://[::1]/', 'http://10.1.2.3/']) {
        const r = await replay({ url });
        expect([url, r.status, r.body.code]).toEqual([url, 400, 'address_not_public']);
      }
      expect((await replay({ url: 'http://127.0.0.2:8080/hook' })).body.error).toStartWith('url: 127.0.0.2 is a loopback address;');
      // A URL the server cannot read at all stays `validation`: no command would help.
      for (const url of ['ftp://example.com/', 'not a url']) {
        const r = await replay({ url });
        expect([url, r.status, r.body.code]).toEqual([url, 400, 'validation']);
      }
      expect((await replay({ url: `${target.url}/x`, headers: { host: 'evil' } })).status).toBe(400);
      expect((await replay({ url: `${target.url}/x`, headers: { 'x-a': 'a\r\nb: c' } })).status).toBe(400);
      expect((await replay({ url: `${target.url}/x`, body: '***', bodyEncoding: 'base64' })).status).toBe(400);
      expect((await replay({})).status).toBe(400);
      const closed = await freePort();
      const down = await replay({ url: `http://127.0.0.1:${closed}/` });
      expect(down.status).toBe(502);
      expect(down.body.code).toBe('bad_gateway');
      // A name that does not resolve (RFC 6761 .invalid) is no refusal of the guard either.
      const unknown = await replay({ url: 'http://no-such-host.invalid/' });
      expect([unknown.status, unknown.body.code]).toEqual([502, 'bad_gateway']);
    });
  },
  // 127.0.0.1 is the test receiver; everything else private stays refused.
  { ...TEAMS_ENV, OUTBOUND_ALLOW: '127.0.0.1' },
);
