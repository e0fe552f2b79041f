/**
 * Finding 6: what the logger writes (src/log.ts), read from a real process's stderr. A failed SQL
 * statement's parameters, fields named like secrets, our tokens and password hashes never appear.
 */
import { expect, test } from 'bun:test';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..', '..');

/** Runs `script` with the repository's Bun and returns what it wrote to stderr. */
async function stderrOf(script: string): Promise<string> {
  const proc = Bun.spawn([process.execPath, '-e', script], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
  const err = await new Response(proc.stderr).text();
  await proc.exited;
  return err;
}

const SECRETS = {
  signing: 'whsec_c2lnbmluZy1zZWNyZXQtdmFsdWU',
  hash: '$argon2id$v=19$m=65536,t=2,p=1$c2FsdHNhbHQ$aGFzaGhhc2hoYXNoaGFzaA',
  key: `svc_${'k'.repeat(43)}`,
  session: `ses_${'s'.repeat(43)}`,
  plain: 'plain-words-that-are-a-secret',
};

test('a failed query is logged without its parameters; secrets are redacted by field name and by shape', async () => {
  const err = await stderrOf(`
    const { DrizzleQueryError } = await import('drizzle-orm/errors');
    const { log, describeError } = await import(${JSON.stringify(join(ROOT, 'src/log.ts'))});
    const cause = Object.assign(new Error('invalid byte sequence for encoding "UTF8": 0x00'), { code: '22021' });
    const failed = new DrizzleQueryError('update "endpoints" set "signing" = $1, "password_hash" = $2', [${JSON.stringify(SECRETS.signing)}, ${JSON.stringify(SECRETS.hash)}], cause);
    log.error('unhandled error', { error: describeError(failed) });
    log.error('as text', { error: String(failed), stack: failed.stack });
    log.warn('fields', { password: ${JSON.stringify(SECRETS.plain)}, signingSecret: ${JSON.stringify(SECRETS.plain)}, nested: { apiKey: ${JSON.stringify(SECRETS.plain)}, list: [{ token: ${JSON.stringify(SECRETS.plain)} }] }, authorization: 'Bearer ' + ${JSON.stringify(SECRETS.key)}, cookie: 'session=' + ${JSON.stringify(SECRETS.session)}, passwordHash: ${JSON.stringify(SECRETS.hash)}, code: 'validation', slug: 'abcdefghijkm' });
    log.info('a message that quotes a key', { reason: 'refused ' + ${JSON.stringify(SECRETS.key)} + ' and ' + ${JSON.stringify(SECRETS.session)} });
  `);
  const lines = err.trim().split('\n').map((l) => JSON.parse(l));
  expect(lines.length).toBe(4);
  for (const secret of Object.values(SECRETS)) expect(err).not.toContain(secret);
  expect(err).not.toContain('$argon2');
  const [described, asText, fields, quoted] = lines;
  expect(described.error.name).toBe('DrizzleQueryError');
  expect(described.error.message).toContain('update "endpoints" set "signing" = $1');
  expect(described.error.message).toContain('params: [redacted]');
  expect(described.error.sqlState).toBe('22021');
  expect(asText.error).toContain('params: [redacted]');
  expect(fields).toMatchObject({ password: '[redacted]', signingSecret: '[redacted]', authorization: '[redacted]', cookie: '[redacted]', passwordHash: '[redacted]', code: 'validation', slug: 'abcdefghijkm' });
  expect(fields.nested).toEqual({ apiKey: '[redacted]', list: [{ token: '[redacted]' }] });
  expect(quoted.reason).toBe('refused svc_[redacted] and ses_[redacted]');
});

test('a password-reset link mailed through the development outbox is in the outbox file, never in the log', async () => {
  const token = `rst_${'r'.repeat(43)}`;
  const dir = mkdtempSync(join(tmpdir(), 'hookcap-outbox-'));
  const file = join(dir, 'outbox.jsonl');
  // showText: what a terminal gets (the text, with the token masked); without it, what a collected
  // log gets (one line naming the file, no text at all).
  const err = await stderrOf(`
    const { createOutboxMailer } = await import(${JSON.stringify(join(ROOT, 'src/mail/outbox.ts'))});
    const text = 'Choose a new password here:\\nhttp://localhost:3000/reset-password#token=${token}\\n';
    await createOutboxMailer({ file: ${JSON.stringify(file)}, from: 'hookcap <no-reply@localhost>', showText: true }).sendMail({ to: 'ada@example.com', subject: 'Reset your hookcap password', text });
    await createOutboxMailer({ file: ${JSON.stringify(file)}, from: 'hookcap <no-reply@localhost>' }).sendMail({ to: 'ada@example.com', subject: 'Reset your hookcap password', text });
  `);
  const [onTerminal, collected] = err.trim().split('\n').map((l) => JSON.parse(l));
  expect(err).not.toContain(token);
  expect(onTerminal.msg).toBe('mail written to the outbox (no SMTP_URL)');
  expect(onTerminal.text).toContain('#token=rst_[redacted]');
  expect(collected.msg).toBe('mail written to the outbox (no SMTP_URL); its text is in the file');
  expect(collected).toMatchObject({ file, to: 'ada@example.com', subject: 'Reset your hookcap password' });
  expect(collected.text).toBeUndefined();
  expect(readFileSync(file, 'utf8')).toContain(token);
  rmSync(dir, { recursive: true, force: true });
});

test("a replay target that did not answer (502 bad_gateway) is the caller's trouble: not logged; a 5xx of our own is", async () => {
  const err = await stderrOf(`
    const { AppError } = await import(${JSON.stringify(join(ROOT, 'src/errors.ts'))});
    const { errorResponse } = await import(${JSON.stringify(join(ROOT, 'src/http/errors.ts'))});
    const gateway = errorResponse(new AppError('bad_gateway', 'the target did not answer: connection refused by intranet.example:8080'));
    const ours = errorResponse(new AppError('internal', 'a fault of our own'));
    console.error(JSON.stringify({ statuses: [gateway.status, ours.status] }));
  `);
  const lines = err.trim().split('\n').map((l) => JSON.parse(l) as { level?: string; msg?: string; error?: string; statuses?: number[] });
  expect(lines.filter((l) => l.level === 'error').map((l) => l.error)).toEqual(['a fault of our own']);
  expect(err).not.toContain('intranet.example');
  expect(lines.at(-1)?.statuses).toEqual([502, 500]);
});
