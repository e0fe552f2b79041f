/**
 * A bad setting stops the real server process before it opens anything: a non-zero exit and one
 * line naming the variable, never a stack trace. The values are refused by config alone, so no
 * backend is involved and the suite runs once.
 */
import { describe, expect, test } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort, runUntilExit, type ExitedRun } from '../support/server';

async function startExpectingExit(env: Record<string, string>): Promise<ExitedRun & { dataDir: string }> {
  const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-badconfig-'));
  return { ...(await runUntilExit({ PORT: String(await freePort()), DATA_DIR: dataDir, ...env }, 20_000)), dataDir };
}

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
    }, 30_000);
  }

  test('the same value is refused on a node without the api role', async () => {
    const r = await startExpectingExit({ ROLES: 'receiver', AGENT_IDJAG_PROVIDERS: '[{"iss":"http://idp.example"}]' });
    rmSync(r.dataDir, { recursive: true, force: true });
    expect(r.code).toBe(2);
    expect(r.stderr.trim()).toStartWith('config: AGENT_IDJAG_PROVIDERS[0]');
  }, 30_000);

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
  }, 30_000);
});
