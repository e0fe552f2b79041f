import { expect, test } from 'bun:test';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, expectAgentError } from './agent-support';

const CAP = 4;
const BURST = 40;

describeBackends(
  'agent registration: AGENT_MAX_PENDING holds under a concurrent burst',
  (h) => {
    const anonymous = (i: number) => call(h.url, 'POST', '/api/agent/auth', { body: { type: 'anonymous', client_name: `burst ${i}` } });

    test(`${BURST} registrations at once against a cap of ${CAP}: exactly ${CAP} succeed, the rest are temporarily_unavailable`, async () => {
      const replies = await Promise.all(Array.from({ length: BURST }, (_, i) => anonymous(i)));
      const created = replies.filter((r) => r.status === 201);
      const refused = replies.filter((r) => r.status !== 201);
      expect(created.length).toBe(CAP);
      for (const r of refused) expectAgentError(r, 503, 'temporarily_unavailable');
      // The winners are real registrations, each pending with its own token.
      const tokens = new Set(created.map((r) => r.body.claim_token as string));
      expect(tokens.size).toBe(CAP);
      for (const claim_token of tokens) {
        expect((await call(h.url, 'POST', '/api/agent/auth/poll', { body: { claim_token } })).body.status).toBe('pending');
      }
      // A second burst finds the cap already full.
      const again = await Promise.all(Array.from({ length: 10 }, (_, i) => anonymous(BURST + i)));
      for (const r of again) expectAgentError(r, 503, 'temporarily_unavailable');
      // Shedding load on purpose is a warning in the log, never an error (src/http/errors.ts).
      const refusals = BURST - CAP + again.length;
      const shed = await eventually(async () => {
        const lines = h.server
          .output()
          .split('\n')
          .filter((l) => l.includes('"temporarily_unavailable"'))
          .map((l) => JSON.parse(l) as { level: string });
        return lines.length >= refusals && lines;
      });
      expect(new Set(shed.map((l) => l.level))).toEqual(new Set(['warn']));
    });
  },
  { ...AGENT_ENV, AGENT_MAX_PENDING: String(CAP) },
);
