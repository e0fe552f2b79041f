import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, expectAgentError, otpFor, registerAnonymous, signUp, uniqueEmail, wrongOtp } from './agent-support';
import { clearOfWindowEdge } from '../support/rate-window';

/** The claim window and the code's lifetime; the service runs in-process and its clock is moved past them. */
const WINDOW_MS = 10 * 60_000;

describeInProcess(
  'agent registration: bounds, expiry and per-email limits',
  (h) => {
    const windowPasses = () => h.clock.advance(WINDOW_MS + 1);
    const anonymous = () => call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: 'bounded' } });
    const byEmail = (email: string) => call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'limited' } });

    test('pending anonymous registrations are bounded: temporarily_unavailable, until one is claimed or expires', async () => {
      const first = await anonymous();
      expect(first.status).toBe(201);
      const second = await anonymous();
      expect(second.status).toBe(201);
      const refused = await anonymous();
      expectAgentError(refused, 503, 'temporarily_unavailable');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      // Claiming one frees its slot …
      const human = await signUp(h.url);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: first.body.claim_token } })).status).toBe(200);
      expect((await anonymous()).status).toBe(201);
      expectAgentError(await anonymous(), 503, 'temporarily_unavailable');
      // … and so does an elapsed claim window: the oldest pending one's (not 5 s before it
      // closes). Counted from its own expiry, as the wall clock under the test clock runs on.
      const secondCloses = Date.parse(second.body.claim_token_expires);
      expect(secondCloses - h.clock.now()).toBeLessThanOrEqual(WINDOW_MS);
      h.clock.advance(secondCloses - h.clock.now() - 5_000);
      expectAgentError(await anonymous(), 503, 'temporarily_unavailable');
      h.clock.advance(5_001);
      expect((await anonymous()).status).toBe(201);
    });

    test('claim tokens expire: claim_expired on confirm and poll; the key keeps its sandbox', async () => {
      windowPasses(); // earlier registrations out of the pending bound
      const reg = await registerAnonymous(h.url);
      windowPasses();
      const human = await signUp(h.url);
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } }), 410, 'claim_expired');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: reg.user_code } }), 410, 'claim_expired');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } }), 410, 'claim_expired');
      // credential_expires is null: the unclaimed key itself does not expire.
      expect((await call(h.url, 'POST', '/api/agent/sandbox/endpoints', { token: reg.credential })).status).toBe(201);
      expect((await call(h.url, 'GET', '/api/endpoints', { token: reg.credential })).status).toBe(403);
    });

    test('a one-time code expires after its lifetime: otp_expired even when right', async () => {
      const email = uniqueEmail();
      const reg = (await byEmail(email)).body;
      const otp = await otpFor(h.server, email);
      windowPasses();
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.claim_token, otp } }), 410, 'otp_expired');
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token: reg.claim_token } }), 410, 'claim_expired');
    });

    test('registrations per email are rate limited, whatever the case, with X-RateLimit-* headers', async () => {
      await clearOfWindowEdge(600_000, 20_000);
      const email = uniqueEmail('ratelimited');
      for (const remaining of [2, 1, 0]) {
        const r = await byEmail(remaining === 1 ? email.toUpperCase() : email);
        expect(r.status).toBe(201);
        expect(r.headers.get('x-ratelimit-limit')).toBe('3');
        expect(r.headers.get('x-ratelimit-remaining')).toBe(String(remaining));
        const reset = Number(r.headers.get('x-ratelimit-reset'));
        expect(reset).toBeGreaterThan(h.clock.now() / 1000);
        expect(reset).toBeLessThanOrEqual(h.clock.now() / 1000 + 601);
      }
      const refused = await byEmail(email);
      expectAgentError(refused, 429, 'rate_limited');
      expect(Number(refused.headers.get('retry-after'))).toBeGreaterThan(0);
      expect(refused.headers.get('x-ratelimit-remaining')).toBe('0');
      expect((await byEmail(uniqueEmail())).status).toBe(201);
    });

    test('code attempts per email are rate limited across registrations', async () => {
      await clearOfWindowEdge(600_000, 20_000);
      const email = uniqueEmail('otp-limited');
      const reg = (await byEmail(email)).body;
      const otp = await otpFor(h.server, email);
      for (let i = 0; i < 3; i++) {
        const r = await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.claim_token, otp: wrongOtp(otp) } });
        expectAgentError(r, 401, 'otp_invalid');
        expect(r.headers.get('x-ratelimit-remaining')).toBe(String(2 - i));
      }
      expectAgentError(await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: reg.claim_token, otp } }), 429, 'rate_limited');
    });
  },
  {
    ...AGENT_ENV,
    CLAIM_TTL_MS: String(WINDOW_MS),
    AGENT_OTP_TTL_MS: String(WINDOW_MS),
    AGENT_MAX_PENDING: '2',
    AGENT_RATE_LIMIT_EMAIL: '3/600',
  },
);
