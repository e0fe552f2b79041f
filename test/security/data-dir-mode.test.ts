/**
 * DATA_DIR holds captures (strangers' bodies), password and token hashes and, on PGlite, the
 * server secret. A DATA_DIR the service creates is private to its user (0700); one that exists
 * with group or other access is left as the operator made it, with a warning naming the fix.
 * The real service as a subprocess, embedded backends (the directory matters only there).
 */
import { afterAll, describe, expect, test } from 'bun:test';
import { chmodSync, mkdirSync, mkdtempSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { seedPglite, startServer, stopServer } from '../support/server';

const root = mkdtempSync(join(tmpdir(), 'hookcap-datadir-mode-'));
afterAll(() => rmSync(root, { recursive: true, force: true }));

const WARNING = 'DATA_DIR can be read by other users of this machine';

/**
 * A DATA_DIR that does not exist cannot be seeded with the PGlite template (seeding creates it), so
 * this start runs initdb in WebAssembly: ~3.5 s of CPU on a quiet machine, over 55 s of wall time
 * at a load average of 20 (CI beside other suites). The room is for the machine, not the service.
 */
const FRESH_START_MS = 170_000;

describe('the data directory is private', () => {
  test(
    'a DATA_DIR the service creates is 0700, and no warning is written',
    async () => {
      const dir = join(root, 'fresh', 'data');
      const s = await startServer({ dataDir: dir, healthyWithinMs: FRESH_START_MS });
      try {
        expect((statSync(dir).mode & 0o777).toString(8)).toBe('700');
        expect(s.output()).not.toContain(WARNING);
      } finally {
        await stopServer(s);
      }
    },
    FRESH_START_MS + 10_000,
  );

  test('an existing DATA_DIR open to others is kept as it is, with a warning that says chmod 700', async () => {
    const dir = join(root, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    await seedPglite(dir);
    const s = await startServer({ dataDir: dir });
    try {
      expect((statSync(dir).mode & 0o777).toString(8)).toBe('755');
      const line = s.output().split('\n').find((l) => l.includes(WARNING));
      expect(line).toBeDefined();
      expect(JSON.parse(line ?? '{}')).toMatchObject({ level: 'warn', dir, mode: '755' });
      expect(line).toContain('chmod 700');
    } finally {
      await stopServer(s);
    }
  });
});
