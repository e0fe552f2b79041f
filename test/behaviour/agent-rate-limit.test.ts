import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError, otpFor, signUp, uniqueEmail, wrongOtp } from './agent-support';

const LIMIT = 4;

describeBackends(
  'agent registration: per-address rate limits',
  (h) => {
    test('registrations, code attempts and claim attempts are each limited per client address', async () => {
      const email = uniqueEmail();
      const reg = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'ip' } });
      expect(reg.status).toBe(201);
      expect(reg.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1));
      for (let i = 2; i <= LIMIT; i++) {
        const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'ip' } });
        expect(r.status).toBe(201);
        expect(r.headers.get('x-ratelimit-limit')).toBe(String(LIMIT));
        expect(r.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - i));
      }
      const refused = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'ip' } });
      expectAgentError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email: uniqueEmail(), client_name: 'ip' } }), 429, 'rate_limited');

      // Code attempts have their own budget.
      const otp = await otpFor(h.server, email);
      for (let i = 0; i < LIMIT; i++) {
        const r = await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.body.claim_token, otp: wrongOtp(otp) } });
        expectAgentError(r, 401, 'otp_invalid');
        expect(r.headers.get('x-ratelimit-remaining')).toBe(String(LIMIT - 1 - i));
      }
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.body.claim_token, otp } }), 429, 'rate_limited');

      // So do claim attempts (guessing user codes).
      const human = await signUp(h.url);
      for (let i = 0; i < LIMIT; i++) {
        expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: 'BCDF-GHJK' } }), 400, 'invalid_claim_token');
      }
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: 'BCDF-GHJK' } }), 429, 'rate_limited');
    });
  },
  { ...AGENT_ENV, AGENT_RATE_LIMIT_IP: `${LIMIT}/600` },
);
