/**
 * Builds hookcap/client for Node: one ESM file, `client/dist/index.js`, with everything it imports
 * from the server's sources (schemas, id and body helpers) bundled in, so a Node test suite (Node
 * ≥ 20: vitest, jest, node:test) imports `hookcap/client` without a TypeScript loader. Bun and
 * TypeScript read the sources themselves (package.json `exports`: `bun` and `types` conditions);
 * Node takes `default`, this file.
 *
 * `npm install` runs it (postinstall); `bun client/build.ts` after changing the client's sources.
 */
import { rmSync } from 'node:fs';
import { join } from 'node:path';

const CLIENT = import.meta.dir;
export const CLIENT_DIST = join(CLIENT, 'dist');

export async function buildClient(outdir = CLIENT_DIST): Promise<string> {
  rmSync(outdir, { recursive: true, force: true });
  const result = await Bun.build({
    entrypoints: [join(CLIENT, 'index.ts')],
    outdir,
    target: 'node',
    format: 'esm',
    // Readable, with its source map: a stack trace from a user's test points at the client's code.
    sourcemap: 'linked',
  });
  if (!result.success) throw new AggregateError(result.logs, 'hookcap/client: the Node build failed');
  return join(outdir, 'index.js');
}

if (import.meta.main) {
  const file = await buildClient();
  console.log(`client: built ${file.slice(join(CLIENT, '..').length + 1)} for Node`);
}
