/**
 * Mail without SMTP_URL (docs/security.md, "Log redaction"; docs/agents.md, "Mail"): the one-time
 * code is in DATA_DIR/outbox.jsonl; the log gets it only when stderr is a terminal (a developer's
 * `npm start`), otherwise one line naming the file. A node whose BASE_URL is not local warns once
 * at start that its mail goes to the outbox.
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { call, eventually } from '../support/client';
import { freePort, seedPglite, serviceEnv, startServer, stopServer, type TestServer } from '../support/server';
import { describeBackends } from '../support/suite';
import { AGENT_ENV, uniqueEmail } from './agent-support';

const { SMTP_URL: _smtp, ...WITHOUT_SMTP } = AGENT_ENV;
const ROOT = resolve(import.meta.dir, '..', '..');
const WARNING = 'no SMTP_URL: mail';

type OutboxLine = { to: string; subject: string; text: string; from: string };

function outboxLine(dataDir: string, email: string): OutboxLine | undefined {
  const file = join(dataDir, 'outbox.jsonl');
  if (!existsSync(file)) return undefined;
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((l) => JSON.parse(l) as OutboxLine)
    .find((m) => m.to === email);
}

const codeOf = (m: OutboxLine | undefined) => /one-time code: (\d{6})/.exec(m?.text ?? '')?.[1] ?? '';

describeBackends(
  'agent mail without SMTP_URL: the development outbox',
  (h) => {
    test('the one-time code is written to DATA_DIR/outbox.jsonl (mode 0600); the log (not a terminal) names the file, never the code', async () => {
      const email = uniqueEmail('outbox');
      const r = await call(h.url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'outbox-bot' } });
      expect(r.status).toBe(201);
      const file = join(h.server.dataDir, 'outbox.jsonl');
      expect(existsSync(file)).toBe(true);
      expect(statSync(file).mode & 0o777).toBe(0o600);
      const line = outboxLine(h.server.dataDir, email);
      expect(line?.subject).toBe('Your hookcap verification code');
      expect(line?.from).toBe('hookcap <no-reply@localhost>');
      const otp = codeOf(line);
      expect(otp).toMatch(/^\d{6}$/);
      const logged = await eventually(async () =>
        h.server
          .output()
          .split('\n')
          .filter((l) => l.includes(email))
          .map((l) => JSON.parse(l) as Record<string, unknown>)
          .find((l) => String(l.msg).startsWith('mail written to the outbox')),
      );
      expect(logged).toMatchObject({ level: 'info', msg: 'mail written to the outbox (no SMTP_URL); its text is in the file', file, to: email, subject: 'Your hookcap verification code' });
      expect(logged.text).toBeUndefined();
      expect(h.server.output()).not.toContain(otp);
      expect(h.server.output()).not.toContain('one-time code:');
      // BASE_URL is 127.0.0.1: a developer's node, no warning.
      expect(h.server.output()).not.toContain(WARNING);
      const ok = await call(h.url, 'POST', '/api/agent/auth/claim/verify-otp', { body: { claim_token: r.body.claim_token, otp } });
      expect(ok.status).toBe(200);
    });
  },
  { ...WITHOUT_SMTP, LOG_LEVEL: 'info' },
);

describe('a deployed node without SMTP_URL', () => {
  const servers: TestServer[] = [];
  afterAll(async () => {
    for (const s of servers) await stopServer(s);
  });

  test('BASE_URL not local: one warning at start naming the outbox file; none with SMTP_URL set or on a node without the api role', async () => {
    const deployed = await startServer({ env: { ...WITHOUT_SMTP, BASE_URL: 'https://hookcap.example.com' } });
    servers.push(deployed);
    const warnings = deployed
      .output()
      .split('\n')
      .filter((l) => l.includes(WARNING));
    expect(warnings).toHaveLength(1);
    expect(JSON.parse(warnings[0] ?? '{}')).toMatchObject({ level: 'warn', file: join(deployed.dataDir, 'outbox.jsonl'), baseUrl: 'https://hookcap.example.com' });

    // SMTP_URL set (nothing is sent at start, so no server need answer there).
    const withSmtp = await startServer({ env: { ...WITHOUT_SMTP, BASE_URL: 'https://hookcap.example.com', SMTP_URL: 'smtp://127.0.0.1:2525' } });
    servers.push(withSmtp);
    // A receiver sends no mail.
    const receiver = await startServer({ env: { ...WITHOUT_SMTP, BASE_URL: 'https://hookcap.example.com', ROLES: 'receiver' } });
    servers.push(receiver);
    expect(withSmtp.output()).not.toContain(WARNING);
    expect(receiver.output()).not.toContain(WARNING);
  }, 120_000);
});

/**
 * A developer's `npm start`: stderr is a terminal (a pseudo-terminal made by script(1)), and the
 * code is in the log they are looking at. Embedded backend, its own port and data dir.
 */
test('on a terminal, the outbox also logs the mail\'s text, code included', async () => {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-tty-'));
  await seedPglite(dataDir);
  const env = { PATH: process.env.PATH ?? '', HOME: process.env.HOME ?? '/tmp', ...serviceEnv(port, dataDir), ...WITHOUT_SMTP, LOG_LEVEL: 'info' };
  const command = `exec ${process.execPath} ${join(ROOT, 'src', 'main.ts')}`;
  const proc = Bun.spawn(['script', '-qefc', command, '/dev/null'], { cwd: ROOT, env, stdin: 'pipe', stdout: 'pipe', stderr: 'pipe' });
  let out = '';
  void (async () => {
    const dec = new TextDecoder();
    for await (const chunk of proc.stdout) out += dec.decode(chunk);
  })();
  const url = `http://127.0.0.1:${port}`;
  try {
    await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null))?.ok, 55_000);
    const email = uniqueEmail('tty');
    const r = await call(url, 'POST', '/api/agent/auth', { body: { type: 'verified_email', email, client_name: 'tty-bot' } });
    expect(r.status).toBe(201);
    const otp = codeOf(outboxLine(dataDir, email));
    expect(otp).toMatch(/^\d{6}$/);
    await eventually(async () => out.includes(`one-time code: ${otp}`), 10_000);
    expect(out).toContain('"msg":"mail written to the outbox (no SMTP_URL)"');
  } finally {
    proc.kill('SIGTERM');
    await proc.exited;
    // script(1) hangs the terminal up; the service exits on SIGHUP. Wait for its port to close.
    await eventually(async () => (await fetch(`${url}/healthz`).catch(() => null)) === null, 15_000).catch(() => {});
    rmSync(dataDir, { recursive: true, force: true });
  }
}, 90_000);
