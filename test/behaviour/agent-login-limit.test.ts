/**
 * The agent sign-in page (`/agent/login`) under the per-account log-in limit
 * (RATE_LIMIT_LOGIN_ACCOUNT, src/services/auth.ts): its refusal is a 429 with the capture API's
 * code `rate_limited_api`, not the agent limit's `rate_limited`, and the page says "Too many
 * attempts" for every 429 (docs/agents.md). Real server in-process on a real port, the real form.
 */
import { expect, test } from 'bun:test';
import { describeInProcess } from '../support/in-process';
import { AGENT_ENV, signUp, uniqueEmail } from './agent-support';
import { clearOfWindowEdge } from '../support/rate-window';

describeInProcess(
  'the agent sign-in page at the per-account log-in limit',
  (h) => {
    const post = (email: string, password: string) =>
      fetch(`${h.url}/agent/login`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', origin: h.url },
        body: new URLSearchParams({ email, password, next: '/agent/claim' }).toString(),
        redirect: 'manual',
      });

    test('the attempt over RATE_LIMIT_LOGIN_ACCOUNT is a 429 page saying "Too many attempts", not the API message', async () => {
      await clearOfWindowEdge(600_000, 20_000);
      const human = await signUp(h.url, uniqueEmail('login-limit'));
      for (let i = 0; i < 2; i++) {
        const r = await post(human.email, 'wrong password');
        expect(r.status).toBe(401);
        expect(await r.text()).toContain('wrong email or password');
      }
      const over = await post(human.email, 'correct horse battery');
      expect(over.status).toBe(429);
      expect(over.headers.get('content-type')).toBe('text/html; charset=utf-8');
      expect(over.headers.get('set-cookie')).toBeNull();
      const text = await over.text();
      expect(text).toContain('Too many attempts; try again later.');
      expect(text).not.toContain('too many log-in attempts for this account');
    });
  },
  { ...AGENT_ENV, RATE_LIMIT_LOGIN_ACCOUNT: '2/600' },
);
