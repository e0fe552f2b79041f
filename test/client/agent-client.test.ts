/**
 * hookcap/client's agent calls against a real server on both backends, imported by the package
 * name: anonymous registration, the poll and waitForClaim (a person confirms or denies over the
 * real API), and the sandbox (create, list, read what a real POST to /w/<slug> captured).
 */
import { expect, test } from 'bun:test';
import { createClient, HookcapError, pollRegistration, registerAnonymous, waitForClaim, type AnonymousRegistration } from 'hookcap/client';
import { AGENT_ENV, signUp } from '../behaviour/agent-support';
import { call, newAccount } from '../support/client';
import { describeBackends } from '../support/suite';

describeBackends(
  'hookcap/client agent calls',
  (h) => {
    test('registerAnonymous returns the SPEC 4.8 fields; the key works in the sandbox through the client', async () => {
      const reg: AnonymousRegistration = await registerAnonymous({ apiUrl: h.url, clientName: 'client agent' });
      expect(Object.keys(reg).sort()).toEqual(
        ['registration_id', 'registration_type', 'credential_type', 'credential', 'credential_expires', 'scopes', 'claim_url', 'claim_token', 'user_code', 'claim_token_expires', 'post_claim_scopes'].sort(),
      );
      expect(reg.credential).toStartWith('svc_');
      const poll = await pollRegistration({ apiUrl: h.url, claimToken: reg.claim_token });
      expect(poll).toMatchObject({ status: 'pending', user_code: reg.user_code, registration_id: reg.registration_id });

      const agent = createClient({ apiUrl: h.url, key: reg.credential });
      const ep = await agent.sandbox.create();
      expect(Object.keys(ep).sort()).toEqual(['expiresAt', 'slug', 'url']);
      expect(await agent.sandbox.list()).toEqual([ep]);
      const sent = await fetch(`${ep.url}/hook?n=1`, { method: 'POST', body: '{"n":1}', headers: { 'content-type': 'application/json' } });
      expect(sent.status).toBe(200);
      let captures = await agent.sandbox.captures(ep.slug);
      for (let i = 0; i < 50 && captures.length === 0; i++) {
        await Bun.sleep(100);
        captures = await agent.sandbox.captures(ep.slug, { limit: 5 });
      }
      expect(captures.map((c) => [c.method, c.path, c.body])).toEqual([['POST', '/hook', '{"n":1}']]);

      // An account key has no sandbox; an unknown slug is 404; bad input is the agent API's code.
      const account = await newAccount(h.url);
      expect(await createClient({ apiUrl: h.url, key: account.key }).sandbox.list().catch((e: unknown) => e)).toMatchObject({ status: 403, code: 'forbidden' });
      expect(await agent.sandbox.captures('nosuchslug00').catch((e: unknown) => e)).toMatchObject({ status: 404, code: 'not_found' });
      const bad = await registerAnonymous({ apiUrl: h.url, clientName: '' }).catch((e: unknown) => e);
      expect(bad).toBeInstanceOf(HookcapError);
      expect(bad).toMatchObject({ status: 400, code: 'invalid_request' });
      expect(await pollRegistration({ apiUrl: h.url, claimToken: 'clm_nope' }).catch((e: unknown) => e)).toMatchObject({ status: 400, code: 'invalid_claim_token' });
    });

    test('waitForClaim resolves when a person confirms, and throws claim_denied when one denies', async () => {
      const reg = await registerAnonymous({ apiUrl: h.url, clientName: 'waiting agent' });
      const human = await signUp(h.url);
      const waiting = waitForClaim({ apiUrl: h.url, claimToken: reg.claim_token, intervalMs: 100, timeout: 20_000 });
      await Bun.sleep(300);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { user_code: reg.user_code } })).status).toBe(200);
      const claimed = await waiting;
      expect(claimed.status).toBe('claimed');
      expect((await createClient({ apiUrl: h.url, key: reg.credential }).me()).email).toBe(human.email);

      const refused = await registerAnonymous({ apiUrl: h.url, clientName: 'refused agent' });
      const denied = waitForClaim({ apiUrl: h.url, claimToken: refused.claim_token, intervalMs: 100, timeout: 20_000 }).catch((e: unknown) => e);
      await Bun.sleep(300);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/deny', { token: human.session, body: { claim_token: refused.claim_token } })).status).toBe(200);
      expect(await denied).toMatchObject({ code: 'claim_denied' });

      const late = await registerAnonymous({ apiUrl: h.url, clientName: 'nobody decides' });
      expect(await waitForClaim({ apiUrl: h.url, claimToken: late.claim_token, intervalMs: 50, timeout: 200 }).catch((e: unknown) => e)).toMatchObject({ code: 'timeout' });
    });
  },
  AGENT_ENV,
);
