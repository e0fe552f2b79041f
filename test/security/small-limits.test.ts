/**
 * Finding 8: out-of-range token times are agent errors, send-test refuses what the receiver could
 * never answer, every oversized body gets a JSON 413, a cursor the API did not issue is a 400, and
 * log-in attempts are limited per account as well as per address.
 */
import { afterAll, expect, test } from 'bun:test';
import { call, newAccount, type ErrorFields } from '../support/client';
import { startHookReceiver } from '../support/hook-receiver';
import { LOGOUT_EVENT, makeKey, sign, TestIdp } from '../support/idp';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from '../behaviour/agent-support';
import { accountWithEndpoint, captured, portOf, rawHttp } from './support';
import { clearOfWindowEdge } from '../support/rate-window';

const key = await makeKey('ES256', 'sec-1');
const target = startHookReceiver();
afterAll(() => target.stop());
const idp = TestIdp.start();
idp.publish(key);
afterAll(() => idp.stop());

const nowS = () => Math.floor(Date.now() / 1000);
let n = 0;
const jti = () => `sec-jti-${Date.now()}-${++n}`;

describeBackends(
  'security: small limits',
  (h) => {
    test('an identity assertion or logout token with exp beyond year 9999 is invalid_token, not a 500', async () => {
      for (const exp of [1e19, 2 ** 63, 253402300800]) {
        const assertion = await sign(
          { iss: idp.url, sub: `s-${jti()}`, aud: `${h.url}/api/`, client_id: 'cli', jti: jti(), iat: nowS(), exp, email: uniqueEmail('exp'), email_verified: true },
          key,
        );
        const r = await call<ErrorFields>(h.url, 'POST', '/api/agent/auth', { raw: assertion, headers: { 'content-type': 'application/jwt' } });
        expect({ exp, status: r.status, error: r.body.error }).toEqual({ exp, status: 400, error: 'invalid_token' });
        const logout = await sign({ iss: idp.url, sub: 's', aud: `${h.url}/api/`, jti: jti(), iat: nowS(), exp, events: { [LOGOUT_EVENT]: {} } }, key, { typ: 'logout+jwt' });
        const l = await call<ErrorFields>(h.url, 'POST', '/api/agent/auth/revoke', { raw: logout, headers: { 'content-type': 'application/logout+jwt' } });
        expect({ exp, status: l.status, error: l.body.error }).toEqual({ exp, status: 400, error: 'invalid_token' });
      }
    });

    test('send-test: a header value with a control character, or a method the receiver cannot take, is a 400; any other text goes out as UTF-8', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      for (const body of [
        { slug: endpoint.slug, headers: { 'x-line': 'a\nb' } },
        { slug: endpoint.slug, headers: { 'x-control': 'a\u0001b' } },
        { slug: endpoint.slug, method: 'FOO' },
        { slug: endpoint.slug, method: 'BREW' },
      ]) {
        const r = await call<ErrorFields>(h.url, 'POST', '/api/send-test', { token: account.key, body });
        expect({ body, status: r.status, code: r.body.code }).toEqual({ body, status: 400, code: 'validation' });
      }
      // Typed text is sent as its UTF-8 bytes, as curl -H does (docs/exports.md "Header bytes"):
      // stored one character per byte.
      const ok = await call(h.url, 'POST', '/api/send-test', { token: account.key, body: { slug: endpoint.slug, method: 'propfind', headers: { 'x-price': '10 €', 'x-emoji': '🎉' } } });
      expect(ok.status).toBe(200);
      const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
      expect(rec?.method).toBe('PROPFIND');
      const asStored = (text: string) => Buffer.from(text, 'utf8').toString('latin1');
      expect(rec?.headers['x-price']).toBe(asStored('10 €'));
      expect(rec?.headers['x-emoji']).toBe(asStored('🎉'));
    });

    test('replay: a header value that is not Latin-1 is a 400, not a 500', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      await fetch(`${h.url}/w/${endpoint.slug}`, { method: 'POST', body: 'x' });
      const [rec] = await captured(h.url, account.key, endpoint.slug, 1);
      const r = await call<ErrorFields>(h.url, 'POST', `/api/requests/${rec?.id}/replay`, {
        token: account.key,
        body: { url: `${target.url}/replayed`, headers: { 'x-price': '10 €' } },
      });
      expect([r.status, r.body.code]).toEqual([400, 'validation']);
      const ok = await call(h.url, 'POST', `/api/requests/${rec?.id}/replay`, { token: account.key, body: { url: `${target.url}/replayed`, headers: { 'x-price': '10 £' } } });
      expect(ok.status).toBe(200);
      expect(target.received('/replayed')[0]?.headers['x-price']).toBe('10 £');
    });

    test('a body nested thousands of levels deep is a 400, not a stack overflow', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const deep = `${'['.repeat(5_000)}${']'.repeat(5_000)}`;
      for (const [path, body] of [
        ['/api/send-test', `{"slug":[1],"method":${deep}}`],
        [`/api/endpoints/${endpoint.slug}`, `{"mockResponse":{"status":200,"body":"","headers":{"x":${deep}}}}`],
        ['/api/teams', `{"name":${deep}}`],
      ] as const) {
        const r = await call<ErrorFields>(h.url, path.startsWith('/api/endpoints/') ? 'PATCH' : 'POST', path, { token: account.key, raw: body, headers: { 'content-type': 'application/json' } });
        expect({ path, status: r.status, code: r.body.code }).toEqual({ path, status: 400, code: 'validation' });
      }
      const agent = await call<ErrorFields>(h.url, 'POST', '/api/agent/auth', { raw: `{"type":"anonymous","x":${deep}}`, headers: { 'content-type': 'application/json' } });
      expect([agent.status, agent.body.error]).toEqual([400, 'invalid_request']);
    });

    test('a declared body over the limit is a JSON 413 on the API and on the receiver; a chunked API body is a 411', async () => {
      const { account, endpoint } = await accountWithEndpoint(h.url);
      const big = 'x'.repeat(3 * 1024 * 1024);
      const api = await call<ErrorFields>(h.url, 'POST', '/api/endpoints', { token: account.key, body: { name: big } });
      expect([api.status, api.body.code]).toEqual([413, 'payload_too_large']);
      const recv = await fetch(`${h.url}/w/${endpoint.slug}`, { method: 'POST', body: big });
      expect(recv.status).toBe(413);
      expect(((await recv.json()) as ErrorFields).code).toBe('payload_too_large');
      expect(recv.headers.get('content-security-policy')).toBe('sandbox');
      // A huge declared length, no body sent: answered at once, the connection closed.
      for (const target of ['/api/endpoints', `/w/${endpoint.slug}`]) {
        const ex = await rawHttp(
          portOf(h.url),
          `POST ${target} HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.key}\r\nContent-Type: application/json\r\nContent-Length: 100000000000\r\n\r\n`,
        );
        expect({ target, status: ex.responses[0]?.status }).toEqual({ target, status: 413 });
        expect(JSON.parse(ex.responses[0]?.body ?? '{}').code).toBe('payload_too_large');
      }
      const chunked = await rawHttp(
        portOf(h.url),
        `POST /api/endpoints HTTP/1.1\r\nHost: localhost\r\nAuthorization: Bearer ${account.key}\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n10\r\n{"name":"chunk"}\r\n0\r\n\r\n`,
      );
      expect(chunked.responses[0]?.status).toBe(411);
      expect(JSON.parse(chunked.responses[0]?.body ?? '{}').code).toBe('length_required');
      expect((await call(h.url, 'GET', '/api/endpoints', { token: account.key })).body.length).toBe(1);
    });

    test('a cursor the API did not issue is a 400: forged, tampered, or from another endpoint', async () => {
      const a = await accountWithEndpoint(h.url);
      const other = await call(h.url, 'POST', '/api/endpoints', { token: a.account.key, body: { name: 'other' } });
      for (let i = 0; i < 3; i++) await fetch(`${h.url}/w/${a.endpoint.slug}/${i}`, { method: 'POST', body: 'x' });
      for (let i = 0; i < 3; i++) await fetch(`${h.url}/w/${other.body.slug}/${i}`, { method: 'POST', body: 'x' });
      const recs = await captured(h.url, a.account.key, a.endpoint.slug, 3);
      await captured(h.url, a.account.key, other.body.slug, 3);
      const page = (slug: string, cursor: string) =>
        call<ErrorFields & { items?: unknown[] }>(h.url, 'GET', `/api/endpoints/${slug}/requests/paginated?limit=1&cursor=${encodeURIComponent(cursor)}`, { token: a.account.key });
      const first = await call(h.url, 'GET', `/api/endpoints/${a.endpoint.slug}/requests/paginated?limit=1`, { token: a.account.key });
      const issued = first.body.cursor ?? '';
      expect((await page(a.endpoint.slug, issued)).status).toBe(200);
      const newest = recs[0];
      const forged = Buffer.from(`${newest?.receivedAt}.${newest?.id}`).toString('base64url');
      const tampered = `${issued.slice(0, -1)}${issued.endsWith('A') ? 'B' : 'A'}`;
      const otherFirst = await call(h.url, 'GET', `/api/endpoints/${other.body.slug}/requests/paginated?limit=1`, { token: a.account.key });
      for (const [what, slug, cursor] of [
        ['the unsigned position', a.endpoint.slug, forged],
        ['a changed MAC', a.endpoint.slug, tampered],
        ['another endpoint\'s cursor', a.endpoint.slug, otherFirst.body.cursor ?? ''],
        ['this cursor on another endpoint', other.body.slug, issued],
        ['junk', a.endpoint.slug, 'not-a-cursor'],
      ] as const) {
        const r = await page(slug, cursor);
        expect({ what, status: r.status, code: r.body.code }).toEqual({ what, status: 400, code: 'validation' });
      }
    });

    test('log-in attempts are limited per account, from any address', async () => {
      await clearOfWindowEdge(600_000, 20_000);
      const victim = await newAccount(h.url);
      const bystander = await newAccount(h.url);
      const from = (i: number) => ({ 'x-forwarded-for': `198.51.100.${i}` });
      for (let i = 1; i <= 3; i++) {
        const r = await call(h.url, 'POST', '/api/auth/login', { body: { email: victim.email, password: `guess ${i}` }, headers: from(i) });
        expect(r.status).toBe(401);
      }
      const blocked = await call<ErrorFields>(h.url, 'POST', '/api/auth/login', { body: { email: victim.email.toUpperCase(), password: 'correct horse battery' }, headers: from(9) });
      expect([blocked.status, blocked.body.code]).toEqual([429, 'rate_limited_api']);
      expect(Number(blocked.headers.get('retry-after'))).toBeGreaterThan(0);
      const fine = await call(h.url, 'POST', '/api/auth/login', { body: { email: bystander.email, password: 'correct horse battery' }, headers: from(9) });
      expect(fine.status).toBe(200);
    });
  },
  {
    ...AGENT_ENV,
    AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: idp.url }]),
    AGENT_ALLOW_INSECURE_ISSUERS: 'true',
    TRUST_PROXY: 'true',
    RATE_LIMIT_LOGIN_ACCOUNT: '3/600',
    OUTBOUND_ALLOW: `127.0.0.1:${target.port}`,
  },
);
