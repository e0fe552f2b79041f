/**
 * Builds the running service from a config: stores, bus, engine, HTTP apps. `main.ts` only calls
 * this and handles signals; tests start the real process instead.
 */
import { join } from 'node:path';
import { swagger } from '@elysiajs/swagger';
import { sql } from 'drizzle-orm';
import { Elysia, type AnyElysia } from 'elysia';
import { createLocalBus } from './bus/local';
import { createNatsBus } from './bus/nats';
import { decodeJson, subjects, type Bus } from './bus/types';
import { systemClock, type Clock } from './clock';
import type { Config } from './config';
import type { Health } from './health';
import { EndpointCache } from './engine/endpoint-cache';
import { loadEndpointSnapshots } from './engine/endpoint-snapshots';
import { CaptureEngine, combineHooks, type CaptureHooks } from './engine/capture';
import { CaptureLog } from './engine/capture-log';
import { Shipper } from './engine/shipper';
import { ReceiverRefusals } from './engine/refusals';
import { UsageMeter } from './engine/usage';
import { createNotifier, notificationHooks, notificationKeyFromCache } from './engine/notifier';
import { NotifyLog } from './engine/notify-log';
import { adminRoutes } from './http/admin';
import { buildInfo, metricsRoutes } from './http/metrics';
import { apiRoutes } from './http/api/index';
import { documented, HealthReport } from './http/api/models';
import { errorHandler } from './http/errors';
import { requestGuards } from './http/guards';
import { bodyFieldCheck, type RouteLike } from './http/body-fields';
import { defaultResponseHeaders } from './http/response-headers';
import { receiverBunRoutes, receiverDocs, receiverHandler } from './http/receiver';
import { streamRoutes } from './http/stream';
import { notFound, routeMiss } from './http/route-miss';
import { StreamHub } from './services/stream/hub';
import { BackendProbe } from './services/backend-probe';
import { within } from './deadline';
import { errorMessage } from './unknown';
import { log, redact } from './log';
import type { Ctx } from './services/context';
import { createServices } from './services/build';
import { warnIfOutboxDeployed } from './mail';
import { startPurger } from './services/purger';
import { startRetention, sweepRetention } from './services/retention';
import { startExpirySweeper } from './services/expiry-sweeper';
import { agentPages } from './http/pages/index';
import { wellKnownRoutes } from './http/well-known';
import { docsRoutes } from './http/docs';
import { appPage, loadWebBundle, webRoutes } from './http/web';
import { captureStoreSpec, openCaptureStore } from './stores/captures/open';
import { openPglite, openPostgres, type StateDb } from './stores/state/db';
import { findEndpointById } from './stores/state/endpoints';
import { usageStoreOn } from './stores/state/usage';

export interface Service {
  ctx: Ctx;
  servers: ReturnType<typeof Bun.serve>[];
  urls: { api: string; receiver: string };
  /** The routes the API listener registered, as Elysia holds them: what /docs/json is checked against. */
  routes: readonly { method: string; path: string }[];
  stop(): Promise<void>;
}

export interface StartOptions {
  /** The clock every part reads the time from; the system clock unless a test brings its own. */
  clock?: Clock;
}

