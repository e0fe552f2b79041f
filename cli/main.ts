/**
 * hookcap: forward live captures to localhost, tail, replay, export, send. Exit codes: 0 ok,
 * 1 failure, 2 usage. Settings: flags > environment (HOOKCAP_API_URL, HOOKCAP_API_KEY) > the
 * config file `hookcap login` writes. docs/cli.md has every command.
 */
import { Command, CommanderError, Option } from 'commander';
// Imported rather than read at run time: the Node build (cli/build.ts) is one file in cli/dist,
// where a path relative to it would miss package.json; the bundler inlines it.
import pkg from '../package.json' with { type: 'json' };
import { DEFAULT_API_URL } from '../client/index';
import { clientFor, resolveSettings, type Settings } from './config';
import { createEndpoint, deleteEndpoint, listEndpoints, login, newestCapture } from './commands/account';
import { EXPIRES_IN_MAX_S, EXPIRES_IN_MIN_S } from '../src/model/endpoint-expiry';
import { checkRange, exportCaptures } from './commands/export';
import { BACKLOG_CHOICES, MAX_NEWEST, type Backlog } from './backlog';
import type { CaptureFilterOptions } from './capture-filter';
import { listen, type ListenOptions } from './commands/listen';
import { END_SESSION_TIMEOUT_MS, logout } from './commands/logout';
import { tail } from './commands/tail';
import { replay, send } from './commands/replay';
import { describeError, EXIT_USAGE, UsageError } from './errors';
import { err, styleFor, type Style } from './output';
import { askSecret, firstLineOfStdin } from './prompt';
import type { HeaderFilter } from '../src/stores/captures/types';
import { bodySource, captureIdArg, checkForwardTarget, checkListenArguments, checkRequiredOptions, requiredOption, collectHeader, collectHeaderFilter, duration, endpointNameArg, headerFilterParam, httpUrl, integer, oneOf, since, slugArg, timeBound } from './options';

interface GlobalFlags {
  apiUrl?: string;
  key?: string;
  color?: boolean;
}


let settings: Settings | null = null;
let exitCode = 0;

/** An action that resolves to its exit code. */
const act =
  <A extends unknown[]>(fn: (...args: A) => Promise<number>) =>
  async (...args: A): Promise<void> => {
    exitCode = await fn(...args);
  };

/** Settings and output style for a command, from its own and the program's flags. */
function setup(cmd: Command, opts: { replacingFile?: boolean; key?: string } = {}): { settings: Settings; style: Style } {
  const flags = cmd.optsWithGlobals<GlobalFlags>();
  if (flags.key === '-' && opts.key === undefined) {
    throw new UsageError('--key - (the key read from stdin) is for hookcap login', 'log in once with it (… | hookcap login --key -), then run this command without --key');
  }
  settings = resolveSettings({ apiUrl: flags.apiUrl, key: opts.key ?? flags.key }, process.env, opts);
  return { settings, style: styleFor(process.stdout, flags.color) };
}

/** `login --key -`: the key from stdin's first line, or asked for unseen when stdin is a terminal. */
async function keyFromStdin(): Promise<string> {
  const key = process.stdin.isTTY === true ? await askSecret('API key (svc_…; not shown): ') : firstLineOfStdin();
  if (key === '') throw new UsageError('--key -: no key on stdin (its first line is empty); nothing was saved', 'pipe the key in: pass show hookcap | hookcap login --key -');
  return key;
}

const program = new Command('hookcap')
  .description('Forward webhooks captured by hookcap to your machine, and replay, export or send them.')
  .version(pkg.version, '-V, --version')
  .option('--api-url <url>', 'hookcap API (env HOOKCAP_API_URL; default http://localhost:3000)', httpUrl('--api-url'))
  .option('--key <key>', 'API key svc_… (env HOOKCAP_API_KEY; or saved by hookcap login)')
  .option('--no-color', 'plain output even on a terminal (also NO_COLOR=1)')
  // `login --help` listed no option at all, yet it is `login --key svc_…`: every command's help
  // shows the program's options too.
  // `-V, --version` is the program's, not a command's: listed in the top-level help only.
  .configureHelp({
    showGlobalOptions: true,
    visibleGlobalOptions: (cmd) => {
      const global: Option[] = [];
      for (let up = cmd.parent; up; up = up.parent) global.push(...up.options.filter((o) => !o.hidden && o.long !== '--version'));
      return global;
    },
  })
  .showHelpAfterError('(add --help for usage)')
  .exitOverride()
  .configureOutput({ outputError: (text, write) => write(text) })
  .hook('preAction', (_program, command) => {
    checkListenArguments(command);
    checkRequiredOptions(command);
  });

