/**
 * A bad setting stops the real server process before it opens anything: a non-zero exit and one
 * line naming the variable, never a stack trace. The values are refused by config alone, so no
 * backend is involved and the suite runs once.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runUntilExit, seedPglite, type ExitedRun } from '../support/server';

async function startExpectingExit(env: Record<string, string>, opts: { seed?: boolean } = {}): Promise<ExitedRun & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-badconfig-'));
  if (opts.seed) await seedPglite(dataDir);
  return { ...(await runUntilExit({ PORT: String(await freePort()), DATA_DIR: dataDir, ...env }, 60_000)), dataDir };
}

/** One line on stderr, as given, with no stack trace and no "ready". */
function expectOneLine(r: ExitedRun, code: number, line: string | RegExp): void {
  expect(r.code).toBe(code);
  const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
  expect(lines).toHaveLength(1);
  if (typeof line === 'string') expect(lines[0]).toBe(line);
  else expect(lines[0]).toMatch(line);
  expect(r.stderr).not.toMatch(/^\s+at /m);
  expect(r.stdout).not.toContain('hookcap ready');
}

/**
 * Values the old checks let through: each failed later with a stack trace or an unrelated message
 * (PORT=70000 at listen, a RECEIVER_PORT equal to PORT as "address in use", DATABASE_URL=http://…
 * inside the Postgres client), or started a node that could not work (BASE_URL without a scheme
 * made every link "localhost:3000/…", ROLES="," served nothing, an http SMTP_URL failed each mail).
 */
const BAD_VALUES: [Record<string, string>, string | RegExp][] = [
  [{ PORT: '70000' }, 'config: PORT must be at most 65535, got 70000'],
  [{ PORT: '3999', RECEIVER_PORT: '3999' }, 'config: RECEIVER_PORT must differ from PORT (both 3999); leave it unset to serve /w/ on PORT'],
  [{ BASE_URL: 'localhost:3000' }, 'config: BASE_URL must be a http:// or https:// URL with a host, got "localhost:3000"'],
  [{ RECEIVER_URL: 'ftp://hooks.example.com' }, 'config: RECEIVER_URL must be a http:// or https:// URL with a host, got "ftp://hooks.example.com"'],
  // The password in a refused URL is not echoed.
  [{ DATABASE_URL: 'http://hookcap:s3cret-pw@127.0.0.1:5432/hookcap' }, 'config: DATABASE_URL must be a postgres:// or postgresql:// URL with a host, got "http://…@127.0.0.1:5432/hookcap"'],
  [{ CLICKHOUSE_URL: 'clickhouse:8123' }, 'config: CLICKHOUSE_URL must be a http:// or https:// URL with a host, got "clickhouse:8123"'],
  [{ NATS_URL: 'nats://127.0.0.1:4222,http://127.0.0.1:4223' }, 'config: NATS_URL must be a nats:// or tls:// URL with a host, got "http://127.0.0.1:4223"'],
  [{ SMTP_URL: 'http://mail.example.com' }, 'config: SMTP_URL must be a smtp:// or smtps:// URL with a host, got "http://mail.example.com"'],
  [{ ROLES: ',' }, 'config: ROLES must name at least one role (receiver, api, stream), got ","'],
  [{ NATS_PREFIX: 'hook cap' }, 'config: NATS_PREFIX must be letters, digits, "_" or "-", in parts separated by dots, got "hook cap"'],
  // MAIL_FROM reaches nodemailer as the From header and the envelope sender: a line break there
  // made "evil@example.com" the envelope sender, a comma a second From address.
  [{ MAIL_FROM: 'hookcap <no-reply@example.com>\r\nBcc: evil@example.com' }, 'config: MAIL_FROM must be one address, optionally with a name ("hookcap <no-reply@example.com>"), on one line, got "hookcap <no-reply@example.com>\\r\\nBcc: evil@example.com"'],
  [{ MAIL_FROM: 'no-reply@example.com, evil@example.com' }, 'config: MAIL_FROM must be one address, optionally with a name ("hookcap <no-reply@example.com>"), on one line, got "no-reply@example.com, evil@example.com"'],
  // The secret itself is never echoed.
  [{ SERVER_SECRET: 'hunter2-s3cret-pw' }, 'config: SERVER_SECRET must be at least 32 characters without spaces or line breaks (e.g. openssl rand -hex 32), got 17 characters'],
  [{ SERVER_SECRET: `${'s3cret-pw'.repeat(4)}\n` }, 'config: SERVER_SECRET must be at least 32 characters without spaces or line breaks (e.g. openssl rand -hex 32), got white space in it'],
  [{ METRICS_TOKEN: 's3cret-pw' }, 'config: METRICS_TOKEN must be at least 24 characters without spaces (e.g. openssl rand -hex 32)'],
  // A scraper's config would otherwise hold the operator's token.
  [{ ADMIN_TOKEN: 's3cret-pw-0123456789abcdef', METRICS_TOKEN: 's3cret-pw-0123456789abcdef' }, 'config: METRICS_TOKEN must differ from ADMIN_TOKEN (a scraper needs no operator rights)'],
  // A default above its maximum was lowered to it without a word.
  [{ LIST_DEFAULT_LIMIT: '5000' }, 'config: LIST_DEFAULT_LIMIT must be at most LIST_MAX_LIMIT (1000), got 5000'],
  [{ SEARCH_MAX_LIMIT: '100', SEARCH_DEFAULT_LIMIT: '200' }, 'config: SEARCH_DEFAULT_LIMIT must be at most SEARCH_MAX_LIMIT (100), got 200'],
];

