/**
 * The claim page is where a person decides what an agent's key may do. SPEC 8 makes scopes
 * advisory: a claimed key uses the whole API as the person, teams included. The page must say so
 * rather than list only the two scopes' words (it used to, while the key could delete the
 * person's teams). Real HTTP on a real port, both backends.
 */
import { expect, test } from 'bun:test';
import { call } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, registerAnonymous, signUp } from '../behaviour/agent-support';

describeBackends(
  'the claim page names what a claimed key can do',
  (h) => {
    test('the page says the key acts on the whole API, teams included, and a claimed key can indeed delete a team', async () => {
      const reg = await registerAnonymous(h.url, 'team tidier');
      const human = await signUp(h.url);
      const pageReply = await fetch(`${h.url}/agent/claim?token=${encodeURIComponent(reg.claim_token)}`, { headers: { cookie: `session=${human.session}` } });
      expect(pageReply.status).toBe(200);
      const text = (await pageReply.text()).replace(/<[^>]+>/g, ' ').replace(/\s+/g, ' ');
      expect(text).toContain('it can use the whole API as you');
      expect(text).toContain('delete teams you own');

      // What the page warns about is real: once confirmed, the key deletes the person's team.
      const team = await call<{ id: string }>(h.url, 'POST', '/api/teams', { token: human.session, body: { name: 'mine' } });
      expect(team.status).toBe(201);
      expect((await call(h.url, 'POST', '/api/agent/auth/claim/confirm', { token: human.session, body: { claim_token: reg.claim_token } })).status).toBe(200);
      expect((await call(h.url, 'DELETE', `/api/teams/${team.body.id}`, { token: reg.credential })).status).toBe(204);
    });
  },
  AGENT_ENV,
);
