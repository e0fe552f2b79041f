/**
 * Finding 6: a NUL (U+0000) in any stored string is a 400 before anything is written, never a 500;
 * captured requests keep NULs byte for byte; and nothing secret reaches the log. (The logger's
 * redaction itself: log-redaction.test.ts.)
 */
import { expect, test } from 'bun:test';
import { call, type ErrorFields, type Method } from '../support/client';
import { describeBackends } from '../support/suite';
import { TEAMS_ENV, paidTeam } from '../behaviour/teams-support';
import { accountWithEndpoint, captured, portOf, rawHttp, rawRequest } from './support';

const NUL = '\u0000';
const SECRET = `sekrit-${Math.random().toString(36).slice(2)}-value`;
const PASSWORD = `pass-${Math.random().toString(36).slice(2)}-word`;

describeBackends(
  'security: NUL bytes and secrets in logs',
  (h) => {
    test('a NUL in any stored field is a 400 JSON and changes nothing', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const team = await paidTeam(h.url, account);
      const slug = endpoint.slug;
      const writes: [Method, string, unknown][] = [
        ['POST', '/api/endpoints', { name: `a${NUL}b` }],
        ['PATCH', `/api/endpoints/${slug}`, { name: `a${NUL}b` }],
        ['PATCH', `/api/endpoints/${slug}`, { mockResponse: { status: 200, body: `x${NUL}`, headers: {} } }],
        ['PATCH', `/api/endpoints/${slug}`, { mockResponse: { status: 200, body: '', headers: { [`x${NUL}`]: 'v' } } }],
        ['PATCH', `/api/endpoints/${slug}`, { notificationUrl: `https://example.com/${NUL}` }],
        ['PATCH', `/api/endpoints/${slug}`, { signing: { provider: 'hmac', secret: `${SECRET}${NUL}`, header: 'x-sig', algorithm: 'sha256', encoding: 'hex' } }],
        ['POST', '/api/teams', { name: `t${NUL}` }],
        ['PATCH', `/api/teams/${team.id}`, { name: `t${NUL}` }],
        ['POST', `/api/teams/${team.id}/invite`, { email: `x${NUL}@example.com` }],
        ['POST', `/api/teams/${team.id}/endpoints`, { endpointId: `ep_${NUL}` }],
        ['POST', '/api/api-keys', { name: `k${NUL}` }],
        ['POST', '/api/send-test', { slug, body: `b${NUL}` }],
      ];
      for (const [method, path, body] of writes) {
        const token = path === '/api/api-keys' ? account.session : account.key;
        const r = await call<ErrorFields>(h.url, method, path, { token, body });
        expect({ method, path, status: r.status, code: r.body.code }).toEqual({ method, path, status: 400, code: 'validation' });
      }
      for (const path of [`/api/endpoints/${NUL}`, `/api/requests/${NUL}`, `/api/search/requests?q=${NUL}`, `/api/endpoints/${slug}/requests/paginated?cursor=${NUL}`]) {
        const r = await call<ErrorFields>(h.url, 'GET', path.replace(NUL, '%00'), { token: account.key });
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code: 'validation' });
      }
      const after = await call(h.url, 'GET', `/api/endpoints/${slug}`, { token: account.key });
      expect(after.body).toMatchObject({ name: 'security', mockResponse: null, notificationUrl: null, signing: null });
      expect((await call(h.url, 'GET', '/api/endpoints', { token: account.key })).body.length).toBe(1);
      expect((await call(h.url, 'GET', `/api/teams/${team.id}`, { token: account.key })).body.name).toBe('Paid team');
    });

    test('a lone surrogate in a stored string is a 400 JSON and changes nothing (jsonb refused it with a 500)', async () => {
      const LONE = '\ud800';
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const slug = endpoint.slug;
      const writes: [Method, string, unknown][] = [
        // Mock header values are typed text (sent as UTF-8): the one place a non-Latin-1 value is taken.
        ['PATCH', `/api/endpoints/${slug}`, { mockResponse: { status: 200, body: '', headers: { 'x-a': `v${LONE}` } } }],
        ['PATCH', `/api/endpoints/${slug}`, { mockResponse: { status: 200, body: `x${LONE}`, headers: {} } }],
        ['PATCH', `/api/endpoints/${slug}`, { signing: { provider: 'hmac', secret: `${SECRET}${LONE}`, header: 'x-sig', algorithm: 'sha256', encoding: 'hex' } }],
        ['PATCH', `/api/endpoints/${slug}`, { name: `a${LONE}` }],
        ['POST', '/api/teams', { name: `t${'\udc00'}` }],
      ];
      for (const [method, path, body] of writes) {
        const r = await call<ErrorFields>(h.url, method, path, { token: account.key, body });
        expect({ method, path, status: r.status, code: r.body.code }).toEqual({ method, path, status: 400, code: 'validation' });
      }
      const mock = await call<ErrorFields>(h.url, 'PATCH', `/api/endpoints/${slug}`, { token: account.key, body: { mockResponse: { status: 200, body: '', headers: { 'x-a': `v${LONE}` } } } });
      expect(mock.body.error).toBe('mockResponse.headers.x-a must be Unicode text: it holds half of a surrogate pair (such as \\ud800) without the other');
      // A pair is one character, taken as any other.
      const pair = await call(h.url, 'PATCH', `/api/endpoints/${slug}`, { token: account.key, body: { name: 'party 🎉' } });
      expect(pair.status).toBe(200);
      const after = await call(h.url, 'GET', `/api/endpoints/${slug}`, { token: account.key });
      expect(after.body).toMatchObject({ name: 'party 🎉', mockResponse: null, signing: null });
      expect((await call(h.url, 'GET', '/api/teams', { token: account.key })).body).toEqual([]);
    });

    test('sign-up, log-in and the agent flows refuse NUL without a 500', async () => {
      const signup = await call<ErrorFields>(h.url, 'POST', '/api/auth/signup', { body: { email: `n${NUL}@example.com`, password: PASSWORD } });
      expect([signup.status, signup.body.code]).toEqual([400, 'validation']);
      const login = await call<ErrorFields>(h.url, 'POST', '/api/auth/login', { body: { email: `n${NUL}@example.com`, password: PASSWORD } });
      expect(login.status).toBe(400);
      const agent = await call<ErrorFields>(h.url, 'POST', '/api/agent/auth', {
        body: { type: 'verified_email', email: `n${NUL}@example.com`, client_name: 'bot', requested_credential_type: 'api_key' },
      });
      expect([agent.status, agent.body.error]).toEqual([400, 'invalid_request']);
      // The log-in page posts a form; its NUL arrives percent-encoded.
      const page = await fetch(`${h.url}/agent/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
        body: `email=n%00%40example.com&password=${PASSWORD}`,
        redirect: 'manual',
      });
      expect(page.status).toBe(401);
    });

    test('captures keep NULs byte for byte; a NUL in a slug is a 404', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const body = new Uint8Array([0x61, 0x00, 0x62, 0x00]);
      const r = await fetch(`${h.url}/w/${endpoint.slug}/a%00b?k=%00`, { method: 'POST', body, headers: { 'x-v': 'v' } });
      expect(r.status).toBe(200);
      const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
      expect(rec?.path).toBe('/a%00b');
      expect(rec?.queryParams).toEqual({ k: NUL });
      expect([...Buffer.from(rec?.body ?? '', rec?.bodyEncoding === 'base64' ? 'base64' : 'utf8')]).toEqual([...body]);
      const bad = await rawHttp(portOf(h.url), rawRequest('POST', `/w/${endpoint.slug.slice(0, 11)}%00`, { body: 'x' }));
      expect(bad.responses[0]?.status).toBe(404);
    });

    test('no error was logged, and no secret or password appears in the log', () => {
      const out = h.server.output();
      expect(out).not.toContain(SECRET);
      expect(out).not.toContain(PASSWORD);
      expect(out).not.toContain('$argon2');
      expect(out.split('\n').filter((l) => l.includes('"level":"error"'))).toEqual([]);
    });
  },
  TEAMS_ENV,
);