const BAD_PROVIDERS: [string, string, RegExp][] = [
  ['not JSON', '[{"iss":', /must be valid JSON/],
  ['not an array', '{"iss":"https://idp.example"}', /must be a JSON array/],
  ['an http issuer', '[{"iss":"http://idp.example"}]', /AGENT_IDJAG_PROVIDERS\[0\] \(iss "http:\/\/idp\.example"\): iss must be an https URL/],
  ['an unknown field', '[{"iss":"https://idp.example","jwks_url":"https://idp.example/k"}]', /unknown field\(s\) "jwks_url"/],
  ['a symmetric algorithm', '[{"iss":"https://idp.example","algs":["HS256"]}]', /symmetric algorithm "HS256"/],
  ['a line break inside a value', '[{"iss":"https://idp.example\\n/x","bad":1}]', /AGENT_IDJAG_PROVIDERS\[0\] \(iss "https:\/\/idp\.example \/x"\): unknown field/],
];

describe('start-up with a bad setting', () => {
  for (const [what, value, detail] of BAD_PROVIDERS) {
    test(`AGENT_IDJAG_PROVIDERS with ${what}: exit 2 and one line naming it, no stack trace`, async () => {
      const r = await startExpectingExit({ AGENT_IDJAG_PROVIDERS: value });
      try {
        expect(r.code).toBe(2);
        const lines = r.stderr.split('\n').filter((l) => l.trim() !== '');
        expect(lines).toHaveLength(1);
        expect(lines[0]).toStartWith('config: AGENT_IDJAG_PROVIDERS');
        expect(lines[0]).toMatch(detail);
        expect(r.stderr).not.toMatch(/^\s+at /m);
        expect(r.stdout).not.toContain('hookcap ready');
      } finally {
        rmSync(r.dataDir, { recursive: true, force: true });
      }
    }, 90_000);
  }

  test('the same value is refused on a node without the api role', async () => {
    const r = await startExpectingExit({ ROLES: 'receiver', AGENT_IDJAG_PROVIDERS: '[{"iss":"http://idp.example"}]' });
    rmSync(r.dataDir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toStartWith('config: AGENT_IDJAG_PROVIDERS[0]');
  }, 90_000);

  test('an http issuer is accepted with AGENT_ALLOW_INSECURE_ISSUERS=true (the check follows that setting)', async () => {
    const r = await startExpectingExit({
      AGENT_ALLOW_INSECURE_ISSUERS: 'true',
      AGENT_IDJAG_PROVIDERS: '[{"iss":"http://idp.example"}]',
      // A second, unrelated bad value stops it right after config is read, so nothing is started.
      INVITE_TTL_DAYS: '0',
    });
    rmSync(r.dataDir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toBe('config: INVITE_TTL_DAYS must be a number > 0, got "0"');
  }, 90_000);

  for (const [env, line] of BAD_VALUES) {
    test(`${JSON.stringify(env)}: exit 2 and one line naming it`, async () => {
      const r = await startExpectingExit(env);
      rmSync(r.dataDir, { recursive: true, force: true });
      expectOneLine(r, 2, line);
      expect(r.stderr).not.toContain('s3cret-pw');
    }, 90_000);
  }
});

test('a DATA_DIR that cannot be a directory: exit 1 and one line naming DATA_DIR', async () => {
  const parent = mkdtempSync(join(tmpdir(), 'hookcap-datadir-file-'));
  const file = join(parent, 'not-a-dir');
  writeFileSync(file, '');
  try {
    const r = await runUntilExit({ PORT: String(await freePort()), DATA_DIR: file }, 60_000);
    expectOneLine(r, 1, new RegExp(`^DATA_DIR ${file} cannot be used: EEXIST`));
  } finally {
    rmSync(parent, { recursive: true, force: true });
  }
}, 90_000);

describe('start-up with a server backend that cannot be reached', () => {
  // Ports 1 and 2 of 127.0.0.1: privileged, nothing listens there (a free port picked now could be
  // taken by another process before the node connects). The embedded PGlite stands in for Postgres
  // where another backend is the one under test, so no shared service is needed (or touched).
  test('DATABASE_URL: exit 1 and one line naming it and its host, no password, no stack trace', async () => {
    const port = 1;
    const r = await startExpectingExit({ DATABASE_URL: `postgres://hookcap:s3cret-pw@127.0.0.1:${port}/hookcap` });
    rmSync(r.dataDir, { recursive: true, force: true });
    expectOneLine(r, 1, `DATABASE_URL: could not open 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(r.stderr).not.toContain('s3cret-pw');
  }, 90_000);

  test('CLICKHOUSE_URL: one line, and none of the ClickHouse client\'s own text on stderr', async () => {
    const port = 1;
    const r = await startExpectingExit({ CLICKHOUSE_URL: `http://default:s3cret-pw@127.0.0.1:${port}/hookcap` }, { seed: true });
    rmSync(r.dataDir, { recursive: true, force: true });
    expectOneLine(r, 1, `CLICKHOUSE_URL: could not open 127.0.0.1:${port}: connect ECONNREFUSED 127.0.0.1:${port}`);
    expect(r.stderr).not.toContain('s3cret-pw');
  }, 90_000);

  test('NATS_URL with two servers: one line naming both hosts', async () => {
    const [a, b] = [1, 2];
    const r = await startExpectingExit({ NATS_URL: `nats://hc:s3cret-pw@127.0.0.1:${a},nats://127.0.0.1:${b}` }, { seed: true });
    rmSync(r.dataDir, { recursive: true, force: true });
    expectOneLine(r, 1, `NATS_URL: could not open 127.0.0.1:${a}, 127.0.0.1:${b}: CONNECTION_REFUSED`);
    expect(r.stderr).not.toContain('s3cret-pw');
  }, 90_000);
});
