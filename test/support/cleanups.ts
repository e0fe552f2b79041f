/**
 * The cleanups of a describe (or a file): pushed as things are started, run in its `afterAll`, last
 * pushed first, so a server is stopped before the database it used is dropped.
 *
 * @example
 * const cleanups = cleanupAfterAll();
 * const p = await provision(backend);
 * cleanups.push(p.cleanup);
 * const server = await startServer({ env: p.env });
 * cleanups.push(() => stopServer(server));
 */
import { afterAll } from 'bun:test';

export type Cleanup = () => void | Promise<void>;

/**
 * With `ignoreErrors`, a cleanup that fails (it talks to a service a fault test broke) keeps
 * neither the others from running nor the file from passing.
 */
export function cleanupAfterAll({ ignoreErrors = false }: { ignoreErrors?: boolean } = {}): Cleanup[] {
  const cleanups: Cleanup[] = [];
  afterAll(async () => {
    for (const c of cleanups.reverse()) {
      if (ignoreErrors) await Promise.resolve().then(c).catch(() => {});
      else await c();
    }
  });
  return cleanups;
}
