/**
 * Operator commands, run with the service's own configuration (docs/operations.md):
 *
 *   node_modules/.bin/bun scripts/admin.ts set-plan --account <email|usr_id> --plan <name>
 *   node_modules/.bin/bun scripts/admin.ts show-plan --account <email|usr_id>
 *   node_modules/.bin/bun scripts/admin.ts set-subscription --team <team_id> --seats <n> --status active|canceled
 *   node_modules/.bin/bun scripts/admin.ts show-subscription --team <team_id>
 *   node_modules/.bin/bun scripts/admin.ts health | backlog
 *   node_modules/.bin/bun scripts/admin.ts retention         (one retention sweep now)
 *   node_modules/.bin/bun scripts/admin.ts backup <DIR>      (embedded data; the service may be running)
 *   node_modules/.bin/bun scripts/admin.ts restore <DIR>     (into an empty DATA_DIR; the service must be stopped)
 *
 * With ADMIN_TOKEN set, the command asks the running service through /admin/api (at --url, by
 * default http://127.0.0.1:$PORT), so an embedded node is administered without a restart. When no
 * service answers there, or ADMIN_TOKEN is unset, it opens the stores itself: embedded PGlite is
 * single-process, so it then takes DATA_DIR's lock, as the service does, and refuses while a live
 * process holds it.
 *
 * Prints the result as one JSON line on stdout (how it was reached goes to stderr); exits 1 with a
 * one-line message on a bad argument, a refusal or an error from the service, 2 on a bad
 * configuration. A verb's refusal is `admin: <message> (<code>)` in both modes, the code the API's;
 * any other error opening or using the stores directly is `admin: failed: <message> (internal)`.
 */
import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createLocalBus } from '../src/bus/local';
import { createNatsBus } from '../src/bus/nats';
import type { Bus } from '../src/bus/types';
import { systemClock } from '../src/clock';
import { loadConfigOrExit, type Config } from '../src/config';
import { busyMessage, dataDirUses, lockDataDir, type DataDirLock } from '../src/data-dir-lock';
import { AppError } from '../src/errors';
import { isStoreUnreachable } from '../src/http/errors';
import { redact } from '../src/log';
import { backupEmbedded, restoreEmbedded } from '../src/services/backup';
import { ADMIN_STATUSES, getSubscription, publicSubscription, setSubscription, type AdminStatus } from '../src/services/billing';
import { readLogBacklog } from '../src/services/log-backlog';
import { getPlan, setPlan } from '../src/services/plans';
import { sweepRetention } from '../src/services/retention';
import { captureStoreSpec, openCaptureStore } from '../src/stores/captures/open';
import { openPglite, openPostgres, type StateDb } from '../src/stores/state/db';
import { errorMessage } from '../src/unknown';

const USAGE = `usage:
  node_modules/.bin/bun scripts/admin.ts set-plan --account <email|usr_id> --plan <name>
  node_modules/.bin/bun scripts/admin.ts show-plan --account <email|usr_id>
  node_modules/.bin/bun scripts/admin.ts set-subscription --team <team_id> --seats <n> --status ${ADMIN_STATUSES.join('|')}
  node_modules/.bin/bun scripts/admin.ts show-subscription --team <team_id>
  node_modules/.bin/bun scripts/admin.ts health
  node_modules/.bin/bun scripts/admin.ts backlog
  node_modules/.bin/bun scripts/admin.ts retention
  node_modules/.bin/bun scripts/admin.ts backup <DIR>
  node_modules/.bin/bun scripts/admin.ts restore <DIR>
options: --url <base URL of the running service> (default http://127.0.0.1:$PORT; used with ADMIN_TOKEN)`;

class UsageError extends Error {}
/** A refusal or failure to report in one line (exit 1). */
class AdminFailure extends Error {}

type Command =
  | { command: 'set-plan'; account: string; plan: string }
  | { command: 'show-plan'; account: string }
  | { command: 'set-subscription'; team: string; seats: number; status: AdminStatus }
  | { command: 'show-subscription'; team: string }
  | { command: 'health' }
  | { command: 'backlog' }
  | { command: 'retention' }
  | { command: 'backup'; dir: string }
  | { command: 'restore'; dir: string };