program
  .command('login')
  .description('check an API key and save it, with the API URL, to $XDG_CONFIG_HOME/hookcap/config.json (mode 0600)')
  .addHelpText(
    'after',
    '\nThe key is trimmed of white space. To keep it out of shell history, leave --key out on a terminal\n' +
      '(it is asked for, not shown), or give --key - and the key on stdin:\n' +
      '  hookcap login --key svc_… --api-url https://hookcap.example.com\n' +
      '  pass show hookcap | hookcap login --key -',
  )
  .action(act(async (_opts, cmd: Command) => {
    const key = cmd.optsWithGlobals<GlobalFlags>().key === '-' ? await keyFromStdin() : undefined;
    return login(setup(cmd, { replacingFile: true, key }).settings);
  }));

program
  .command('logout')
  .description('remove the key hookcap login saved (on this machine only: the key stays valid until deleted in the dashboard)')
  .addHelpText(
    'after',
    '\nAn API key cannot revoke itself: delete it in the dashboard (Account, API keys) to stop it working anywhere.\n' +
      `A saved session token (ses_…) is also ended on the server it was saved for, when that answers within ${END_SESSION_TIMEOUT_MS / 1000} s.\n` +
      'HOOKCAP_API_KEY, when set, is read before the saved key and still applies after logout.',
  )
  // No settings are read: a broken config file or HOOKCAP_API_URL is no reason to keep the key.
  // A saved session is ended at the address saved with it, the server that issued it.
  .action(act(async () => logout()));

const endpoints = program.command('endpoints').description('list, create and delete capture endpoints; print the newest capture id of one');
endpoints
  .command('list')
  .description('your endpoints: slug, name, expiry (UTC), URL')
  .option('--json', 'machine-readable output')
  .action(act(async (opts: { json?: boolean }, cmd: Command) => {
    const { settings: s, style } = setup(cmd);
    return listEndpoints(clientFor(s), opts.json === true, style);
  }));
endpoints
  .command('create')
  .description('create an endpoint and print its capture URL')
  .argument('[name]', 'a name for it (left out: "Untitled endpoint"; given empty: a usage error)', endpointNameArg)
  .option('--expires <duration>', 'delete it and its captures after this long (1m to 30d: 30m, 2h, 1d, 1w); for CI runs that may not clean up', duration('--expires', EXPIRES_IN_MIN_S, EXPIRES_IN_MAX_S))
  .option('--json', 'machine-readable output')
  .addHelpText('after', '\nIn a CI job (nothing left behind if the job dies):\n  slug=$(hookcap endpoints create "ci-$RUN_ID" --expires 2h --json | jq -r .slug)')
  // Left out, the name is the API's to choose: an empty one is its "Untitled endpoint".
  .action(act(async (name: string | undefined, opts: { json?: boolean; expires?: number }, cmd: Command) =>
    createEndpoint(clientFor(setup(cmd).settings), name ?? '', { json: opts.json === true, expiresIn: opts.expires }),
  ));
endpoints
  .command('newest')
  .description('print the id of the newest capture of an endpoint (exit 3 and nothing printed when it has none)')
  .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
  .addHelpText(
    'after',
    '\nWait for the webhook a step triggers, and no earlier one, without comparing clocks:\n' +
      '  since=$(hookcap endpoints newest SLUG) || [ $? -eq 3 ] || exit 1   # exit 3: no capture yet\n' +
      '  trigger-the-webhook\n' +
      '  hookcap tail SLUG --since "${since:-0}" --count 1 --timeout 30 --json',
  )
  .action(act(async (slug: string, _opts: unknown, cmd: Command) => newestCapture(clientFor(setup(cmd).settings), slug)));
