import { expect, test } from 'bun:test';
import { existsSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { call, eventually } from '../support/client';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from './agent-support';

const { SMTP_URL: _smtp, ...WITHOUT_SMTP } = AGENT_ENV;

describeBackends(
  'agent mail without SMTP_URL: the development outbox',
  (h) => {
    test('the one-time code is written to DATA_DIR/outbox.jsonl (mode 0600) and to the log', async () => {
      const email = uniqueEmail('outbox');
      const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'outbox-bot' } });
      expect(r.status).toBe(201);
      const file = join(h.server.dataDir, 'outbox.jsonl');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const line = readFileSync(file, 'utf8')
        .split('\n')
        .filter(Boolean)
        .map((l) => JSON.parse(l) as { to: string; subject: string; text: string; from: string })
        .find((m) => m.to === email);
      expect(line?.subject).toBe('Your hookcap verification code');
      expect(line?.from).toBe('hookcap <no-reply@localhost>');
      const otp = /one-time code: (\d{6})/.exec(line?.text ?? '')?.[1] ?? '';
      expect(otp).toMatch(/^\d{6}$/);
      await eventually(async () => h.server.output().includes(email) && h.server.output().includes('outbox'));
      const ok = await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: r.body.claim_token, otp } });
      expect(ok.status).toBe(200);
    });
  },
  { ...WITHOUT_SMTP, LOG_LEVEL: 'info' },
);