function parse(argv: string[]): { cmd: Command; url: string | undefined } {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      team: { type: 'string' },
      seats: { type: 'string' },
      status: { type: 'string' },
      account: { type: 'string' },
      plan: { type: 'string' },
      url: { type: 'string' },
    },
  });
  const [command, ...rest] = positionals;
  const noMore = (n: number) => {
    if (rest.length > n) throw new UsageError(`unexpected argument "${rest[n]}"`);
  };
  const need = (name: 'team' | 'account' | 'plan'): string => {
    const v = values[name];
    if (!v) throw new UsageError(`--${name} is required`);
    return v;
  };
  const cmd = ((): Command => {
    switch (command) {
      case 'set-plan':
        noMore(0);
        return { command, account: need('account'), plan: need('plan') };
      case 'show-plan':
        noMore(0);
        return { command, account: need('account') };
      case 'show-subscription':
        noMore(0);
        return { command, team: need('team') };
      case 'set-subscription': {
        noMore(0);
        const team = need('team');
        const seats = Number(values.seats);
        if (values.seats === undefined || !/^\d+$/.test(values.seats) || !Number.isSafeInteger(seats)) throw new UsageError('--seats must be a whole number');
        const status = values.status;
        if (!ADMIN_STATUSES.some((s) => s === status)) throw new UsageError(`--status must be one of ${ADMIN_STATUSES.join(', ')}`);
        return { command, team, seats, status: status as AdminStatus };
      }
      case 'health':
      case 'backlog':
      case 'retention':
        noMore(0);
        return { command };
      case 'backup':
      case 'restore': {
        noMore(1);
        const dir = rest[0];
        if (!dir) throw new UsageError(`${command} needs a folder: ${command} <DIR>`);
        // The service may run elsewhere in the file system; it gets an absolute path.
        return { command, dir: resolve(dir) };
      }
      default:
        throw new UsageError(command ? `unknown command "${command}"` : 'a command is required');
    }
  })();
  return { cmd, url: values.url };
}

// --- through the running service ---------------------------------------------------------------

interface Remote {
  url: string;
  token: string;
}

