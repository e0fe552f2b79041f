/**
 * One behaviour suite, run on both backends: `describeBackends('name', (h) => { test(...) })`
 * starts a real server per backend for the file and tears it down after.
 */
import { afterAll, beforeAll, describe } from 'bun:test';
import { BACKENDS, provision, type BackendEnv, type BackendName } from './backends';
import { startServer, stopServer, SUITE_START_MS, type TestServer } from './server';

export interface Harness {
  backend: BackendName;
  /** Base URL of the running server. */
  readonly url: string;
  readonly server: TestServer;
  readonly provisioned: BackendEnv;
}

/**
 * `skip` names why the suite cannot run here (a missing program a quick embedded run does not
 * install); its tests are then reported as skipped, with the reason in the suite's title.
 */
export function describeBackends(title: string, body: (h: Harness) => void, env: Record<string, string> = {}, skip: string | null = null): void {
  for (const backend of BACKENDS) {
    (skip === null ? describe : describe.skip)(skip === null ? `${title} [${backend}]` : `${title} [${backend}] (skipped: ${skip})`, () => {
      let server: TestServer | undefined;
      let provisioned: BackendEnv | undefined;
      const h: Harness = {
        backend,
        get url() {
          if (!server) throw new Error('server not started');
          return server.url;
        },
        get server() {
          if (!server) throw new Error('server not started');
          return server;
        },
        get provisioned() {
          if (!provisioned) throw new Error('backend not provisioned');
          return provisioned;
        },
      };
      beforeAll(async () => {
        provisioned = await provision(backend);
        server = await startServer({ env: { ...provisioned.env, ...env }, healthyWithinMs: SUITE_START_MS - 10_000 });
      }, SUITE_START_MS);
      afterAll(async () => {
        if (server) await stopServer(server);
        await provisioned?.cleanup();
      });
      body(h);
    });
  }
}