endpoints
  .command('delete')
  .description('delete an endpoint and all its captures (asks first on a terminal; elsewhere needs --yes)')
  .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
  .option('-y, --yes', 'do not ask; required when stdin is not a terminal (scripts, CI)')
  .option('--json', 'machine-readable output')
  .action(act(async (slug: string, opts: { json?: boolean; yes?: boolean }, cmd: Command) =>
    deleteEndpoint(clientFor(setup(cmd).settings), slug, { json: opts.json === true, yes: opts.yes === true }),
  ));

/** What commander hands the listen action: ListenOptions with --json optional, and the filters as flags. */
type ListenFlags = Omit<ListenOptions, 'json' | keyof CaptureFilterOptions> & FilterFlags & { json?: boolean };

/**
 * `--method`, `--path`, `--event`, `--header`: the capture filters tail and listen share
 * (cli/capture-filter.ts); `left` says what becomes of the captures they leave out.
 */
function filterOptions(cmd: Command, left: string): Command {
  return cmd
    .option('--method <method>', `only captures with this HTTP method (${left})`)
    .option('--path <path>', 'only captures at this path after the slug (/stripe for /w/<slug>/stripe)')
    .option('--event <event>', 'only captures whose detected event is this (invoice.paid)')
    .option('--header <name:value>', "only captures with this header whose value contains value, any case ('x-github-event:push'; 'name' alone: present); repeatable, all must hold", collectHeaderFilter);
}

/** The filter options as commander hands them over (`--header` is repeatable). */
interface FilterFlags {
  method?: string;
  path?: string;
  event?: string;
  header?: HeaderFilter[];
}

const filtersOf = (flags: FilterFlags): CaptureFilterOptions => ({ method: flags.method, path: flags.path, event: flags.event, headers: flags.header ?? [] });

/** The options listen and forward share. */
function forwardingOptions(cmd: Command): Command {
  return filterOptions(cmd, 'others are not forwarded; resuming goes past them')
    .option('--concurrency <n>', 'captures forwarded at once (they start in order)', integer('--concurrency', 1), 1)
    .option('--retries <n>', 'retries when the app answers 5xx, resets or times out (backoff 0.5 s, 1 s, 2 s … 10 s); a refused connection is waited out', integer('--retries', 0), 3)
    .option('--timeout <seconds>', 'per attempt', integer('--timeout', 1), 30)
    .option('--since <time|id>', 'first forward what arrived since then (15m, 2h, 7d, ISO 8601) or after that capture id', since)
    .option('--no-resume', "start at live instead of after the last capture this machine handled")
    .option('--max-backlog <n>', 'resuming with more captures than this waiting asks first (see --backlog)', integer('--max-backlog', 0), 100)
    .addOption(
      new Option('--backlog <what>', 'over --max-backlog: ask (on a terminal; elsewhere skip), all, newest (the newest --max-backlog) or skip (start live)')
        .argParser(oneOf('--backlog', BACKLOG_CHOICES))
        .default('ask'),
    )
    .option('-k, --insecure', "accept the local app's self-signed HTTPS certificate")
    .option('--json', 'one JSON object per line')
    .addHelpText(
      'after',
      '\nEach capture goes to URL + its path (a capture at /w/<slug>/stripe?x=1 with --forward http://127.0.0.1:4000/hooks\n' +
        'goes to http://127.0.0.1:4000/hooks/stripe?x=1) with the same method, headers and body bytes.',
    );
}

/** `--backlog newest` finds the newest N with a search offset of N, which the server bounds. */
function checkNewest(flags: { backlog?: string; maxBacklog: number }, all: string): void {
  if (flags.backlog === 'newest' && flags.maxBacklog > MAX_NEWEST) {
    throw new UsageError(
      `--backlog newest takes --max-backlog ${MAX_NEWEST.toLocaleString('en-US')} at most (the server's search offset limit), got ${flags.maxBacklog}`,
      `--backlog all ${all} every capture waiting; --since <time|id> starts at a point of your choosing`,
    );
  }
}