async function callService(remote: Remote, method: string, path: string, body?: unknown): Promise<unknown> {
  const res = await fetch(`${remote.url}/admin/api${path}`, {
    method,
    headers: { authorization: `Bearer ${remote.token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  let parsed: unknown;
  try {
    parsed = JSON.parse(text);
  } catch {
    throw new AdminFailure(`the service answered ${res.status} without JSON`);
  }
  if (!res.ok) {
    const e = parsed as { error?: string; code?: string };
    throw new AdminFailure(`${e.error ?? `HTTP ${res.status}`} (${e.code ?? res.status})`);
  }
  return parsed;
}

/** Is the operator API up at `remote`? False when nothing listens; throws when something else answers. */
async function serviceUp(remote: Remote): Promise<boolean> {
  let res: Response;
  try {
    res = await fetch(`${remote.url}/admin/api/health`, { headers: { authorization: `Bearer ${remote.token}` }, signal: AbortSignal.timeout(10_000) });
  } catch {
    return false;
  }
  await res.body?.cancel();
  if (res.status === 200) return true;
  if (res.status === 401) throw new AdminFailure(`the service at ${remote.url} refused ADMIN_TOKEN: it is not the token that service was started with`);
  if (res.status === 404) throw new AdminFailure(`the service at ${remote.url} has no operator API: start it with ADMIN_TOKEN set`);
  throw new AdminFailure(`the service at ${remote.url} answered ${res.status} to /admin/api/health`);
}

function viaService(remote: Remote, cmd: Command): Promise<unknown> {
  const enc = encodeURIComponent;
  switch (cmd.command) {
    case 'set-plan':
      return callService(remote, 'PUT', `/accounts/${enc(cmd.account)}/plan`, { plan: cmd.plan });
    case 'show-plan':
      return callService(remote, 'GET', `/accounts/${enc(cmd.account)}/plan`);
    case 'set-subscription':
      return callService(remote, 'PUT', `/teams/${enc(cmd.team)}/subscription`, { seats: cmd.seats, status: cmd.status });
    case 'show-subscription':
      return callService(remote, 'GET', `/teams/${enc(cmd.team)}/subscription`);
    case 'health':
      return callService(remote, 'GET', '/health');
    case 'backlog':
      return callService(remote, 'GET', '/backlog');
    case 'retention':
      return callService(remote, 'POST', '/retention');
    case 'backup':
      return callService(remote, 'POST', '/backup', { dir: cmd.dir });
    case 'restore':
      throw new AdminFailure('restore runs with the service stopped (it fills an empty DATA_DIR)');
  }
}

// --- opening the stores directly ---------------------------------------------------------------

/** Takes DATA_DIR's lock before opening what is in it (PGlite); refuses while a service holds it. */
function lockOrRefuse(config: Config): DataDirLock {
  const locked = lockDataDir(config.dataDir);
  if (locked.ok) return locked.lock;
  const advice = config.adminToken
    ? 'no operator API answered at the admin URL (see --url); stop it first, or point --url at it'
    : 'embedded PGlite is single-process: set ADMIN_TOKEN (as the service has it) to go through its /admin/api, or stop it first';
  throw new AdminFailure(busyMessage(locked.dir, locked.holderPid, advice));
}

async function direct(config: Config, cmd: Command): Promise<unknown> {
  if (cmd.command === 'restore') {
    if (config.databaseUrl || config.clickhouseUrl) throw new AdminFailure('restore fills an embedded DATA_DIR; unset DATABASE_URL and CLICKHOUSE_URL');
    lockOrRefuse(config);
    return restoreEmbedded(cmd.dir, config.dataDir);
  }
  if (cmd.command === 'health' || cmd.command === 'backlog') {
    // No operator API answered: what the files say, and whether a process holds the data dir.
    const holder = dataDirUses(config).length > 0 ? lockDataDir(config.dataDir) : null;
    if (holder?.ok) holder.lock.release();
    return {
      running: holder !== null && !holder.ok,
      holderPid: holder && !holder.ok ? holder.holderPid : null,
      log: config.roles.has('receiver') ? readLogBacklog(config.dataDir) : null,
    };
  }
  // Postgres and ClickHouse serve many processes; only the embedded files need the lock.
  const captureSpec = captureStoreSpec(config.clickhouseUrl, config.dataDir);
  if (!config.databaseUrl || (cmd.command === 'retention' && captureSpec.kind === 'sqlite')) lockOrRefuse(config);
  const state: StateDb = config.databaseUrl ? await openPostgres(config.databaseUrl, 2) : await openPglite(config.dataDir);
  // With NATS, running nodes hear a subscription change at once (open live streams re-check access).
  const bus: Bus = config.natsUrl ? await createNatsBus(config.natsUrl, config.natsPrefix) : createLocalBus();
  const ctx = { db: state.db, bus, clock: systemClock };
  const planCtx = { db: state.db, plans: config.plans };
  try {
    switch (cmd.command) {
      case 'set-plan':
        return await setPlan(planCtx, { account: cmd.account, plan: cmd.plan });
      case 'show-plan':
        return await getPlan(planCtx, cmd.account);
      case 'show-subscription': {
        const sub = await getSubscription(ctx, cmd.team);
        return { teamId: cmd.team, ...publicSubscription(sub), source: sub?.source ?? null };
      }
      case 'set-subscription': {
        const sub = await setSubscription(ctx, { teamId: cmd.team, seats: cmd.seats, status: cmd.status });
        return { teamId: sub.teamId, ...publicSubscription(sub), source: sub.source };
      }
      case 'backup':
        return await backupEmbedded({ dataDir: config.dataDir, state, sqlitePath: captureSpec.kind === 'sqlite' ? captureSpec.path : null }, cmd.dir);
      case 'retention': {
        const captures = openCaptureStore(captureSpec);
        try {
          await captures.migrate();
          return await sweepRetention({ db: state.db, config, captures, clock: systemClock });
        } finally {
          await captures.close();
        }
      }
    }
  } finally {
    await bus.flush().catch(() => {});
    await bus.close();
    await state.close();
  }
}

/** An error's message as the log would show it (secrets redacted), on one line. */
function oneLine(e: unknown): string {
  return String(redact(errorMessage(e))).replace(/\s*[\r\n]+\s*/g, ' ');
}

function defaultUrl(config: Config): string {
  const host = config.host === '0.0.0.0' || config.host === '::' ? '127.0.0.1' : config.host.includes(':') ? `[${config.host}]` : config.host;
  return `http://${host}:${config.port}`;
}

async function main(): Promise<number> {
  let parsed: ReturnType<typeof parse>;
  try {
    parsed = parse(process.argv.slice(2));
  } catch (e) {
    console.error(`admin: ${errorMessage(e)}\n${USAGE}`);
    return 1;
  }
  const { cmd } = parsed;
  const config = loadConfigOrExit();
  try {
    let result: unknown;
    const remote = config.adminToken ? { url: (parsed.url ?? defaultUrl(config)).replace(/\/+$/, ''), token: config.adminToken } : null;
    if (remote && cmd.command !== 'restore' && (await serviceUp(remote))) {
      console.error(`admin: via the running service at ${remote.url}`);
      result = await viaService(remote, cmd);
    } else {
      console.error('admin: no running service; opening the stores directly');
      result = await direct(config, cmd);
    }
    console.log(JSON.stringify(result));
    return 0;
  } catch (e) {
    // A verb's refusal reads the same either way: through the service it arrives as {error, code}
    // and callService prints `<error> (<code>)`; opened directly, it is the AppError itself.
    if (e instanceof AppError) {
      console.error(`admin: ${e.message} (${e.code})`);
      return 1;
    }
    if (e instanceof AdminFailure) {
      console.error(`admin: ${e.message}`);
      return 1;
    }
    // Postgres or ClickHouse not answering: through the service that is 503 unavailable; here the
    // client's own reason, cleaned as the log cleans it, on one line.
    if (isStoreUnreachable(e)) {
      console.error(`admin: a data store is unavailable: ${oneLine(e)} (unavailable)`);
      return 1;
    }
    // Anything else (a database that does not exist, a backup directory that cannot be written, a
    // store's own error): through the service it is a 500 {code: "internal"}; here the same code
    // with the error's own words, cleaned and on one line, never a stack trace.
    console.error(`admin: failed: ${oneLine(e)} (internal)`);
    return 1;
  }
}

process.exit(await main());
