/**
 * The verbs' real services, in process, for tests that call verbs directly: the state store of one
 * backend (PGlite, or a fresh Postgres database for "server"), a SQLite capture store and the
 * in-process bus, all in a fresh data directory.
 *
 * @example
 * for (const backend of BACKENDS) describe(`… [${backend}]`, () => {
 *   const ctx = useServices(backend, { tmpPrefix: 'hookcap-my-test-' });
 *   test('…', async () => { await createEndpoint(ctx(), user, 'name'); });
 * });
 */
import { afterAll, beforeAll } from 'bun:test';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createLocalBus } from '../../src/bus/local';
import { systemClock, type Clock } from '../../src/clock';
import { loadConfig } from '../../src/config';
import { createServices, type Services } from '../../src/services/build';
import type { Ctx } from '../../src/services/context';
import { createSqliteCaptureStore } from '../../src/stores/captures/sqlite';
import { openPglite, openPostgres, type StateDb } from '../../src/stores/state/db';
import { provision, type BackendEnv, type BackendName } from './backends';
import { seedPglite } from './server';

export interface UseServicesOptions {
  /** The temporary data directory's name prefix. */
  tmpPrefix: string;
  /** Settings beyond DATA_DIR, as the environment would give them. */
  env?: Record<string, string>;
  /** The services' clock (a test's TestClock, to move time); the system clock by default. */
  clock?: Clock;
}

/**
 * Sets the services up in `beforeAll` and takes them down in `afterAll` of the enclosing describe;
 * returns the verbs' ctx (which throws if read outside the tests).
 */
export function useServices(backend: BackendName, { tmpPrefix, env = {}, clock = systemClock }: UseServicesOptions): () => Ctx {
  let dir = '';
  let state: StateDb | null = null;
  let provisioned: BackendEnv | null = null;
  let services: Services | null = null;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), tmpPrefix));
    provisioned = await provision(backend);
    const url = provisioned.env.DATABASE_URL;
    if (!url) await seedPglite(dir);
    state = url ? await openPostgres(url) : await openPglite(dir);
    const captures = createSqliteCaptureStore({ path: join(dir, 'captures.sqlite') });
    await captures.migrate();
    services = createServices({ config: loadConfig({ ...env, DATA_DIR: dir }), db: state.db, captures, bus: createLocalBus(), clock });
  });
  afterAll(async () => {
    await services?.close();
    await services?.ctx.captures.close();
    await state?.close();
    await provisioned?.cleanup();
    rmSync(dir, { recursive: true, force: true });
  });

  return () => {
    if (!services) throw new Error('not set up');
    return services.ctx;
  };
}
