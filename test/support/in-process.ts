/**
 * The service built inside the test process, on a real port, with a clock the test moves: for
 * expiry and window tests, which advance the clock instead of sleeping. Everything else is as
 * `startServer` runs it (same defaults, same backends, real HTTP); docs/architecture.md, "The
 * clock", says what reads this clock and what keeps the wall clock.
 *
 * @example
 * describeInProcess('invites expire', (h) => {
 *   test('…', async () => { h.clock.advance(TTL_MS); await call(h.url, 'GET', '/api/invites', …); });
 * });
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe } from 'bun:test';
import { startService, type Service } from '../../src/app';
import { loadConfig } from '../../src/config';
import { setLogLevel } from '../../src/log';
import { BACKENDS, provision, type BackendEnv, type BackendName } from './backends';
import { TestClock } from './clock';
import { freePort, seedPglite, serviceEnv, SUITE_START_MS } from './server';

export interface InProcessServer {
  url: string;
  port: number;
  dataDir: string;
  env: Record<string, string>;
  clock: TestClock;
  service: Service;
}

/** Starts the service in this process with `clock` (a fresh TestClock by default). */
export async function startInProcess(opts: { env?: Record<string, string>; clock?: TestClock } = {}): Promise<InProcessServer> {
  const port = await freePort();
  const dataDir = mkdtempSync(join(tmpdir(), 'hookcap-inproc-'));
  if (!opts.env?.DATABASE_URL) await seedPglite(dataDir);
  const env: Record<string, string> = { ...serviceEnv(port, dataDir), ...opts.env };
  const config = loadConfig(env);
  setLogLevel(config.logLevel);
  const clock = opts.clock ?? new TestClock();
  const service = await startService(config, { clock });
  return { url: `http://127.0.0.1:${port}`, port, dataDir, env, clock, service };
}

export async function stopInProcess(s: InProcessServer): Promise<void> {
  await s.service.stop();
  rmSync(s.dataDir, { recursive: true, force: true });
}

export interface InProcessHarness {
  backend: BackendName;
  readonly url: string;
  readonly server: InProcessServer;
  /** The service's clock: `h.clock.advance(ms)` is the time passing. */
  readonly clock: TestClock;
}

/** As `describeBackends`, with the service built in-process around a TestClock. */
export function describeInProcess(title: string, body: (h: InProcessHarness) => void, env: Record<string, string> = {}): void {
  for (const backend of BACKENDS) {
    describe(`${title} [${backend}]`, () => {
      let server: InProcessServer | undefined;
      let provisioned: BackendEnv | undefined;
      const started = (): InProcessServer => {
        if (!server) throw new Error('server not started');
        return server;
      };
      const h: InProcessHarness = {
        backend,
        get url() {
          return started().url;
        },
        get server() {
          return started();
        },
        get clock() {
          return started().clock;
        },
      };
      beforeAll(async () => {
        provisioned = await provision(backend);
        server = await startInProcess({ env: { ...provisioned.env, ...env } });
      }, SUITE_START_MS);
      afterAll(async () => {
        if (server) await stopInProcess(server);
        await provisioned?.cleanup();
      });
      body(h);
    });
  }
}