const runListen = async (slug: string, flags: ListenFlags, cmd: Command) => {
  checkNewest(flags, 'forwards');
  checkForwardTarget(slug, flags.forward);
  const { settings: s, style } = setup(cmd);
  const { method, path, event, header, ...rest } = flags;
  return listen(clientFor(s), s, slug, { ...rest, ...filtersOf({ method, path, event, header }), json: flags.json === true }, style);
};

forwardingOptions(
  program
    .command('listen')
    .description('forward every capture of an endpoint to a local URL, live, resuming where it stopped')
    .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
    // `listen SLUG URL` is refused by checkListenArguments, with the two ways to say it.
    .allowExcessArguments()
    .addOption(requiredOption('--forward <url>', 'where to send captures, e.g. http://127.0.0.1:4000/hooks').argParser(httpUrl('--forward'))),
).action(act(async (slug: string, flags: ListenFlags, cmd: Command) => runListen(slug, flags, cmd)));

forwardingOptions(
  program
    .command('forward')
    .description('the same as listen SLUG --forward URL')
    .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
    .argument('<url>', 'where to send captures', httpUrl('URL')),
).action(act(async (slug: string, url: string, flags: Omit<ListenFlags, 'forward'>, cmd: Command) => runListen(slug, { ...flags, forward: url }, cmd)));

filterOptions(
  program
    .command('tail')
    .description('print captures as they arrive, without forwarding')
    .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
    .option('--since <time|id>', 'first print what arrived since then (15m, 2h, ISO 8601) or after that capture id', since)
    .option('--json', 'each capture as its full request record, one per line')
    .option('--count <n>', 'stop after n captures', integer('--count', 1))
    .option('--timeout <seconds>', 'stop after this long; exit 1 if --count captures have not all come', integer('--timeout', 1)),
  'others are neither printed nor counted',
)
  .option('--max-backlog <n>', 'reconnecting with more captures than this waiting (a laptop back from sleep) asks first (see --backlog)', integer('--max-backlog', 0), 100)
  .addOption(
    new Option('--backlog <what>', 'over --max-backlog on a reconnect: ask, all, newest (the newest --max-backlog) or skip (go on live); default: ask on a terminal, all elsewhere')
      .argParser(oneOf('--backlog', BACKLOG_CHOICES)),
  )
  .addHelpText(
    'after',
    '\nWaiting for a webhook in a script or test (exit 0 with its record, or 1 after 30 s); --since the newest capture\n' +
      'before the trigger also finds one that came before tail connected, and no earlier one (exit 3: none yet):\n' +
      '  since=$(hookcap endpoints newest SLUG) || [ $? -eq 3 ] || exit 1\n' +
      '  trigger-the-webhook; hookcap tail SLUG --since "${since:-0}" --count 1 --timeout 30 --json',
  )
  .action(act(async (
    slug: string,
    opts: FilterFlags & {
      since?: string;
      json?: boolean;
      count?: number;
      timeout?: number;
      backlog?: Backlog;
      maxBacklog: number;
    },
    cmd: Command,
  ) => {
    checkNewest(opts, 'prints');
    const { settings: s, style } = setup(cmd);
    const { since: from, json, count, timeout, backlog, maxBacklog } = opts;
    return tail(clientFor(s), slug, { since: from, json: json === true, count, timeout, ...filtersOf(opts), backlog, maxBacklog }, style);
  }));

program
  .command('replay')
  .description('send one stored capture again, from this machine (localhost works)')
  .argument('<request_id>', 'req_…', captureIdArg)
  .addOption(requiredOption('--to <url>', 'where to send it, exactly as given').argParser(httpUrl('--to')))
  .option('-H, --header <header>', "set a header ('name: value'), send one empty ('name;', as with curl), or remove one ('name:'); repeatable", collectHeader)
  .option('--body <@file|text>', 'another body: @file, @- for stdin, or the text itself')
  .option('--timeout <seconds>', 'for the whole exchange', integer('--timeout', 1), 30)
  .option('-k, --insecure', 'accept a self-signed HTTPS certificate')
  .option('--json', 'status, headers, body and latency as JSON')
  .action(act(async (id: string, opts: { to: string; header?: [string, string | null][]; body?: string; timeout: number; insecure?: boolean; json?: boolean }, cmd: Command) => {
    const { settings: s, style } = setup(cmd);
    const body = opts.body === undefined ? undefined : bodySource('--body', opts.body);
    return replay(clientFor(s), id, { to: opts.to, headers: opts.header ?? [], body, timeout: opts.timeout, insecure: opts.insecure === true, json: opts.json === true }, style);
  }));