export async function startService(config: Config, opts: StartOptions = {}): Promise<Service> {
  // The one clock of this service: built here, handed to the verbs (ctx) and the engine's parts.
  const clock = opts.clock ?? systemClock;
  // A busy port stops start-up before anything is opened (the listen below still reports one
  // taken in between). Not when sharing: a probe socket in the port's group could be handed a
  // connection meant for the process already serving it.
  if (!config.reusePort) for (const port of [config.port, config.receiverPort]) if (port) probePort(config.host, port);
  // The dashboard is the API role's. Its build is made at install, or here when its sources
  // changed; first, so a failed build stops start-up before anything is opened.
  const web = config.roles.has('api') ? await loadWebBundle() : null;
  const databaseUrl = config.databaseUrl;
  const state: StateDb = databaseUrl
    ? await opening('DATABASE_URL', databaseUrl, () => openPostgres(databaseUrl, config.databasePoolMax))
    : await openPglite(config.dataDir);
  const storeSpec = captureStoreSpec(config.clickhouseUrl, config.dataDir);
  const captures = openCaptureStore(storeSpec);
  if (config.clickhouseUrl) await opening('CLICKHOUSE_URL', config.clickhouseUrl, () => captures.migrate());
  else await captures.migrate();
  const natsUrl = config.natsUrl;
  const bus: Bus = natsUrl ? await opening('NATS_URL', natsUrl, () => createNatsBus(natsUrl, config.natsPrefix)) : createLocalBus();

  const endpointCache = new EndpointCache({
    maxEntries: config.endpointCacheMax,
    maxBytes: config.endpointCacheMaxBytes,
    maxAgeMs: config.endpointCacheMaxAgeMs,
    maxMissingBytes: config.unknownSlugCacheBytes,
    loadMany: (slugs) => loadEndpointSnapshots(state.db, slugs),
    clock,
  });
  const services = createServices({ config, db: state.db, captures, bus, clock, endpointCache });
  warnIfOutboxDeployed(config);
  const { ctx } = services;
  const unsubscribeConfig = bus.subscribe(subjects.endpointChanged, (data) => {
    endpointCache.invalidate(decodeJson<{ slug: string }>(data).slug);
  });
  // Invalidations sent while the bus was lost never arrive: once it is back, re-read every snapshot.
  const unwatchBus = bus.onConnectionChange((up) => up && endpointCache.revalidateAll());

  // The receiver role owns the capture log: replay what a crash left unshipped, then serve.
  const isReceiver = config.roles.has('receiver');
  const opened = isReceiver ? await CaptureLog.open(join(config.dataDir, 'log'), config.logSegmentBytes) : null;
  // The shipper worker tails the log from its checkpoint, so a replay after a crash is just shipping.
  const shipper = opened
    ? new Shipper(opened.log, opened.end, opened.unshipped, { store: storeSpec, batchRows: config.shipBatchRows, batchBytes: config.shipBatchBytes, maxAgeMs: config.shipMaxAgeMs })
    : null;
  // Features layered on the capture path register here (quota, usage, notifications).
  const captureHooks: CaptureHooks[] = [];
  // Usage and quota first, so a capture over quota is refused before any other hook sees it.
  const usage = isReceiver ? new UsageMeter({ store: usageStoreOn(state.db), plans: config.plans, flushMs: config.usageFlushMs, sandboxLimit: config.agent.sandboxMaxCaptures, clock }) : null;
  if (usage) {
    captureHooks.push(usage);
    usage.start();
  }
  // Notifications leave from the node that captured the request; the hook only enqueues.
  const notifier = isReceiver ? createNotifier(config, config.outboundAllow, clock, notificationKeyFromCache(endpointCache)) : null;
  if (notifier) captureHooks.push(notificationHooks(notifier, config.baseUrl));
  // What the last run left unsent is read again from the log (at-least-once across restarts).
  const notifyLog = notifier && opened ? new NotifyLog({ dir: opened.log.dir, notifier, end: () => opened.log.end, lookup: (id) => findEndpointById(state.db, id), baseUrl: config.baseUrl }) : null;
  notifyLog?.start(opened?.end ?? { segment: 0, offset: 0 });
  const engine =
    opened && shipper
      ? new CaptureEngine({ endpointCache, log: opened.log, shipper, bus, backlogLimit: config.shipBacklogLimit, liveFlushMs: config.liveFlushMs, detectProviders: config.detectProviders, hooks: combineHooks(captureHooks), clock })
      : null;
  const purger = config.roles.has('api') ? startPurger(ctx) : null;
  const expirySweeper = config.roles.has('api') ? startExpirySweeper(ctx) : null;
  const retention = config.roles.has('api') ? startRetention(ctx) : null;
  // Live streams: one bus subscription per watched endpoint on this node.
  const streamHub = config.roles.has('stream') ? new StreamHub(bus, { ...config.stream, clock, loadCapture: (endpointId, id) => captures.get(id, [{ endpointId, since: 0 }]) }) : null;

  // Postgres and ClickHouse reachability for /healthz, checked in the background, off the capture
  // path (PGlite and SQLite are in-process).
  const stateProbe = state.kind === 'postgres' ? new BackendProbe(() => state.db.execute(sql`SELECT 1`)) : null;
  stateProbe?.start();
  const probeRead = captures.probeRead?.bind(captures);
  const capturesProbe = probeRead ? new BackendProbe(probeRead) : null;
  capturesProbe?.start();

  // What /w/ refused, by reason: every listener answers /w/, a node without the receiver with 404s.
  const refusals = new ReceiverRefusals();
  // /healthz, and the operator API's health.
  const health = (): Health => {
    const shipping = shipper?.health() ?? null;
    return { ok: shipping?.worker !== 'failed', status: shipping && (shipping.degraded || shipping.worker === 'failed') ? 'degraded' : 'ok', roles: [...config.roles], backends: { state: state.kind, captures: captures.kind, bus: bus.kind, busConnected: bus.connected, stateReachable: stateProbe?.reachable ?? null, capturesReachable: capturesProbe?.reachable ?? null }, shipper: shipping, notifications: notifier?.stats() ?? null, stream: streamHub?.stats() ?? null, unknownSlugs: isReceiver ? endpointCache.missingStats() : null, endpointCache: isReceiver ? endpointCache.stats() : null, captureLog: opened ? { ...opened.log.stats, writeMs: opened.log.writeLatency() } : null, refusals: refusals.snapshot() };
  };

  const receive = engine ? receiverHandler(engine, config, refusals) : null;
  // /w/ is answered by Bun's router ahead of Elysia's (src/http/receiver.ts), on every listener.
  const api = new Elysia({ serve: { routes: receiverBunRoutes(config.receiverPort === null ? receive : null, refusals) } })
    .use(errorHandler)
    .use(defaultResponseHeaders)
    .use(requestGuards(config))
    // A body field no route takes is refused, not dropped: checked against the registered routes.
    .use(bodyFieldCheck((): readonly RouteLike[] => api.routes))
    .use(
      swagger({
        path: '/docs',
        documentation: {
          info: { title: 'hookcap API', version: '0.1.0', description:
              'Webhook capture service. Every /api call carries Authorization: Bearer <API key>. An AI agent without a key gets one through POST /api/agent/auth ' +
              // The assertion flow is named only where an issuer is configured, as in the metadata.
              `(anonymous with a sandbox until a person claims it, or verified_email with a mailed code${ctx.agent.providers.length > 0 ? ', or an identity assertion from a trusted provider' : ''}): ` +
              'start at /.well-known/oauth-authorization-server.',
          },
          components: { securitySchemes: { bearer: { type: 'http', scheme: 'bearer' } } },
          security: [{ bearer: [] }],
        },
      }),
    )
    .use(docsRoutes(config.baseUrl))
    .get('/healthz', health, {
      detail: { summary: 'This node: roles, backends, shipper, stream and cache counters (always 200 while it serves)', security: [], responses: documented({ 200: { description: 'The health report', schema: HealthReport } }) },
    });
  // The operator API (docs/operations.md), on every role, only when ADMIN_TOKEN is set.
  if (config.adminToken) {
    const backup = { dataDir: config.dataDir, state, sqlitePath: storeSpec.kind === 'sqlite' ? storeSpec.path : null };
    api.use(adminRoutes({ ctx, health, backup, retention: () => (retention ? retention.sweepNow() : sweepRetention(ctx)) }, config.adminToken));
  }
  // The Prometheus scrape (docs/operations.md), on every role, only when METRICS_TOKEN is set:
  // rendered from the same report, so it cannot disagree with /healthz.
  if (config.metricsToken) api.use(metricsRoutes(health, config.metricsToken, buildInfo()));
  if (config.roles.has('api')) api.use(apiRoutes(ctx));
  if (streamHub) api.use(streamRoutes(ctx, streamHub));
  // Agent claim pages and OAuth discovery live outside /api but belong to the API role.
  if (config.roles.has('api')) api.use(agentPages(ctx)).use(wellKnownRoutes(config, ctx.agent.providers));
  if (web) api.use(webRoutes(web, config.baseUrl));
  // Bodies are bounded by our own code, which answers in JSON: the receiver (MAX_BODY_BYTES,
  // declared or streamed) and the request guards (apiBodyLimit). Bun's limit would answer first,
  // with an empty 413, so it is set out of reach.
  const maxRequestBodySize = Number.MAX_SAFE_INTEGER;

  // Elysia's own listen, so handlers get `server` (the receiver needs it for the sender ip).
  // Elysia turns SO_REUSEPORT on by default; it is explicit here: a second process on a busy
  // port must fail unless sharing was asked for (REUSE_PORT).
  const listen = (app: AnyElysia, port: number) => {
    try {
      app.listen({ port, hostname: config.host, maxRequestBodySize, reusePort: config.reusePort });
    } catch (err) {
      throw new ListenError(config.host, port, err);
    }
    if (!app.server) throw new ListenError(config.host, port, null);
    return app.server;
  };
  const servers: ReturnType<typeof Bun.serve>[] = [];
  // A browser's load of an address that is no route gets the dashboard, which says "Page not found".
  const missPage = web ? ((page) => (request: Request) => page(request, 404))(appPage(web, config.baseUrl)) : null;
  if (config.receiverPort === null) {
    if (receive) api.use(receiverDocs(receive));
    api.all('*', routeMiss(() => api.routes, missPage));
    servers.push(listen(api, config.port));
  } else {
    api.all('*', routeMiss(() => api.routes, missPage));
    servers.push(listen(api, config.port));
    if (receive) {
      const rapp = new Elysia({ serve: { routes: receiverBunRoutes(receive, refusals) } }).use(errorHandler).all('*', notFound);
      servers.push(listen(rapp, config.receiverPort));
    }
  }
  const apiPort = servers[0]?.port ?? config.port;
  const receiverPort = servers[1]?.port ?? apiPort;

  return {
    ctx,
    servers,
    urls: { api: `http://localhost:${apiPort}`, receiver: `http://localhost:${receiverPort}` },
    routes: api.routes.map((r) => ({ method: r.method, path: r.path })),
    async stop() {
      // SHUTDOWN_TIMEOUT_MS in all: the drains get what is left of it less a share kept for
      // closing the stores. A partial drain is safe: the capture log is replayed at the next start.
      const deadline = clock.now() + config.shutdownTimeoutMs;
      const drainBy = deadline - Math.min(2_000, config.shutdownTimeoutMs / 5);
      const late: string[] = [];
      const failed: string[] = [];
      const logged = (step: string, work: Promise<unknown>) =>
        work.catch((err: unknown) => {
          failed.push(step);
          log.error('shutdown step failed', { step, error: errorMessage(err) });
        });
      const drain = async (step: string, work: Promise<unknown>) => {
        if (!(await within(logged(step, work), drainBy, clock))) late.push(step);
      };
      // Open streams would keep a graceful stop waiting: end them first; clients reconnect elsewhere.
      streamHub?.close();
      // Stop accepting; requests in flight may finish until the drain deadline, then are cut.
      await drain('requests in flight', Promise.all(servers.map((s) => s.stop(false))));
      if (late.length > 0) for (const s of servers) void s.stop(true);
      await drain('purger, retention and expiry sweeper', Promise.all([purger?.stop(), retention?.stop(), expirySweeper?.stop()]));
      unsubscribeConfig();
      unwatchBus();
      stateProbe?.stop();
      capturesProbe?.stop();
      if (opened && shipper) {
        await drain('capture log', opened.log.close());
        // Captures made durable in the last flush window still go to live streams elsewhere.
        engine?.flushLive();
        if (!(await shipper.stop(drainBy))) late.push('shipper');
      }
      // Stops the notifier, then keeps its checkpoint for the next start.
      await drain('notifications', notifyLog?.stop() ?? notifier?.stop() ?? Promise.resolve());
      // The stream guards' bus subscriptions and the mailer.
      await drain('services', services.close());
      // Counts of the last captures go to Postgres before it closes.
      await drain('usage counts', usage?.stop() ?? Promise.resolve());
      if (late.length > 0) log.warn('shutdown deadline: stopped waiting', { for: late, timeoutMs: config.shutdownTimeoutMs });
      const closed = await within(
        logged(
          'closing the bus and stores',
          (async () => {
            await bus.close();
            await captures.close();
            await state.close();
          })(),
        ),
        deadline,
        clock,
      );
      if (!closed) log.warn('shutdown deadline: stores not closed in time', { timeoutMs: config.shutdownTimeoutMs });
      if (failed.length > 0) throw new Error(`shutdown steps failed: ${failed.join(', ')}`);
    },
  };
}

