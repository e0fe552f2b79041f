/**
 * Several nodes of one deployment, one process per role list, sharing a fresh server backend
 * (Postgres, ClickHouse and NATS). For tests that need the server backend by nature.
 *
 * @example
 * const node = useNodes(['api', 'receiver']);
 * test('…', async () => { await fetch(`${node(1).url}/w/${slug}`, { method: 'POST' }); });
 */
import { afterAll, beforeAll } from 'bun:test';
import { provision, type BackendEnv } from './backends';
import { startServer, stopServer, type TestServer } from './server';

/**
 * Starts the nodes in `beforeAll` of the enclosing describe, with `env` beside the backend's, and
 * stops them and drops the backend in `afterAll`. Returns the i-th node (in `roles` order).
 */
export function useNodes(roles: readonly string[], env: Record<string, string> = {}): (i: number) => TestServer {
  let backend: BackendEnv | undefined;
  const nodes: TestServer[] = [];

  beforeAll(async () => {
    backend = await provision('server');
    // One after another: each runs the migrations at start.
    for (const r of roles) nodes.push(await startServer({ env: { ...backend.env, ...env, ROLES: r } }));
  });
  afterAll(async () => {
    for (const n of nodes) await stopServer(n);
    await backend?.cleanup();
  });

  return (i) => {
    const n = nodes[i];
    if (!n) throw new Error('nodes not started');
    return n;
  };
}
