/**
 * Shared pieces of the agent behaviour suites: server settings, registration helpers, and reading
 * one-time codes from the mail the server really sent (the SMTP sink of scripts/services.sh, or
 * the outbox file when the suite runs embedded-only without services).
 */
import { expect } from 'bun:test';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { BACKENDS } from '../support/backends';
import type { Capture } from '../../src/model/capture';
import type { pollRegistration } from '../../src/services/agent/claim';
import type * as register from '../../src/services/agent/register';
import type { revokeBySubject } from '../../src/services/agent/revoke';
import type { listSandboxEndpoints } from '../../src/services/agent/sandbox';
import { call, eventually, type ErrorFields, type Reply } from '../support/client';
import type { TestServer } from '../support/server';

/** The SMTP sink (scripts/smtp-sink.py) runs whenever the server backend is under test. */
export const USE_SMTP = BACKENDS.includes('server');
export const SMTP_SINK_URL = process.env.TEST_SMTP_URL ?? 'smtp://127.0.0.1:2525';
export const SMTP_SINK_FILE = process.env.SMTP_SINK_FILE ?? '/tmp/hookcap-smtp-sink.jsonl';

/** Settings every agent suite starts from: generous agent limits (their own suite narrows them). */
export const AGENT_ENV: Record<string, string> = {
  AGENT_RATE_LIMIT_IP: '100000/600',
  AGENT_RATE_LIMIT_EMAIL: '100000/600',
  ...(USE_SMTP ? { SMTP_URL: SMTP_SINK_URL } : {}),
};

/** Every agent error: `{error: <SPEC 7.2 code>, error_description}` with the expected status. */
export function expectAgentError(r: Reply, status: number, code: string): void {
  if (r.status !== status || (r.body as { error?: unknown })?.error !== code) {
    throw new Error(`expected ${status} ${code}, got ${r.status} ${r.text}`);
  }
  expect(r.headers.get('content-type') ?? '').toContain('application/json');
  expect(typeof (r.body as { error_description?: unknown }).error_description).toBe('string');
}

let seq = 0;
export const uniqueEmail = (tag = 'agent') => `${tag}-${Date.now()}-${++seq}-${Math.random().toString(36).slice(2, 7)}@example.com`;

export type AnonymousRegistration = Awaited<ReturnType<typeof register.registerAnonymous>>;

// The agent routes answer with what their verbs return (their schemas are not declared yet), so
// their replies are typed from the verbs.
type Answer<F extends (...args: never[]) => unknown> = Awaited<ReturnType<F>>;
/** `POST /api/agent/auth`: the anonymous flow, the verified-email flow, an identity assertion. */
export type AnonymousReply = AnonymousRegistration & ErrorFields;
export type EmailReply = Answer<typeof register.registerVerifiedEmail> & ErrorFields;
export type AssertionReply = Answer<typeof register.registerWithAssertion> & ErrorFields;
/** `POST /api/agent/auth/poll`: one of its answers (pending or claimed). */
export type PollReply = Answer<typeof pollRegistration> & ErrorFields;
/** `POST /api/agent/auth/revoke`. */
export type RevokeReply = Answer<typeof revokeBySubject> & ErrorFields;
/** `GET /api/agent/sandbox/endpoints` (without `slug`). */
export type SandboxList = Answer<typeof listSandboxEndpoints>;
/** `GET /api/agent/sandbox/endpoints?slug=`. */
export type SandboxCaptures = Capture[];

export async function registerAnonymous(base: string, clientName = 'test agent'): Promise<AnonymousRegistration> {
  const r = await call<AnonymousRegistration>(base, 'POST', '/api/agent/auth', {
    body: { type: 'anonymous', requested_credential_type: 'api_key', client_name: clientName },
  });
  if (r.status !== 201) throw new Error(`anonymous registration failed: ${r.status} ${r.text}`);
  return r.body;
}

export async function signUp(base: string, email = uniqueEmail('human')): Promise<{ session: string; email: string; userId: string }> {
  const r = await call(base, 'POST', '/api/auth/signup', { body: { email, password: 'correct horse battery' } });
  if (r.status !== 201) throw new Error(`signup failed: ${r.status} ${r.text}`);
  return { session: r.body.token, email, userId: r.body.user.id };
}

interface MailRecord {
  to: string;
  text: string;
}

function sinkMessages(): MailRecord[] {
  if (!existsSync(SMTP_SINK_FILE)) return [];
  return readFileSync(SMTP_SINK_FILE, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as { rcpt_tos: string[]; data: string })
    // Undo quoted-printable soft line breaks, so a wrapped line reads whole.
    .flatMap((m) => m.rcpt_tos.map((to) => ({ to, text: m.data.replace(/=\r?\n/g, '') })));
}

function outboxMessages(server: Pick<TestServer, 'dataDir'>): MailRecord[] {
  const file = join(server.dataDir, 'outbox.jsonl');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as MailRecord);
}

/** Every message the server sent to `to`, in order, from the sink (SMTP) or its outbox. */
export function mailTo(server: Pick<TestServer, 'dataDir'>, to: string): MailRecord[] {
  const all = USE_SMTP ? sinkMessages() : outboxMessages(server);
  return all.filter((m) => m.to.toLowerCase() === to.toLowerCase());
}

/**
 * The one-time code of the newest code mail sent to `to`, once at least `count` have arrived.
 * Other mail to the address (a signed-up account's verification link) is passed over.
 */
export async function otpFor(server: Pick<TestServer, 'dataDir'>, to: string, count = 1): Promise<string> {
  return eventually(async () => {
    const codes = mailTo(server, to)
      .map((m) => /one-time code: (\d{6})\b/.exec(m.text)?.[1])
      .filter((c): c is string => c !== undefined);
    return codes.length < count ? null : (codes.at(-1) ?? null);
  }, 10_000);
}

/** A six-digit code that is not `otp`. */
export const wrongOtp = (otp: string) => String((Number(otp) + 1) % 1_000_000).padStart(6, '0');
