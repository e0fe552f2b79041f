/**
 * A service for a fixed-rate run (bench/settings-ab, bench/gc-detail): provisioned for one backend,
 * started through GC_MARKED_ENTRY with the GC log, the backend's own shipping age (the test
 * harness would set 50 ms), a plan without a monthly limit, one endpoint, and 2 s of wrk to warm
 * the JIT. `env` overrides the bench's own settings.
 */
import { defaultShipMaxAgeMs } from '../../src/config';
import { provision, type BackendName } from '../../test/support/backends';
import { call, newAccount } from '../../test/support/client';
import { startServer, stopServer, type TestServer } from '../../test/support/server';
import { GC_MARKED_ENTRY } from './gc-log';
import { wrk } from './wrk';

export interface RateService {
  server: TestServer;
  /** The endpoint's receiver URL. */
  url: string;
  stop(): Promise<void>;
}

export async function startRateService(backend: BackendName, env: Record<string, string>): Promise<RateService> {
  const p = await provision(backend);
  const server = await startServer({
    entry: GC_MARKED_ENTRY,
    env: { ...p.env, LOG_LEVEL: 'warn', SHIP_MAX_AGE_MS: String(defaultShipMaxAgeMs(p.env.CLICKHOUSE_URL !== undefined)), PLANS: '{"free":{"limit":1000000000}}', BUN_JSC_logGC: '1', ...env },
  });
  const stop = async () => {
    await stopServer(server);
    await p.cleanup();
  };
  try {
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'rate' } })).body;
    const url = `${server.url}/w/${ep.slug}`;
    await wrk(url, { connections: 64, seconds: 2 });
    await Bun.sleep(500);
    return { server, url, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}