function probePort(host: string, port: number): void {
  try {
    Bun.serve({ port, hostname: host, reusePort: false, fetch: () => new Response(null, { status: 503 }) }).stop(true);
  } catch (err) {
    throw new ListenError(host, port, err);
  }
}

/**
 * A server backend could not be opened at start (unreachable, refused the login, a migration
 * failed): main.ts prints the message as one line, naming the setting and the host, never the
 * URL's user or password.
 */
export class StartupError extends Error {
  override name = 'StartupError';
}

async function opening<T>(setting: string, urls: string, open: () => Promise<T>): Promise<T> {
  try {
    return await open();
  } catch (err) {
    const hosts = urls.split(',').map((u) => {
      try {
        return new URL(u.trim()).host;
      } catch {
        return '?';
      }
    });
    const why = String(redact(errorMessage(err))).replace(/\s*[\r\n]+\s*/g, ' ');
    throw new StartupError(`${setting}: could not open ${hosts.join(', ')}: ${why}`);
  }
}

/** The service could not bind its port; main.ts prints the message as one line. */
export class ListenError extends Error {
  constructor(host: string, port: number, cause: unknown) {
    const inUse = cause instanceof Error && 'code' in cause && cause.code === 'EADDRINUSE';
    super(
      inUse
        ? `address in use: ${host}:${port} is taken by another process (REUSE_PORT=true lets hookcap processes share it, each with its own DATA_DIR)`
        : `could not listen on ${host}:${port}${cause instanceof Error ? `: ${cause.message}` : ''}`,
    );
    this.name = 'ListenError';
  }
}
