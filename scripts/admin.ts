/**
 * Operator commands, run with the service's own configuration (DATABASE_URL, or the embedded
 * PGlite under DATA_DIR):
 *
 *   bun scripts/admin.ts set-subscription --team <team_id> --seats <n> --status active|canceled
 *   bun scripts/admin.ts show-subscription --team <team_id>
 *
 * For deployments without Stripe. Prints the result as one JSON line; exits 1 with a message on a
 * bad argument or an unknown team, 2 on a bad configuration.
 *
 * Embedded PGlite is single-process: stop the service first (the command refuses while
 * DATA_DIR/pglite/postmaster.pid exists; `--force` overrides after a crash left it behind).
 */
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { parseArgs } from 'node:util';
import { createLocalBus } from '../src/bus/local';
import { createNatsBus } from '../src/bus/nats';
import type { Bus } from '../src/bus/types';
import { loadConfigOrExit } from '../src/config';
import { AppError } from '../src/errors';
import { ADMIN_STATUSES, getSubscription, publicSubscription, setSubscription, type AdminStatus } from '../src/services/billing';
import { openPglite, openPostgres } from '../src/stores/state/db';

const USAGE = `usage:
  bun scripts/admin.ts set-subscription --team <team_id> --seats <n> --status ${ADMIN_STATUSES.join('|')} [--force]
  bun scripts/admin.ts show-subscription --team <team_id> [--force]`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { team: { type: 'string' }, seats: { type: 'string' }, status: { type: 'string' }, force: { type: 'boolean' } },
  });
  const [command, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (!values.team) throw new UsageError('--team is required');
  if (command === 'show-subscription') return { command, team: values.team, force: values.force === true } as const;
  if (command !== 'set-subscription') throw new UsageError(command ? `unknown command "${command}"` : 'a command is required');
  const seats = Number(values.seats);
  if (values.seats === undefined || !/^\d+$/.test(values.seats) || !Number.isSafeInteger(seats)) throw new UsageError('--seats must be a whole number');
  const status = values.status;
  if (!ADMIN_STATUSES.some((s) => s === status)) throw new UsageError(`--status must be one of ${ADMIN_STATUSES.join(', ')}`);
  return { command, team: values.team, seats, status: status as AdminStatus, force: values.force === true } as const;
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(process.argv.slice(2));
  } catch (e) {
    console.error(`admin: ${e instanceof Error ? e.message : String(e)}\n${USAGE}`);
    return 1;
  }
  const config = loadConfigOrExit();
  if (!config.databaseUrl && !args.force && existsSync(join(config.dataDir, 'pglite', 'postmaster.pid'))) {
    console.error(`admin: the service seems to be running on ${config.dataDir} (embedded PGlite is single-process); stop it first, or pass --force if it crashed`);
    return 1;
  }
  const state = config.databaseUrl ? await openPostgres(config.databaseUrl) : await openPglite(config.dataDir);
  // With NATS, running nodes hear the change at once (open live streams re-check access).
  const bus: Bus = config.natsUrl ? await createNatsBus(config.natsUrl, config.natsPrefix) : createLocalBus();
  try {
    if (args.command === 'show-subscription') {
      const sub = await getSubscription({ db: state.db, bus }, args.team);
      console.log(JSON.stringify({ teamId: args.team, ...publicSubscription(sub), source: sub?.source ?? null }));
    } else {
      const sub = await setSubscription({ db: state.db, bus }, { teamId: args.team, seats: args.seats, status: args.status });
      console.log(JSON.stringify({ teamId: sub.teamId, ...publicSubscription(sub), source: sub.source }));
    }
    return 0;
  } catch (e) {
    if (e instanceof AppError) {
      console.error(`admin: ${e.message}`);
      return 1;
    }
    throw e;
  } finally {
    await bus.flush().catch(() => {});
    await bus.close();
    await state.close();
  }
}

process.exit(await main());
