/**
 * Builds the `hookcap` CLI for Node: one ESM file, `cli/dist/hookcap.js` (`#!/usr/bin/env node`,
 * executable), with commander, string-width and what the CLI uses from the client and the
 * server's sources bundled in, so `npx hookcap` runs on Node ≥ 20 with no Bun and no TypeScript
 * loader. package.json `bin` points at it; `bun cli/main.ts` still runs the sources.
 *
 * `npm install` runs it (postinstall, after the client's build); `npm run build:cli` after changing
 * the CLI's sources.
 */
import { chmodSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';

const CLI = import.meta.dir;
export const CLI_DIST = join(CLI, 'dist');
export const CLI_BIN = 'hookcap.js';

export async function buildCli(outdir = CLI_DIST): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(CLI, 'main.ts')],
    outdir,
    naming: CLI_BIN,
    target: 'node',
    format: 'esm',
    // Readable, with its source map: HOOKCAP_DEBUG=1's stack (under `node --enable-source-maps`)
    // points at the CLI's sources.
    sourcemap: 'linked',
  });
  if (!result.success) throw new AggregateError(result.logs, 'hookcap CLI: the Node build failed');
  const file = join(outdir, CLI_BIN);
  const code = readFileSync(file, 'utf8');
  // A source file starting `#!/usr/bin/env bun` is bundled for Bun whatever `target` says (the
  // output then carries Bun's `// @bun` mark), and the modules it shares with the others are
  // bundled twice: two CliError classes, and `instanceof` fails on the one the other copy threw.
  // So cli/main.ts has no shebang, and a build that is marked for Bun is refused.
  if (/^\/\/ @bun\b/m.test(code)) throw new Error('hookcap CLI: the Node build came out marked `// @bun`: is there a `#!/usr/bin/env bun` line in cli/?');
  // Run through its bin link, the file says which runtime: node, which every machine with npm has.
  writeFileSync(file, `#!/usr/bin/env node\n${code}`);
  chmodSync(file, 0o755);
  return file;
}

if (import.meta.main) {
  const file = await buildCli();
  console.log(`cli: built ${file.slice(join(CLI, '..').length + 1)} for Node`);
}
