/**
 * The process environment the service starts with (src/process-env.ts): `npm start` and the Docker
 * image set it, a value already in the environment wins, and the runtime really reads it.
 */
import { describe, expect, test } from 'bun:test';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { PROCESS_ENV_DEFAULTS } from '../../src/process-env';

const ROOT = join(import.meta.dir, '..', '..');
const startScript = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { scripts: { start: string } }).scripts.start;

/** Runs `npm start`'s shell line with the service swapped for a script printing the variable. */
function startScriptSees(name: string, env: Record<string, string>): string {
  const line = startScript.replace('bun src/main.ts', `bun -e 'console.log(process.env.${name})'`);
  expect(line).not.toBe(startScript);
  const r = Bun.spawnSync(['sh', '-c', line], { cwd: ROOT, env: { PATH: `${join(ROOT, 'node_modules', '.bin')}:${process.env.PATH ?? ''}`, ...env } });
  expect(r.exitCode).toBe(0);
  return r.stdout.toString().trim();
}

describe('process environment', () => {
  for (const [name, value] of Object.entries(PROCESS_ENV_DEFAULTS)) {
    test(`npm start sets ${name}=${value}, and a value in the environment wins`, () => {
      expect(startScriptSees(name, {})).toBe(value);
      expect(startScriptSees(name, { [name]: '250' })).toBe('250');
    });

    test(`the Docker image sets ${name}=${value}`, () => {
      const envLines = readFileSync(join(ROOT, 'Dockerfile'), 'utf8').split('\n').filter((l) => l.startsWith('ENV '));
      expect(envLines.some((l) => l.split(/\s+/).includes(`${name}=${value}`))).toBe(true);
    });
  }

  test('the runtime reads MIMALLOC_PURGE_DELAY at start', () => {
    // mimalloc prints its options with MIMALLOC_VERBOSE; a runtime that stopped reading the
    // variable (another allocator, options compiled in) would show its own value here.
    const value = PROCESS_ENV_DEFAULTS.MIMALLOC_PURGE_DELAY;
    const r = Bun.spawnSync([process.execPath, '-e', '0'], { env: { PATH: process.env.PATH ?? '', MIMALLOC_VERBOSE: '1', MIMALLOC_PURGE_DELAY: value } });
    const options = r.stderr.toString();
    expect(options).toMatch(new RegExp(`option 'purge_delay': ${value}\\b`));
  });
});
