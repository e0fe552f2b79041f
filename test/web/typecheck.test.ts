/**
 * The dashboard calls the API through types inferred from the server's own routes (Eden Treaty
 * over ApiApp), so a renamed field or route must fail the suite, not the page. CI runs only
 * `npm install` and `npm test`; this runs the dashboard's typecheck (`tsc -p web`, DOM library).
 */
import { expect, test } from 'bun:test';
import { join, resolve } from 'node:path';

const ROOT = resolve(import.meta.dir, '..', '..');

test('the dashboard typechecks against the server routes', async () => {
  const tsc = Bun.spawn([process.execPath, join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc'), '--noEmit', '-p', join(ROOT, 'web')], { cwd: ROOT, stdout: 'pipe', stderr: 'pipe' });
  const [code, out, err] = await Promise.all([tsc.exited, new Response(tsc.stdout).text(), new Response(tsc.stderr).text()]);
  expect(`${out}${err}`.trim()).toBe('');
  expect(code).toBe(0);
}, 180_000);