program
  .command('export')
  .description('every capture of an endpoint as HAR 1.2, NDJSON request records, or a shell script of cURL commands')
  .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
  .addOption(requiredOption('--format <format>', 'har, ndjson or curl').argParser(oneOf('--format', ['har', 'ndjson', 'curl'] as const)))
  .option('--since <time>', 'only captures since then (30s, 15m, 2h, 7d, 1w, ms or ISO 8601)', timeBound('--since'))
  .option('--until <time>', 'only captures until then (default: now)', timeBound('--until'))
  .option('--q <text>', 'only captures with this text in path, body, header values or query, or a header of this name')
  .option('--header <name:value>', "only captures with this header whose value contains value, any case ('x-github-event:push'; 'name' alone: present); repeatable, all must hold", collectHeaderFilter)
  .option('--method <method>', 'only this HTTP method')
  .option('--to <url>', 'curl: point the commands at this base URL (+ captured path) instead of hookcap', httpUrl('--to'))
  .option('-o, --output <file>', 'write to a file instead of stdout')
  .option('--quiet', 'no progress line')
  .action(act(
    async (
      slug: string,
      opts: { format: 'har' | 'ndjson' | 'curl'; since?: string; until?: string; q?: string; header?: HeaderFilter[]; method?: string; to?: string; output?: string; quiet?: boolean },
      cmd: Command,
    ) => {
      checkRange(opts.since, opts.until);
      // HAR and NDJSON keep the captured URLs: a --to there changed nothing, and said nothing.
      if (opts.to !== undefined && opts.format !== 'curl') {
        throw new UsageError(`--to is for --format curl; a ${opts.format === 'har' ? 'HAR' : 'NDJSON'} export keeps the captured URLs`, 'drop --to, or export --format curl --to URL for a script that sends the captures there');
      }
      return exportCaptures(clientFor(setup(cmd).settings), slug, { ...opts, header: (opts.header ?? []).map(headerFilterParam), quiet: opts.quiet === true });
    },
  ));

program
  .command('send')
  .description('send a test request to your endpoint through hookcap (send-test)')
  .argument('<slug>', 'the endpoint (or its capture URL)', slugArg)
  .option('--method <method>', 'HTTP method (default POST)')
  .option('-H, --header <header>', "a header 'name: value' ('name;' or 'name:' sends it empty); repeatable", collectHeader)
  .option('--data <@file|text>', 'the body: @file, @- for stdin, or the text itself (default a small JSON test event)')
  .option('--json', 'the result as JSON')
  .action(act(async (slug: string, opts: { method?: string; header?: [string, string | null][]; data?: string; json?: boolean }, cmd: Command) => {
    const { settings: s, style } = setup(cmd);
    const data = opts.data === undefined ? undefined : bodySource('--data', opts.data);
    return send(clientFor(s), slug, { method: opts.method, headers: opts.header ?? [], data, json: opts.json === true }, style);
  }));

/** The API address an error message names when no command got as far as reading the settings. */
function apiUrlForMessages(): string {
  try {
    return resolveSettings({}).apiUrl;
  } catch {
    // The unreadable config file is the error being reported.
    return DEFAULT_API_URL;
  }
}

async function main(): Promise<number> {
  try {
    await program.parseAsync(process.argv);
  } catch (e) {
    if (e instanceof CommanderError) {
      // --help and --version end here too; everything else commander refuses is a usage error.
      return e.code === 'commander.helpDisplayed' || e.code === 'commander.version' || e.exitCode === 0 ? 0 : EXIT_USAGE;
    }
    const d = describeError(e, settings?.apiUrl ?? apiUrlForMessages(), settings?.sources.key);
    err(`error: ${d.message}${d.hint ? `; ${d.hint}` : ''}`);
    return d.exitCode;
  }
  return exitCode;
}

process.exit(await main());
