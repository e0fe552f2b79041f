/**
 * An identity provider whose key set cannot be fetched (its host refuses connections): an identity
 * assertion and a logout token are both answered 503 temporarily_unavailable, so the caller (or the
 * provider, for a logout) retries, and the server logs each refusal once, at warn, with the issuer
 * and why its keys could not be had. The logout route answered its 503 itself and logged nothing.
 */
import { expect, test } from 'bun:test';
import type { JWTPayload } from 'jose';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { makeKey, sign, TestIdp } from '../support/idp';
import { AGENT_ENV, expectAgentError, uniqueEmail } from './agent-support';

const key = await makeKey('ES256', 'es-down');
// An issuer that was there and is gone: its address refuses every connection.
const gone = TestIdp.start();
const ISSUER = gone.url;
gone.stop();

const LOGOUT_EVENT = 'http://schemas.openid.net/event/backchannel-logout';
const nowS = () => Math.floor(Date.now() / 1000);
let n = 0;
const jti = () => `jti-down-${Date.now()}-${++n}`;

type LogLine = Record<string, unknown> & { level: string; msg: string };

describeBackends(
  'agent registration: an identity provider whose keys cannot be fetched',
  (h) => {
    const linesAbout = (marker: string) =>
      h.server
        .output()
        .split('\n')
        .filter((l) => l.startsWith('{') && l.includes(marker))
        .map((l) => JSON.parse(l) as LogLine);

    const expectOneWarning = async (marker: string) => {
      await eventually(async () => linesAbout(marker).length > 0);
      // Give a second line, if one were coming, time to arrive.
      await Bun.sleep(300);
      const lines = linesAbout(marker);
      expect(lines).toHaveLength(1);
      expect(lines[0]).toMatchObject({
        level: 'warn',
        msg: 'request refused for now; the caller may retry',
        code: 'temporarily_unavailable',
        error: `keys of issuer ${ISSUER} could not be fetched; retry later`,
        issuer: ISSUER,
      });
      expect(String(lines[0]?.keysError ?? '')).not.toBe('');
    };

    test('an identity assertion: 503 temporarily_unavailable, logged once with the issuer and the cause', async () => {
      const sub = `sub-assert-${jti()}`;
      const claims: JWTPayload = {
        iss: ISSUER,
        sub,
        aud: `${h.url}/api/`,
        client_id: 'agent-cli',
        jti: jti(),
        iat: nowS(),
        exp: nowS() + 300,
        email: uniqueEmail('idjag-down'),
        email_verified: true,
      };
      const r = await call(h.url, 'POST', '/api/agent/auth', { raw: await sign(claims, key), headers: { 'content-type': 'application/jwt' } });
      expectAgentError(r, 503, 'temporarily_unavailable');
      await expectOneWarning('could not be fetched');
    });

    test('a logout token: 503 temporarily_unavailable with no-store, logged once with the issuer and the cause', async () => {
      const before = linesAbout('could not be fetched').length;
      const claims: JWTPayload = { iss: ISSUER, sub: `sub-logout-${jti()}`, aud: `${h.url}/api/`, jti: jti(), iat: nowS(), exp: nowS() + 120, events: { [LOGOUT_EVENT]: {} } };
      const r = await call(h.url, 'POST', '/api/agent/auth/revoke', { raw: await sign(claims, key, { typ: 'logout+jwt' }), headers: { 'content-type': 'application/logout+jwt' } });
      expectAgentError(r, 503, 'temporarily_unavailable');
      expect(r.headers.get('cache-control')).toBe('no-store');
      await eventually(async () => linesAbout('could not be fetched').length > before);
      await Bun.sleep(300);
      expect(linesAbout('could not be fetched')).toHaveLength(before + 1);
    });
  },
  {
    ...AGENT_ENV,
    AGENT_IDJAG_PROVIDERS: JSON.stringify([{ iss: ISSUER }]),
    AGENT_ALLOW_INSECURE_ISSUERS: 'true',
    JWKS_COOLDOWN_MS: '0',
    LOG_LEVEL: 'info',
  },
);
