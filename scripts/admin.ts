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
 * Embedded PGlite is single-process: stop the service first (the command takes DATA_DIR's lock, as
 * the service does, and refuses while a live process holds it).
 */
import { parseArgs } from 'node:util';
import { createLocalBus } from '../src/bus/local';
import { createNatsBus } from '../src/bus/nats';
import type { Bus } from '../src/bus/types';
import { loadConfigOrExit } from '../src/config';
import { busyMessage, lockDataDir } from '../src/data-dir-lock';
import { AppError } from '../src/errors';
import { ADMIN_STATUSES, getSubscription, publicSubscription, setSubscription, type AdminStatus } from '../src/services/billing';
import { openPglite, openPostgres } from '../src/stores/state/db';
import { errorMessage } from '../src/unknown';

const USAGE = `usage:
  bun scripts/admin.ts set-subscription --team <team_id> --seats <n> --status ${ADMIN_STATUSES.join('|')}
  bun scripts/admin.ts show-subscription --team <team_id>`;

class UsageError extends Error {}

function parse(argv: string[]) {
  const { positionals, values } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: { team: { type: 'string' }, seats: { type: 'string' }, status: { type: 'string' } },
  });
  const [command, ...rest] = positionals;
  if (rest.length > 0) throw new UsageError(`unexpected argument "${rest[0]}"`);
  if (!values.team) throw new UsageError('--team is required');
  if (command === 'show-subscription') return { command, team: values.team } as const;
  if (command !== 'set-subscription') throw new UsageError(command ? `unknown command "${command}"` : 'a command is required');
  const seats = Number(values.seats);
  if (values.seats === undefined || !/^\d+$/.test(values.seats) || !Number.isSafeInteger(seats)) throw new UsageError('--seats must be a whole number');
  const status = values.status;
  if (!ADMIN_STATUSES.some((s) => s === status)) throw new UsageError(`--status must be one of ${ADMIN_STATUSES.join(', ')}`);
  return { command, team: values.team, seats, status: status as AdminStatus } as const;
}

async function main(): Promise<number> {
  let args: ReturnType<typeof parse>;
  try {
    args = parse(process.argv.slice(2));
  } catch (e) {
    console.error(`admin: ${errorMessage(e)}\n${USAGE}`);
    return 1;
  }
  const config = loadConfigOrExit();
  // The lock is released when this process exits; a crashed service's lock is already gone.
  const locked = config.databaseUrl ? null : lockDataDir(config.dataDir);
  if (locked && !locked.ok) {
    console.error(`admin: ${busyMessage(locked.dir, locked.holderPid, 'embedded PGlite is single-process, stop it first')}`);
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
