/**
 * The rest of the CLI, run as a user runs it: login and where settings come from, endpoints,
 * tail, replay, export (small; export-100k.test.ts is the big one), send, usage errors and help.
 */
import { describe, expect, test } from 'bun:test';
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import net from 'node:net';
import { join } from 'node:path';
import { har as validateHar } from 'har-validator';
import type { Capture } from '../../src/model/capture';
import { bodyBytes } from '../../src/model/render';
import { sendCaptures } from '../support/bulk-capture';
import { cleanupAfterAll } from '../support/cleanups';
import { call, eventually, newAccount } from '../support/client';
import { clearOfWindowEdge } from '../support/rate-window';
import { startServer, stopServer } from '../support/server';
import { describeBackends } from '../support/suite';
import { CLI, cliEnv, runCli, RunningCli, startLocalApp, startRelay, TtyCli, type CliEnv } from './support';

const cleanups = cleanupAfterAll();

function env(vars: Record<string, string> = {}): CliEnv {
  const e = cliEnv(vars);
  cleanups.push(e.cleanup);
  return e;
}

/** Well-formed, and no endpoint's. */
const SLUG = 'abcdefghjkmn';

const BINARY = new Uint8Array([0x00, 0xff, 0xfe, 0x25, 0x27, 0x5c, 0x0a, 0x80, 0xc3, 0x28]);

describe('usage', () => {
  test('--help on every command, exit 0', async () => {
    const e = env();
    for (const args of [[], ['login'], ['logout'], ['endpoints'], ['endpoints', 'list'], ['endpoints', 'create'], ['endpoints', 'delete'], ['listen'], ['forward'], ['tail'], ['replay'], ['export'], ['send']]) {
      const r = await runCli([...args, '--help'], e.env);
      expect(r.code, args.join(' ')).toBe(0);
      expect(r.stdout).toContain('Usage: hookcap');
      // Where a command's help is read, the key and the address it needs are named too.
      expect(r.stdout, args.join(' ')).toContain('--key <key>');
      expect(r.stdout, args.join(' ')).toContain('--api-url <url>');
      // --version is the program's: in its help only, not among a command's global options.
      if (args.length > 0) expect(r.stdout, args.join(' ')).not.toContain('--version');
      // Repeatable options start empty: commander's `(default: [])` told nothing.
      expect(r.stdout, args.join(' ')).not.toContain('(default: [])');
    }
    expect((await runCli(['--help'], e.env)).stdout).toMatch(/-V, --version\s+output the version number/);
    // logout is listed beside login, and its help says the key stays valid (an API key cannot delete itself).
    expect((await runCli(['--help'], e.env)).stdout).toMatch(/\n {2}logout +remove the key hookcap login saved/);
    expect((await runCli(['logout', '--help'], e.env)).stdout).toContain('An API key cannot revoke itself');
    // replay's -H names both of curl's conventions.
    expect((await runCli(['replay', '--help'], e.env)).stdout.replace(/\s+/g, ' ')).toContain("send one empty ('name;', as with curl)");
    const required: [string[], string][] = [[['listen'], '--forward <url>'], [['replay'], '--to <url>'], [['export'], '--format <format>']];
    for (const [args, option] of required) {
      const r = await runCli([...args, '--help'], e.env);
      expect(r.stdout).toMatch(new RegExp(`${option}\\s+required: `));
    }
  });

  test('usage errors exit 2 with one line saying what is wrong, no stack', async () => {
    const e = env({ HOOKCAP_API_KEY: 'svc_x' });
    const cases: [string[], string][] = [
      [[], 'Usage:'],
      [['frobnicate'], "unknown command 'frobnicate'"],
      [['listen', SLUG], "required option '--forward <url>'"],
      [['listen', SLUG, '--forward', 'ftp://x'], '--forward must be an http or https URL'],
      // The URL as forward takes it: both ways to say it, not commander's bare "too many arguments".
      [['listen', SLUG, 'http://127.0.0.1:4000/hooks'], `error: too many arguments: listen takes the endpoint alone, and where to forward with --forward (got "${SLUG}" "http://127.0.0.1:4000/hooks"); hookcap listen ${SLUG} --forward http://127.0.0.1:4000/hooks, or hookcap forward ${SLUG} http://127.0.0.1:4000/hooks\n`],
      // A port, or a host and port, without http://: the URL suggested, not assumed.
      [['listen', SLUG, '--forward', 'localhost:4711'], 'error: --forward must be an http or https URL, got "localhost:4711"; did you mean --forward http://localhost:4711?\n'],
      [['listen', SLUG, '--forward', '4711'], 'error: --forward must be a URL such as http://127.0.0.1:4000/hooks, got "4711"; did you mean --forward http://localhost:4711?\n'],
      [['forward', SLUG, '127.0.0.1:4000/hooks'], 'did you mean http://127.0.0.1:4000/hooks?'],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--concurrency', '0'], '--concurrency must be a whole number ≥ 1'],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--retries', 'many'], '--retries must be a whole number'],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--since', 'yesterday'], '--since must be a duration'],
      [['tail', SLUG, '--since', '10'], '--since 10 has no unit: write 10m, 10h or 10d'],
      [['export', SLUG, '--format', 'ndjson', '--until', '5'], '--until 5 has no unit'],
      // Without --until the export ends now: said in the options' names, not as the API's from/to.
      [['export', SLUG, '--format', 'ndjson', '--since', '2099-01-01'], '--since 2099-01-01 is in the future'],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--bogus'], "unknown option '--bogus'"],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--backlog', 'maybe'], '--backlog must be one of ask, all, newest, skip'],
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--max-backlog', 'lots'], '--max-backlog must be a whole number ≥ 0'],
      // The newest N are found by a search offset of N, which the server caps at 10,000.
      [['listen', SLUG, '--forward', 'http://127.0.0.1:1', '--backlog', 'newest', '--max-backlog', '10001'], '--backlog newest takes --max-backlog 10,000 at most'],
      [['forward', SLUG, 'http://127.0.0.1:1', '--max-backlog', '50000', '--backlog', 'newest'], '--backlog newest takes --max-backlog 10,000 at most'],
      [['forward', SLUG], "missing required argument 'url'"],
      [['export', SLUG, '--format', 'xml'], '--format must be one of har, ndjson, curl'],
      // Only the cURL script is pointed elsewhere: a HAR asked for with --to would silently keep hookcap's URLs.
      [['export', SLUG, '--format', 'har', '--to', 'http://127.0.0.1:4000'], '--to is for --format curl; a HAR export keeps the captured URLs'],
      [['export', SLUG], "required option '--format <format>'"],
      [['replay', 'req_1', '--to', 'http://127.0.0.1:1', '-H', 'no colon'], "-H takes 'name: value'"],
      // The reason in the OS's words (cli/errors.ts osReason), with the file named once.
      [['send', SLUG, '--data', '@/nonexistent/file'], '--data: cannot read /nonexistent/file: no such file or directory'],
      [['replay', 'req_01M8J14ECK2WBM3Q50GN63DNY0', '--to', 'http://127.0.0.1:1', '--body', '@/'], '--body: cannot read /: it is a folder'],
      // An empty name is likelier an unset shell variable ("$NAME") than a wish for "Untitled endpoint".
      [['endpoints', 'create', ''], 'the endpoint name is empty (""); an unset shell variable?'],
      [['endpoints', 'create', ' \t', '--expires', '1h'], 'the endpoint name is only white space (" \\t")'],
      // curl's empty-header form takes nothing after the semicolon.
      [['replay', 'req_01M8J14ECK2WBM3Q50GN63DNY0', '--to', 'http://127.0.0.1:1', '-H', 'x; y'], "-H takes 'name: value' (or 'name;' for an empty header)"],
      [['--api-url', 'nope', 'endpoints', 'list'], '--api-url must be a URL'],
      // The endpoint's name, or '..', which would make another URL, for its slug.
      [['tail', 'stripe-dev'], 'not an endpoint slug: "stripe-dev"'],
      // Twelve letters and digits, but a slug has no capitals: the hint may not say it has the right form.
      [['tail', 'GTZCBZ9U5PXI'], 'a slug is 12 lower-case letters and digits'],
      [['endpoints', 'delete', '..'], 'not an endpoint slug: ".."'],
      [['replay', '', '--to', 'http://127.0.0.1:1'], 'not a capture id: ""'],
    ];
    for (const [args, message] of cases) {
      const r = await runCli(args, e.env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toContain(message);
      expect(r.stderr).not.toContain('    at ');
    }
    // Any reason the OS gives is said as the others are: not the runtime's "ENOTDIR: not a directory, open '…'", which names the file twice.
    const file = join(e.configHome, 'a-file');
    writeFileSync(file, 'x');
    const through = await runCli(['send', SLUG, '--data', `@${file}/x`], e.env);
    expect(through.code).toBe(2);
    expect(through.stderr).toBe(`error: --data: cannot read ${file}/x: not a directory; add --help for usage\n`);
  });

  test('a command missing both its argument and a required option is told about the argument first, as its usage line orders them', async () => {
    const e = env({ HOOKCAP_API_KEY: 'svc_x' });
    const cases: [string[], string, string][] = [
      [['listen'], 'slug', '--forward'],
      [['listen', '--forward', 'http://127.0.0.1:1'], 'slug', '--forward'],
      [['export'], 'slug', '--format'],
      [['replay'], 'request_id', '--to'],
    ];
    for (const [args, argument, option] of cases) {
      const r = await runCli(args, e.env);
      expect(r.code, args.join(' ')).toBe(2);
      expect(r.stderr, args.join(' ')).toBe(`error: missing required argument '${argument}'\n(add --help for usage)\n`);
      expect(r.stderr).not.toContain(option);
    }
    // The argument given, the option is still required, said the same way.
    const r = await runCli(['replay', 'req_01M8HXZ1QKF5SXQ7SMQ5AYS9P6'], e.env);
    expect(r.code).toBe(2);
    expect(r.stderr).toBe("error: required option '--to <url>' not specified\n(add --help for usage)\n");
  });
});

describe('status lines', () => {
  test('on a terminal, with stderr sent to a file: the file gets no colour codes', async () => {
    // Nothing answers at the API address: tail keeps saying it reconnects, on stderr, until --timeout.
    const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9', TERM: 'xterm' });
    const log = join(e.configHome, 'tail.log');
    const p = Bun.spawn(['script', '-qec', `${process.execPath} ${CLI} tail ${SLUG} --since 1m --timeout 3 2>${log}`, '/dev/null'], { env: e.env, stdout: 'pipe', stderr: 'pipe' });
    await Promise.all([new Response(p.stdout).text(), p.exited]);
    const written = readFileSync(log, 'utf8');
    expect(written).toContain('connection lost (cannot reach http://127.0.0.1:9');
    expect(written).not.toContain('\u001b[');
  });

  test('nothing answering at the API address: "connection refused" in plain words, not the runtime\'s question to the user', async () => {
    const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    const r = await runCli(['endpoints', 'list'], e.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe('error: cannot reach http://127.0.0.1:9: connection refused; is hookcap running at http://127.0.0.1:9? Set the address with --api-url or HOOKCAP_API_URL\n');
    // The status line a stream repeats while it reconnects says it the same way.
    const t = await runCli(['tail', SLUG, '--since', '1m', '--timeout', '2'], e.env);
    expect(t.stderr).toContain('connection lost (cannot reach http://127.0.0.1:9: connection refused); reconnecting in ');
    expect(t.stderr).not.toContain('Is the computer able');
    const host = await runCli(['endpoints', 'list', '--api-url', 'http://hookcap.invalid'], e.env);
    expect(host.stderr).toStartWith('error: cannot reach http://hookcap.invalid: no such host; ');
  });
});

describe('an API address where something else answers', () => {
  /** A server that is not hookcap: `answer` for every request. */
  function other(answer: () => Response): string {
    const server = Bun.serve({ port: 0, hostname: '127.0.0.1', fetch: answer });
    cleanups.push(() => void server.stop(true));
    return `http://127.0.0.1:${server.port}`;
  }

  test('200 JSON of another shape (the developer\'s own app on the default port): every command says it is not a hookcap API; login saves nothing', async () => {
    const url = other(() => Response.json({ ok: true, message: 'hello from my app' }));
    const e = env({ HOOKCAP_API_URL: url, HOOKCAP_API_KEY: 'svc_x' });
    const path = join(e.configHome, 'hookcap', 'config.json');
    mkdirSync(join(e.configHome, 'hookcap'), { recursive: true });
    const saved = JSON.stringify({ apiUrl: 'http://hookcap.example.com', key: 'svc_saved' });
    writeFileSync(path, saved);
    const login = await runCli(['login', '--key', 'svc_new', '--api-url', url], e.env);
    expect(login.code).toBe(1);
    expect(login.stdout).toBe('');
    expect(login.stderr).toBe(`error: ${url} does not answer as a hookcap API (it answered GET /api/auth/me 200 with JSON that is not what hookcap sends); set the address the hookcap server prints at start-up (its API, e.g. http://localhost:3000/api) with --api-url or HOOKCAP_API_URL\n`);
    expect(readFileSync(path, 'utf8')).toBe(saved);
    for (const args of [['endpoints', 'list'], ['endpoints', 'list', '--json'], ['endpoints', 'create', 'x'], ['endpoints', 'newest', SLUG], ['tail', SLUG, '--timeout', '5'], ['replay', 'req_01M8J14ECK2WBM3Q50GN63DNY0', '--to', `${url}/x`], ['send', SLUG], ['export', SLUG, '--format', 'ndjson'], ['listen', SLUG, '--forward', 'http://127.0.0.1:9/x']]) {
      const r = await runCli(args, e.env, { timeoutMs: 20_000 });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(new RegExp(`^error: ${url.replace(/[.]/g, '\\.')} does not answer as a hookcap API \\(it answered [A-Z]+ /api/\\S+ 200 with JSON that is not what hookcap sends\\); set the address`));
    }
    // With --since the stream is asked first: a JSON answer there is no event stream.
    const stream = await runCli(['tail', SLUG, '--since', 'req_01M8J14ECK2WBM3Q50GN63DNY0', '--timeout', '5'], e.env);
    expect(stream.code).toBe(1);
    expect(stream.stderr).toStartWith(`error: ${url} does not answer as a hookcap API (it answered GET /api/stream/${SLUG} 200 with application/json, not an event stream); set the address`);
  });

  test('an HTML error page (500): said with its status, not printed', async () => {
    const url = other(() => new Response('<!DOCTYPE html><html><body><h1>Internal Server Error</h1></body></html>', { status: 500, headers: { 'content-type': 'text/html' } }));
    const e = env({ HOOKCAP_API_URL: url, HOOKCAP_API_KEY: 'svc_x' });
    for (const args of [['login', '--key', 'svc_x'], ['endpoints', 'list'], ['endpoints', 'create', 'x']]) {
      const r = await runCli(args, e.env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toStartWith(`error: ${url} does not answer as a hookcap API (it answered 500 with an HTML page); set the address`);
    }
    expect(existsSync(join(e.configHome, 'hookcap', 'config.json'))).toBe(false);
  });

  test('a proxy\'s 502 page: said as the proxy\'s, with a hookcap behind it restarting as the first guess', async () => {
    const url = other(() => new Response('<html><body><center><h1>502 Bad Gateway</h1></center></body></html>', { status: 502, headers: { 'content-type': 'text/html' } }));
    const e = env({ HOOKCAP_API_URL: url, HOOKCAP_API_KEY: 'svc_x' });
    for (const args of [['login', '--key', 'svc_x'], ['endpoints', 'list']]) {
      const r = await runCli(args, e.env);
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toBe(
        `error: ${url} answered through a proxy, not from hookcap (it answered 502 with an HTML page); if hookcap runs behind that proxy, it is down or restarting: try again in a moment; else set the address the hookcap server prints at start-up (its API, e.g. http://localhost:3000/api) with --api-url or HOOKCAP_API_URL\n`,
      );
    }
    expect(existsSync(join(e.configHome, 'hookcap', 'config.json'))).toBe(false);
  });
});

describe('broken files', () => {
  test('an unreadable config or position file: one line naming it and what to do, exit 1, no stack', async () => {
    const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    mkdirSync(join(e.configHome, 'hookcap', 'state'), { recursive: true });
    const config = join(e.configHome, 'hookcap', 'config.json');
    writeFileSync(config, '{"apiUrl": "http://localhost:3000", "key": "svc_');
    const r = await runCli(['endpoints', 'list'], e.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: cannot read ${config}: .*; run hookcap login --key svc_… to write it anew\\n$`));

    rmSync(config);
    const state = join(e.configHome, 'hookcap', 'state', `${SLUG}.json`);
    writeFileSync(state, '');
    const l = await runCli(['listen', SLUG, '--forward', 'http://127.0.0.1:9'], e.env);
    expect(l.code).toBe(1);
    expect(l.stderr).toMatch(new RegExp(`^error: cannot read ${state}: .*; delete the file to start at live, or pass --since or --no-resume\\n$`));
  });
});

describe('export -o where no file can be created', () => {
  test('the reason is the true one: a folder that takes no files is not "no folder"; a file in the way is named; exit 1 before anything is asked', async () => {
    // Nothing answers at the API address: the part file is opened first, so these fail before it is asked.
    const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    const file = join(e.configHome, 'a-file');
    writeFileSync(file, 'x');
    const hint = 'nothing was exported; give -o a file in a folder that exists and that you can write to';
    const cases: [string, string][] = [
      // procfs answers "no such file or directory" to a new file in a folder that exists.
      ['/proc/x.json', 'the folder /proc exists, but a file cannot be created in it (no such file or directory)'],
      [join(file, 'x.json'), `${file} is a file, not a folder`],
      [join(file, 'sub', 'x.json'), `there is no folder ${join(file, 'sub')} (${file} is a file)`],
      [join(e.configHome, 'none', 'x.json'), `there is no folder ${join(e.configHome, 'none')}`],
    ];
    for (const [path, why] of cases) {
      const r = await runCli(['export', SLUG, '--format', 'har', '-o', path], e.env);
      expect(r.code, path).toBe(1);
      expect(r.stderr, path).toBe(`error: cannot write ${path}: ${why}; ${hint}\n`);
    }
  });
});

describe('export -o, the server down at the count', () => {
  test('the line says nothing was written to FILE, as every failure before the first record does; FILE stays as it was', async () => {
    const e = env({ HOOKCAP_API_KEY: 'svc_x', HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const file = join(dir, 'all.har');
    writeFileSync(file, 'an earlier export\n');
    const r = await runCli(['export', SLUG, '--format', 'har', '-o', file, '--quiet'], e.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(
      `error: cannot reach http://127.0.0.1:9: connection refused; nothing written to ${file}; is hookcap running at http://127.0.0.1:9? Set the address with --api-url or HOOKCAP_API_URL\n`,
    );
    expect(readFileSync(file, 'utf8')).toBe('an earlier export\n');
    expect(readdirSync(dir)).toEqual(['all.har']);
    // To stdout there is no file to speak of.
    const piped = await runCli(['export', SLUG, '--format', 'har', '--quiet'], e.env);
    expect(piped.stderr).toBe('error: cannot reach http://127.0.0.1:9: connection refused; is hookcap running at http://127.0.0.1:9? Set the address with --api-url or HOOKCAP_API_URL\n');
  });
});

describe('logout', () => {
  test('without a server: removes the saved file whatever it holds, says so, and says when nothing was saved (exit 0 both times)', async () => {
    // Neither a server nor a usable address is needed: HOOKCAP_API_URL here is one every other command refuses.
    const e = env({ HOOKCAP_API_URL: 'not a url' });
    const path = join(e.configHome, 'hookcap', 'config.json');
    const none = await runCli(['logout'], e.env);
    expect(none.code).toBe(0);
    expect(none.stdout).toBe(`Nothing to remove: no key is saved (there is no ${path}).\n`);
    expect(none.stderr).toBe('');

    // A file that cannot be read is removed all the same: removing it is what was asked.
    mkdirSync(join(e.configHome, 'hookcap'), { recursive: true });
    writeFileSync(path, '{"apiUrl": "http://localhost:3000", "key": "svc_');
    const broken = await runCli(['logout'], e.env);
    expect(broken.code, broken.stderr).toBe(0);
    expect(broken.stdout).toBe(
      `Logged out: removed ${path}, which could not be read, so the key it held is not known.\n` +
        'That key is not revoked and still works: to revoke it, open the dashboard at /account and delete it under API keys.\n',
    );
    expect(readdirSync(join(e.configHome, 'hookcap'))).toEqual([]);
  });

  test("removes the temp files an interrupted login left beside the config (login's naming only), and says so", async () => {
    const e = env();
    const dir = join(e.configHome, 'hookcap');
    const path = join(dir, 'config.json');
    mkdirSync(join(dir, 'state'), { recursive: true });
    // What login writes before renaming (config.json.<pid>.tmp), killed between the two: it holds the key.
    const saved = JSON.stringify({ apiUrl: 'http://127.0.0.1:9', key: 'svc_0123456789abcdef' });
    writeFileSync(path, saved);
    writeFileSync(`${path}.4242.tmp`, saved);
    writeFileSync(`${path}.77.tmp`, '{"apiUrl": "http://127.0.0.1:9", "ke');
    // Not login's temp files: kept.
    const others = ['config.json.tmp', 'config.json.12a.tmp', 'config.json.5.tmp.bak', 'other.json.5.tmp', 'state'];
    for (const name of others.slice(0, -1)) writeFileSync(join(dir, name), 'x');
    writeFileSync(join(dir, 'state', 'abcdefghjkmn.json.5.tmp'), '{}');
    const r = await runCli(['logout'], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).toBe(
      `Logged out: removed the key svc_01234567… saved for http://127.0.0.1:9 (${path}).\n` +
        'The key itself is not revoked and still works: to revoke it, open http://127.0.0.1:9/account and delete svc_01234567… under API keys.\n' +
        `Also removed 2 temp files an interrupted hookcap login left beside it, which may have held a key: ${path}.4242.tmp, ${path}.77.tmp.\n`,
    );
    expect(readdirSync(dir).sort()).toEqual([...others].sort());
    expect(readdirSync(join(dir, 'state'))).toEqual(['abcdefghjkmn.json.5.tmp']);

    // A temp file alone (the login died before its first rename): removed, and nothing else claimed.
    writeFileSync(`${path}.4243.tmp`, saved);
    const alone = await runCli(['logout'], e.env);
    expect(alone.code, alone.stderr).toBe(0);
    expect(alone.stdout).toBe(
      `No key is saved (there is no ${path}).\n` + `Also removed a temp file an interrupted hookcap login left beside it, which may have held a key: ${path}.4243.tmp.\n`,
    );
    expect(readdirSync(dir).sort()).toEqual([...others].sort());
  });
});

describeBackends('hookcap commands', (h) => {
  test('login checks the key and saves it (0600); flags beat the environment, which beats the file', async () => {
    const a = await newAccount(h.url);
    const e = env();
    const none = await runCli(['endpoints', 'list'], e.env);
    expect(none.code).toBe(1);
    expect(none.stderr).toContain('hookcap login --key');

    const bad = await runCli(['login', '--key', 'svc_wrong', '--api-url', h.url], e.env);
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain('the API key was refused');
    // The key was given to login: the way out is a right key, not "pass it with --key" again.
    expect(bad.stderr).toEndWith('; nothing was saved; check that it is the whole key, as shown once when it was made, or create a new one in the dashboard (Account, API keys), then hookcap login --key svc_… again\n');
    const badFromEnv = await runCli(['login', '--api-url', h.url], { ...e.env, HOOKCAP_API_KEY: 'svc_wrong' });
    expect(badFromEnv.code).toBe(1);
    expect(badFromEnv.stderr).toContain('; nothing was saved; check that it is the whole key');

    const ok = await runCli(['login', '--key', a.key, '--api-url', h.url], e.env);
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain(a.email);
    const path = join(e.configHome, 'hookcap', 'config.json');
    expect(statSync(path).mode & 0o777).toBe(0o600);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ apiUrl: h.url, key: a.key });

    // The file alone is enough.
    expect((await runCli(['endpoints', 'list', '--json'], e.env)).code).toBe(0);
    // The environment beats the file…
    const envWins = await runCli(['endpoints', 'list'], { ...e.env, HOOKCAP_API_KEY: 'svc_from_env' });
    expect(envWins.code).toBe(1);
    expect(envWins.stderr).toContain('refused');
    // Logging in again would not help: the environment's key would still be read first.
    expect(envWins.stderr).toContain('set HOOKCAP_API_KEY to it (it is read before the key hookcap login saves), or unset HOOKCAP_API_KEY');
    expect(envWins.stderr).not.toContain('log in again');
    const flagRefused = await runCli(['endpoints', 'list', '--key', 'svc_from_flag'], e.env);
    expect(flagRefused.code).toBe(1);
    expect(flagRefused.stderr).toContain('use a valid key: pass it with --key');
    const deadUrl = await runCli(['endpoints', 'list'], { ...e.env, HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    expect(deadUrl.code).toBe(1);
    expect(deadUrl.stderr).toContain('is hookcap running at http://127.0.0.1:9?');
    // …and flags beat the environment.
    expect((await runCli(['endpoints', 'list', '--key', a.key], { ...e.env, HOOKCAP_API_KEY: 'svc_from_env' })).code).toBe(0);
    expect((await runCli(['--api-url', h.url, 'endpoints', 'list'], { ...e.env, HOOKCAP_API_URL: 'http://127.0.0.1:9' })).code).toBe(0);

    // An address without its scheme is refused as --api-url's is, from the environment and the file.
    const noScheme = await runCli(['endpoints', 'list'], { ...e.env, HOOKCAP_API_URL: 'hookcap.example.com' });
    expect(noScheme.code).toBe(2);
    expect(noScheme.stderr).toContain('HOOKCAP_API_URL must be a URL');
    writeFileSync(path, JSON.stringify({ apiUrl: 'localhost:3000', key: a.key }));
    const fromFile = await runCli(['endpoints', 'list'], e.env);
    expect(fromFile.code).toBe(2);
    expect(fromFile.stderr).toContain(`apiUrl in ${path} must be an http or https URL`);
    // A file that cannot be read does not stop login, which writes it anew.
    writeFileSync(path, '{"apiUrl": "http://localhost:3000", "key": "svc_');
    const again = await runCli(['login', '--key', a.key, '--api-url', h.url], e.env);
    expect(again.code, again.stderr).toBe(0);
    expect(JSON.parse(readFileSync(path, 'utf8'))).toEqual({ apiUrl: h.url, key: a.key });
  });

  test('login trims the key; --key - reads it from stdin; without --key it is asked for on a terminal, unseen, and refused elsewhere (exit 2)', async () => {
    const a = await newAccount(h.url);
    const e = env();
    const path = join(e.configHome, 'hookcap', 'config.json');
    const saved = () => JSON.parse(readFileSync(path, 'utf8')) as { apiUrl: string; key: string };

    const spaced = await runCli(['login', '--key', `  ${a.key}\n`, '--api-url', h.url], e.env);
    expect(spaced.code, spaced.stderr).toBe(0);
    expect(saved().key).toBe(a.key);
    const out = await runCli(['logout'], e.env);
    expect(out.stdout).toContain(`removed the key ${a.key.slice(0, 12)}… saved for`);

    const piped = await runCli(['login', '--key', '-', '--api-url', h.url], e.env, { stdin: new TextEncoder().encode(`${a.key}  \nsecond line\n`) });
    expect(piped.code, piped.stderr).toBe(0);
    expect(saved().key).toBe(a.key);
    rmSync(path);
    const empty = await runCli(['login', '--key', '-', '--api-url', h.url], e.env, { stdin: new TextEncoder().encode('\n') });
    expect(empty.code).toBe(2);
    expect(empty.stderr).toContain('--key -: no key on stdin');
    // Only login reads a key from stdin.
    const other = await runCli(['endpoints', 'list', '--key', '-', '--api-url', h.url], e.env);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('--key - (the key read from stdin) is for hookcap login');

    // Off a terminal, and on one under CI: no question, a usage error.
    const script = await runCli(['login', '--api-url', h.url], e.env);
    expect(script.code).toBe(2);
    expect(script.stderr).toContain('error: login needs a key; hookcap login --key svc_…, or the key on stdin: … | hookcap login --key -');
    const ci = new TtyCli(['login', '--api-url', h.url], { ...e.env, CI: 'true' });
    cleanups.push(() => ci.kill());
    expect(await ci.exited()).toBe(2);
    expect(ci.output).toContain('login needs a key');

    // On a terminal: asked for, and what is typed is not shown.
    const tty = new TtyCli(['login', '--api-url', h.url], e.env);
    cleanups.push(() => tty.kill());
    await tty.until(() => tty.output.includes('API key (svc_…; not shown): '));
    tty.type(` ${a.key}x\u007f\r`);
    expect(await tty.exited(), tty.output).toBe(0);
    expect(tty.output).toContain(`Logged in to ${h.url} as ${a.email}`);
    expect(tty.output).not.toContain(a.key);
    expect(saved()).toEqual({ apiUrl: h.url, key: a.key });
    expect(existsSync(path)).toBe(true);
  });

  test('logout removes the saved key, says the key stays valid and where to delete it, and that HOOKCAP_API_KEY still applies; no server needed', async () => {
    const a = await newAccount(h.url);
    const e = env();
    const path = join(e.configHome, 'hookcap', 'config.json');
    expect((await runCli(['login', '--key', a.key, '--api-url', h.url], e.env)).code).toBe(0);
    const shown = `${a.key.slice(0, 12)}…`;

    // The server need not answer: logout asks nothing of it.
    const out = await runCli(['logout'], { ...e.env, HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe(
      `Logged out: removed the key ${shown} saved for ${h.url} (${path}).\n` +
        `The key itself is not revoked and still works: to revoke it, open ${h.url}/account and delete ${shown} under API keys.\n`,
    );
    expect(out.stdout).not.toContain(a.key);
    expect(readdirSync(join(e.configHome, 'hookcap'))).toEqual([]);
    // This machine no longer has a key…
    const after = await runCli(['endpoints', 'list', '--api-url', h.url], e.env);
    expect(after.code).toBe(1);
    expect(after.stderr).toContain('error: no API key');
    // …and the key, which cannot delete itself, still works, as logout said.
    expect((await call(h.url, 'GET', '/api/auth/me', { token: a.key })).status).toBe(200);
    expect((await call(h.url, 'GET', `/api/api-keys`, { token: a.key })).status).toBe(403);

    // A second logout: nothing saved, exit 0; with HOOKCAP_API_KEY set it says that key still applies.
    const again = await runCli(['logout'], { ...e.env, HOOKCAP_API_KEY: a.key });
    expect(again.code).toBe(0);
    expect(again.stdout).toBe(
      `Nothing to remove: no key is saved (there is no ${path}).\n` +
        'HOOKCAP_API_KEY is still set in this environment, and hookcap commands still use that key: unset HOOKCAP_API_KEY to stop.\n',
    );
    expect((await runCli(['endpoints', 'list', '--api-url', h.url], { ...e.env, HOOKCAP_API_KEY: a.key })).code).toBe(0);
  });

  test('logout of a saved session token (ses_…) ends the session on the server it was saved for; when that cannot be done it says so, and that the session still works', async () => {
    const a = await newAccount(h.url);
    const e = env();
    const dir = join(e.configHome, 'hookcap');
    const path = join(dir, 'config.json');
    const signIn = async (): Promise<string> => (await call(h.url, 'POST', '/api/auth/login', { body: { email: a.email, password: 'correct horse battery' } })).body.token;
    const works = async (token: string) => (await call(h.url, 'GET', '/api/auth/me', { token })).status;
    expect((await runCli(['login', '--key', a.session, '--api-url', h.url], e.env)).code).toBe(0);

    // Ended where it was saved for, whatever HOOKCAP_API_URL says now.
    const out = await runCli(['logout'], { ...e.env, HOOKCAP_API_URL: 'http://127.0.0.1:9' });
    expect(out.code, out.stderr).toBe(0);
    expect(out.stdout).toBe(
      `Logged out: removed the session token ${a.session.slice(0, 12)}… saved for ${h.url} (${path}).\n` + 'The session is ended on the server too: it no longer works anywhere.\n',
    );
    expect(out.stdout).not.toContain(a.session);
    expect(readdirSync(dir)).toEqual([]);
    expect(await works(a.session)).toBe(401);

    // Signed out elsewhere meanwhile: nothing left to end, and that is said.
    const signedOut = await signIn();
    expect((await runCli(['login', '--key', signedOut, '--api-url', h.url], e.env)).code).toBe(0);
    expect((await call(h.url, 'POST', '/api/auth/logout', { token: signedOut })).status).toBe(204);
    const over = await runCli(['logout'], e.env);
    expect(over.code, over.stderr).toBe(0);
    expect(over.stdout).toEndWith('The session had already ended on the server (it expired, was signed out, or the password was changed): it no longer works anywhere.\n');

    // The server down: the file goes all the same, and the line says the session lives on.
    const relay = await startRelay(Number(new URL(h.url).port), () => false);
    const down = await signIn();
    expect((await runCli(['login', '--key', down, '--api-url', relay.url], e.env)).code).toBe(0);
    relay.stop();
    const unreachable = await runCli(['logout'], e.env);
    expect(unreachable.code, unreachable.stderr).toBe(0);
    expect(unreachable.stdout).toBe(
      `Logged out: removed the session token ${down.slice(0, 12)}… saved for ${relay.url} (${path}).\n` +
        `The session was not ended on the server: cannot reach ${relay.url}: connection refused.\n` +
        `It still works until it expires (SESSION_TTL_MS after sign-in on that server, 30 days unless set otherwise); to end it sooner, change the password at ${relay.url}/account, which signs out every other session.\n`,
    );
    expect(readdirSync(dir)).toEqual([]);
    expect(await works(down)).toBe(200);

    // A server that takes the connection and never answers: logout gives up after 3 s rather than hang.
    const silent = net.createServer(() => {});
    const held = new Set<net.Socket>();
    silent.on('connection', (socket) => held.add(socket));
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    cleanups.push(() => {
      for (const socket of held) socket.destroy();
      silent.close();
    });
    const address = silent.address();
    const silentUrl = `http://127.0.0.1:${typeof address === 'object' && address ? address.port : 0}`;
    const hung = await signIn();
    // What login writes (it checks the key first, which this server would never answer).
    mkdirSync(dir, { recursive: true });
    writeFileSync(path, JSON.stringify({ apiUrl: silentUrl, key: hung }));
    const started = Date.now();
    const waited = await runCli(['logout'], e.env, { timeoutMs: 20_000 });
    expect(waited.code, waited.stderr).toBe(0);
    expect(Date.now() - started).toBeLessThan(10_000);
    expect(waited.stdout).toContain(`The session was not ended on the server: ${silentUrl} did not answer within 3 s.\nIt still works until it expires`);
    expect(readdirSync(dir)).toEqual([]);
    expect(await works(hung)).toBe(200);
  });

  test('export -o: refused at the count (no such endpoint), the line says nothing was written to FILE; FILE stays as it was', async () => {
    const a = await newAccount(h.url);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const file = join(dir, 'all.ndjson');
    writeFileSync(file, 'an earlier export\n');
    // No such endpoint: refused at the count.
    const r = await runCli(['export', SLUG, '--format', 'ndjson', '-o', file, '--quiet'], e.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toMatch(new RegExp(`^error: [^;\n]+; nothing written to ${file}; check the slug or id \\(hookcap endpoints list shows your endpoints`));
    expect(readFileSync(file, 'utf8')).toBe('an earlier export\n');
    expect(readdirSync(dir)).toEqual(['all.ndjson']);
  });

  test('the API address as the server prints it (…/api) works; an address that is not hookcap says so', async () => {
    const a = await newAccount(h.url);
    const e = env();
    // The service prints "API http://host:port/api" at start-up: that is what people paste.
    const printed = await runCli(['login', '--key', a.key, '--api-url', `${h.url}/api/`], e.env);
    expect(printed.code, printed.stderr).toBe(0);
    expect(printed.stdout).toContain(`Logged in to ${h.url} as ${a.email}`);
    expect(JSON.parse(readFileSync(join(e.configHome, 'hookcap', 'config.json'), 'utf8'))).toEqual({ apiUrl: h.url, key: a.key });
    expect((await runCli(['endpoints', 'list'], { ...e.env, HOOKCAP_API_URL: `${h.url}/api` })).code).toBe(0);

    // The local app's port by mistake (it answers 200 "ok" to anything), or a path on the server.
    const app = startLocalApp();
    cleanups.push(() => app.stop());
    for (const [args, vars] of [
      [['login', '--key', a.key, '--api-url', app.url], {}],
      [['endpoints', 'list'], { HOOKCAP_API_URL: app.url, HOOKCAP_API_KEY: a.key }],
      [['login', '--key', a.key, '--api-url', `${h.url}/dashboard`], {}],
      [['listen', SLUG, '--forward', app.url], { HOOKCAP_API_URL: `${h.url}/x`, HOOKCAP_API_KEY: a.key }],
      // A path under the server's /api: its 404 names the route asked for (no route GET /api/v1/api/…).
      [['endpoints', 'list'], { HOOKCAP_API_URL: `${h.url}/api/v1`, HOOKCAP_API_KEY: a.key }],
    ] as [string[], Record<string, string>][]) {
      const r = await runCli(args, { ...e.env, ...vars });
      expect(r.code, args.join(' ')).toBe(1);
      expect(r.stderr, args.join(' ')).toMatch(/^error: \S+ does not answer as a hookcap API( \(it answered [^)]*\))?; set the address/);
    }
    // The saved login is untouched by the failed ones.
    expect(JSON.parse(readFileSync(join(e.configHome, 'hookcap', 'config.json'), 'utf8')).apiUrl).toBe(h.url);
  });

  test('endpoints list, create, delete, in words and as --json', async () => {
    const a = await newAccount(h.url);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const empty = await runCli(['endpoints', 'list', '--json'], e.env);
    expect(JSON.parse(empty.stdout)).toEqual([]);
    const created = await runCli(['endpoints', 'create', 'stripe dev', '--json'], e.env);
    expect(created.code).toBe(0);
    const ep = JSON.parse(created.stdout);
    expect(ep).toMatchObject({ name: 'stripe dev', url: `${h.url}/w/${ep.slug}` });
    const plain = await runCli(['endpoints', 'create', 'github'], e.env);
    expect(plain.stdout).toMatch(/^Created [a-z2-9]{12} \(github\): send webhooks to http/);
    const list = await runCli(['endpoints', 'list'], e.env);
    const lines = list.stdout.trim().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+COUNT\s+LAST\s+EXPIRES\s+URL$/);
    expect(lines.length).toBe(3);
    expect(list.stdout).toContain(`${ep.slug}  stripe dev      0  -     never    ${ep.url}`);
    expect((await runCli(['endpoints', 'delete', ep.slug, '--yes'], e.env)).stdout).toContain(`Deleted ${ep.slug}`);
    const gone = await runCli(['endpoints', 'delete', ep.slug, '-y'], e.env);
    expect(gone.code).toBe(1);
    expect(gone.stderr).toContain('not found');
    expect(JSON.parse((await runCli(['endpoints', 'list', '--json'], e.env)).stdout).length).toBe(1);

    // A name given empty or blank (an unset "$NAME") is refused before anything is sent; left out, the API names it.
    for (const name of ['', '   ']) {
      const r = await runCli(['endpoints', 'create', name, '--json'], e.env);
      expect(r.code, JSON.stringify(name)).toBe(2);
      expect(r.stderr).toStartWith('error: the endpoint name is ');
      expect(r.stdout).toBe('');
    }
    expect(JSON.parse((await runCli(['endpoints', 'list', '--json'], e.env)).stdout).length).toBe(1);
    const unnamed = await runCli(['endpoints', 'create', '--json'], e.env);
    expect(unnamed.code, unnamed.stderr).toBe(0);
    expect(JSON.parse(unnamed.stdout).name).toBe('Untitled endpoint');
  });

  test('endpoints delete asks on a terminal (y deletes, anything else does not); elsewhere it needs --yes: exit 2, nothing deleted', async () => {
    const a = await newAccount(h.url);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const ep = JSON.parse((await runCli(['endpoints', 'create', 'stripe dev', '--json'], e.env)).stdout);
    for (const body of ['one', 'two']) expect((await fetch(`${h.url}/w/${ep.slug}`, { method: 'POST', body })).status).toBe(200);
    await eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 2, 15_000);
    const exists = async () => (await call(h.url, 'GET', `/api/endpoints/${ep.slug}`, { token: a.key })).status === 200;

    // A script, CI, a pipe: no one to ask, so no deleting without --yes.
    for (const stdin of [undefined, new TextEncoder().encode('y\n')]) {
      const r = await runCli(['endpoints', 'delete', ep.slug], e.env, { stdin });
      expect(r.code).toBe(2);
      expect(r.stderr).toBe(`error: endpoints delete ${ep.slug} needs --yes when stdin is not a terminal; nothing was deleted; add -y (--yes) to delete the endpoint and all its captures without asking\n`);
      expect(r.stdout).toBe('');
    }
    expect(await exists()).toBe(true);

    // On a terminal: the question names the endpoint and what goes with it; Enter (the default) keeps it.
    const asked = async (answer: string) => {
      const tty = new TtyCli(['endpoints', 'delete', ep.slug], e.env);
      cleanups.push(() => tty.kill());
      await tty.until(() => tty.output.includes('[y/N]'));
      expect(tty.output).toContain(`Delete endpoint ${ep.slug} (stripe dev) and its 2 captures? This cannot be undone. [y/N]`);
      tty.type(`${answer}\n`);
      return { code: await tty.exited(), output: tty.output };
    };
    for (const answer of ['', 'n', 'no way']) {
      const kept = await asked(answer);
      expect(kept.code).toBe(1);
      expect(kept.output).toContain('Not deleted.');
      expect(await exists()).toBe(true);
    }
    const deleted = await asked('y');
    expect(deleted.code).toBe(0);
    expect(deleted.output).toContain(`Deleted ${ep.slug} and its captures.`);
    expect(await exists()).toBe(false);
  });

  test('endpoints list: COUNT and LAST from the activity route; --json has count and lastReceivedAt; after a clear 0 and -', async () => {
    const a = await newAccount(h.url);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const busy = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'busy' } })).body;
    const quiet = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'quiet' } })).body;
    for (let i = 0; i < 12; i++) expect((await fetch(`${h.url}/w/${busy.slug}/x`, { method: 'POST', body: String(i) })).status).toBe(200);
    const stored = await eventually(async () => {
      const r = await call<{ receivedAt: number }[]>(h.url, 'GET', `/api/endpoints/${busy.slug}/requests?limit=100`, { token: a.key });
      return r.body.length === 12 ? r.body : null;
    }, 15_000);
    const newest = Math.max(...stored.map((c) => c.receivedAt));

    const list = await runCli(['endpoints', 'list'], e.env);
    expect(list.code, list.stderr).toBe(0);
    const lines = list.stdout.trimEnd().split('\n');
    expect(lines[0]).toMatch(/^SLUG\s+NAME\s+COUNT\s+LAST\s+EXPIRES\s+URL$/);
    // COUNT lines up on its last digit; LAST is how long ago, short.
    expect(lines[1]).toMatch(new RegExp(`^${busy.slug}  busy\\s+12  (just now|\\d+s ago)\\s+never\\s+${busy.url}$`));
    expect(lines[2]).toMatch(new RegExp(`^${quiet.slug}  quiet\\s+0  -\\s+never\\s+${quiet.url}$`));
    // COUNT lines up on its last digit, under the end of its heading; the columns after LAST start at one place.
    const countEnd = (lines[0] ?? '').indexOf('COUNT') + 'COUNT'.length;
    expect([lines[1]?.slice(countEnd - 2, countEnd), lines[2]?.slice(countEnd - 1, countEnd)]).toEqual(['12', '0']);
    expect(new Set(lines.map((l) => l.search(/(EXPIRES|never)/))).size).toBe(1);

    const json = JSON.parse((await runCli(['endpoints', 'list', '--json'], e.env)).stdout) as { slug: string; count: number; lastReceivedAt: number | null }[];
    expect(json.map((x) => [x.slug, x.count, x.lastReceivedAt])).toEqual([
      [busy.slug, 12, newest],
      [quiet.slug, 0, null],
    ]);

    expect((await call(h.url, 'DELETE', `/api/endpoints/${busy.slug}/requests`, { token: a.key })).status).toBe(204);
    const cleared = await runCli(['endpoints', 'list'], e.env);
    expect(cleared.stdout.trimEnd().split('\n')[1]).toMatch(new RegExp(`^${busy.slug}  busy\\s+0  -\\s+never\\s+`));

  });

  test('endpoints list against a server without the activity route (404 no route): the list anyway, ? in COUNT and LAST, null in --json', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'older' } })).body;
    // The real server behind a proxy that answers the activity route as a server without it does.
    const older = Bun.serve({
      port: 0,
      hostname: '127.0.0.1',
      fetch(req) {
        const u = new URL(req.url);
        if (u.pathname === '/api/endpoints/activity') return Response.json({ error: `no route GET ${u.pathname}; the API is described at /docs`, code: 'not_found' }, { status: 404 });
        return fetch(`${h.url}${u.pathname}${u.search}`, { method: req.method, headers: req.headers, body: req.body });
      },
    });
    cleanups.push(() => older.stop(true));
    const e = env({ HOOKCAP_API_URL: `http://127.0.0.1:${older.port}`, HOOKCAP_API_KEY: a.key });
    const list = await runCli(['endpoints', 'list'], e.env);
    expect(list.code, list.stderr).toBe(0);
    expect(list.stdout.trimEnd().split('\n')[1]).toMatch(new RegExp(`^${ep.slug}  older\\s+\\?  \\?\\s+never\\s+${ep.url}$`));
    const json = JSON.parse((await runCli(['endpoints', 'list', '--json'], e.env)).stdout);
    expect(json).toEqual([expect.objectContaining({ slug: ep.slug, count: null, lastReceivedAt: null })]);
  });

  test('colour on a terminal only, and never with NO_COLOR or --no-color', async () => {
    const a = await newAccount(h.url);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key, TERM: 'xterm' });
    await runCli(['endpoints', 'create', 'tty'], e.env);
    // script(1) gives the CLI a pseudo-terminal, as a person's shell would.
    const onTty = async (extra: Record<string, string>, flags = '') => {
      const command = `${process.execPath} ${CLI} endpoints list ${flags}`;
      const p = Bun.spawn(['script', '-qec', command, '/dev/null'], { env: { ...e.env, ...extra }, stdout: 'pipe', stderr: 'pipe' });
      const [out] = await Promise.all([new Response(p.stdout).text(), p.exited]);
      return out;
    };
    expect(await onTty({})).toContain('\u001b[1mSLUG');
    expect(await onTty({ NO_COLOR: '1' })).not.toContain('\u001b[');
    expect(await onTty({}, '--no-color')).not.toContain('\u001b[');
    expect((await runCli(['endpoints', 'list'], e.env)).stdout).not.toContain('\u001b[');
  });

  test('tail prints captures live, in words and as --json records', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 't' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const plain = new RunningCli(['tail', ep.slug], e.env);
    const json = new RunningCli(['tail', ep.slug, '--json'], e.env);
    await plain.until(() => plain.stderr.includes('Ctrl-C'));
    await Bun.sleep(1_000);
    const r = await fetch(`${h.url}/w/${ep.slug}/gh?x=1`, { method: 'POST', body: '{"zen":"hi","hook_id":1}', headers: { 'x-github-event': 'ping' } });
    const id = r.headers.get('x-request-id');
    await plain.until(() => plain.lines.length === 1);
    await json.until(() => json.lines.length === 1);
    expect(plain.lines[0]).toMatch(new RegExp(`^\\d\\d:\\d\\d:\\d\\d {2}POST {5}200 {5,}\\d+ B {2}${id} {2}/gh\\?x=1( {2}github ping)?$`));
    const record = JSON.parse(json.lines[0] ?? '');
    expect(record).toMatchObject({ id, method: 'POST', path: '/gh', responseStatus: 200 });
    expect(await plain.stop('SIGINT')).toBe(0);
    expect(await json.stop()).toBe(0);
  });

  test('tail lines up its columns whatever the method and path; on a terminal it cuts the path to fit the width, piped it prints it whole', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cols' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const long = '/a/path/much/longer/than/the/others/and/longer/than/a/terminal/is/wide/at/all?with=a&query=string';
    const sent: { method: string; path: string; id: string }[] = [];
    for (const [method, path, body, headers] of [
      ['POST', '/stripe', JSON.stringify({ id: 'evt_1', object: 'event', type: 'invoice.paid' }), { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' }],
      ['DELETE', long, '', {}],
      ['GET', '/', '', {}],
      ['OPTIONS', '/mid/path', '', {}],
      ['PATCH', '/x', 'a body of some size, more than the others', {}],
    ] as const) {
      const r = await fetch(`${h.url}/w/${ep.slug}${path}`, { method, body: body === '' ? undefined : body, headers });
      sent.push({ method, path, id: r.headers.get('x-request-id') ?? '' });
    }
    const piped = await runCli(['tail', ep.slug, '--since', '1h', '--count', '5', '--timeout', '30'], e.env);
    expect(piped.code, piped.stderr).toBe(0);
    const lines = piped.stdout.trimEnd().split('\n');
    expect(lines.length).toBe(5);
    // Where each column starts: method, status, the end of the size, id, path.
    const offsets = lines.map((line, i) => {
      const c = sent[i] ?? { method: '', path: '', id: '' };
      const id = line.indexOf(c.id);
      return [line.indexOf(` ${c.method} `) + 1, line.indexOf(' 200 ') + 1, line.lastIndexOf(' B ', id) + 2, id, line.indexOf(c.path, id)];
    });
    for (const o of offsets) expect(o).toEqual(offsets[0] ?? []);
    expect(offsets[0]?.every((n) => n > 0)).toBe(true);
    // Piped: the long path whole, the event after the path.
    expect(lines[1]).toEndWith(`${sent[1]?.id}  ${long}`);
    expect(lines[0]).toEndWith('  /stripe  stripe invoice.paid');

    // A terminal 100 columns wide: the path gives way (…), the event stays whole, no line wraps.
    const tty = new TtyCli(['tail', ep.slug, '--since', '1h', '--count', '5', '--timeout', '30'], e.env, { columns: 100 });
    cleanups.push(() => tty.kill());
    expect(await tty.exited()).toBe(0);
    const shown = tty.output.split(/\r?\n/).filter((l) => l.includes('req_'));
    expect(shown.length).toBe(5);
    for (const l of shown) expect(Bun.stringWidth(l)).toBeLessThanOrEqual(100);
    expect(shown[1]).toMatch(new RegExp(`${sent[1]?.id} {2}/a/path/much/.*…$`));
    expect(shown[0]).toEndWith('  /stripe  stripe invoice.paid');
    expect(shown.map((l) => l.indexOf('req_'))).toEqual(lines.map((l) => l.indexOf('req_')));

    // 80 columns leave 13 for the path and the event: both cut, rather than a line that wraps.
    const narrow = new TtyCli(['tail', ep.slug, '--since', '1h', '--count', '5', '--timeout', '30'], e.env, { columns: 80 });
    cleanups.push(() => narrow.kill());
    expect(await narrow.exited()).toBe(0);
    const cramped = narrow.output.split(/\r?\n/).filter((l) => l.includes('req_'));
    expect(cramped.length).toBe(5);
    for (const l of cramped) expect(Bun.stringWidth(l), l).toBeLessThanOrEqual(80);
    expect(cramped[0]).toMatch(/ {2}\/st\S*… {2}st\S*…$/);

    // 70 and 60 columns: the size, then the time, give way so the path keeps 12 columns; the id
    // stays whole (it is there to copy), the columns still line up, and no line wraps.
    for (const [columns, lead] of [
      [70, /^\d\d:\d\d:\d\d {2}(POST|DELETE|GET|OPTIONS|PATCH) +200 {2}req_/],
      [60, /^(POST|DELETE|GET|OPTIONS|PATCH) +200 {2}req_/],
    ] as const) {
      const tight = new TtyCli(['tail', ep.slug, '--since', '1h', '--count', '5', '--timeout', '30'], e.env, { columns });
      cleanups.push(() => tight.kill());
      expect(await tight.exited()).toBe(0);
      const rows = tight.output.split(/\r?\n/).filter((l) => l.includes('req_'));
      expect(rows.length).toBe(5);
      for (const [i, l] of rows.entries()) {
        expect(Bun.stringWidth(l), l).toBeLessThanOrEqual(columns);
        expect(l).toMatch(lead);
        expect(l).toContain(`${sent[i]?.id}  `);
      }
      expect(new Set(rows.map((l) => l.indexOf('req_'))).size).toBe(1);
      expect(rows[0]).toMatch(/ {2}\/st\S* {2}st\S*$/);
    }
  });

  test("a sender's control characters (an event type with ESC and BEL) never reach the terminal raw: the stored event has U+FFFD in their place", async () => {
    const a = await newAccount(h.url);
    // Endpoint names with control characters are refused by the API since (test/behaviour/endpoints.test.ts);
    // the event type read from a stranger's body is cleaned when detected (docs/providers.md), and
    // the CLI escapes what older captures still hold (cli/output.ts printable, test/unit/cli-output.test.ts).
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'shop' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    // Anyone holding the capture URL can send this; the event type is read from the body.
    const evil = 'invoice.paid\u001b]0;pwned\u0007\u001b[31m\u202e';
    const r = await fetch(`${h.url}/w/${ep.slug}/stripe`, {
      method: 'POST',
      body: JSON.stringify({ id: 'evt_1', object: 'event', type: evil }),
      headers: { 'content-type': 'application/json', 'stripe-signature': 't=1,v1=abc' },
    });
    const id = r.headers.get('x-request-id') ?? '';
    const plain = await runCli(['tail', ep.slug, '--since', '1h', '--count', '1', '--timeout', '30'], e.env);
    expect(plain.code).toBe(0);
    const cleaned = 'invoice.paid\ufffd]0;pwned\ufffd\ufffd[31m\ufffd';
    expect(plain.stdout).toContain(`${id}  /stripe  stripe ${cleaned}\n`);
    expect(plain.stdout).not.toMatch(/[\u0000-\u0009\u000b-\u001f\u007f\u202e]/);
    const json = await runCli(['tail', ep.slug, '--since', '1h', '--count', '1', '--timeout', '30', '--json'], e.env);
    expect((JSON.parse(json.stdout) as Capture).detectedEvent).toBe(cleaned);
    // The body keeps the bytes as sent.
    expect(JSON.parse((JSON.parse(json.stdout) as Capture).body).type).toBe(evil);
  });

  test('tail --since 0 (the script\'s "${since:-0}" before any capture) says it starts from the oldest stored capture, not at 1970', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'since-0' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    await fetch(`${h.url}/w/${ep.slug}/first`, { method: 'POST', body: 'one' });
    const r = await runCli(['tail', ep.slug, '--since', '0', '--count', '1', '--timeout', '30'], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stderr).toBe(`Watching ${ep.slug}, from the oldest stored capture on. Ctrl-C to stop.\n`);
    expect(r.stdout).toContain('/first');
  });

  test('tail --count/--timeout: a script waits for a webhook and gets exit 0 with it, or exit 1 after the timeout', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'wait' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });

    // The capture URL pasted for the slug works too.
    const nothing = await runCli(['tail', ep.url, '--count', '1', '--timeout', '2', '--json'], e.env);
    expect(nothing.code).toBe(1);
    expect(nothing.stdout).toBe('');
    expect(nothing.stderr).toBe(`error: no capture on ${ep.slug} within 2 s\n`);

    // Live: started first, then the webhook comes.
    const live = new RunningCli(['tail', ep.slug, '--count', '1', '--timeout', '30'], e.env);
    cleanups.push(() => void live.stop('SIGKILL'));
    await live.until(() => live.stderr.includes('Ctrl-C'));
    const r = await fetch(`${h.url}/w/${ep.slug}/hook`, { method: 'POST', body: 'one' });
    expect(await live.proc.exited).toBe(0);
    expect(live.lines).toEqual([expect.stringMatching(new RegExp(` 200 +3 B {2}${r.headers.get('x-request-id')} {2}/hook$`))]);

    // Looking back: exactly --count records, even when more come in the same read.
    for (const body of ['two', 'three']) await fetch(`${h.url}/w/${ep.slug}/more`, { method: 'POST', body });
    await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 3);
    const two = await runCli(['tail', ep.slug, '--since', '1h', '--count', '2', '--timeout', '30', '--json'], e.env);
    expect(two.code, two.stderr).toBe(0);
    expect(two.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Capture).body)).toEqual(['one', 'two']);
    const short = await runCli(['tail', ep.slug, '--since', '1h', '--count', '5', '--timeout', '2', '--json'], e.env);
    expect(short.code).toBe(1);
    expect(short.stdout.trim().split('\n').length).toBe(3);
    expect(short.stderr).toContain(`3 of 5 captures on ${ep.slug} within 2 s`);
    // As docs/cli.md has a test write it: --since the moment before the trigger, in ms.
    const before = Date.now();
    await fetch(`${h.url}/w/${ep.slug}/trigger`, { method: 'POST', body: 'four' });
    const waited = await runCli(['tail', ep.slug, '--since', String(before), '--count', '1', '--timeout', '30', '--json'], e.env);
    expect(waited.code, waited.stderr).toBe(0);
    expect((JSON.parse(waited.stdout) as Capture).body).toBe('four');
  });

  test('piped into head -n 1: tail and listen stop, exit 0, no stack trace, once the reader is gone', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'pipe' } })).body;
    const app = startLocalApp();
    cleanups.push(() => app.stop());
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    // A shell pipeline, as a script waiting for a webhook writes it; pipefail reports the CLI's
    // exit, and timeout(1) its hanging on (124).
    const pipeline = async (args: string) => {
      const p = Bun.spawn(['bash', '-c', `set -o pipefail; timeout 15 "${process.execPath}" "${CLI}" ${args} | head -n 1`], { env: e.env, stdout: 'pipe', stderr: 'pipe' });
      const output = Promise.all([new Response(p.stdout).text(), new Response(p.stderr).text()]);
      // Captures keep coming, as they would; the CLI meets the closed pipe on the second line.
      while (p.exitCode === null) {
        await fetch(`${h.url}/w/${ep.slug}/p`, { method: 'POST', body: 'x' });
        await Bun.sleep(300);
      }
      const [stdout, stderr] = await output;
      return { code: await p.exited, stdout, stderr };
    };
    const tailed = await pipeline(`tail ${ep.slug} --json`);
    expect(tailed.code, tailed.stderr).toBe(0);
    expect(JSON.parse(tailed.stdout)).toMatchObject({ method: 'POST', path: '/p' });
    expect(tailed.stderr).not.toContain('EPIPE');
    const listened = await pipeline(`listen ${ep.slug} --forward ${app.url}/hooks --json`);
    expect(listened.code, listened.stderr).toBe(0);
    expect(JSON.parse(listened.stdout)).toMatchObject({ path: '/p', status: 200, ok: true });
    expect(listened.stderr).not.toContain('EPIPE');
  });

  test('replay sends a stored capture from this machine, with -H changes and --body @file', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'r' } })).body;
    const app = startLocalApp();
    cleanups.push(() => app.stop());
    // Ends in a line break, as most apps' JSON does: printed without a blank line after it.
    app.answer = () => new Response('{"received":true}\n', { status: 202 });
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const r = await fetch(`${h.url}/w/${ep.slug}/orig`, { method: 'PUT', body: BINARY, headers: { 'x-keep': 'k', 'x-drop': 'd', 'content-type': 'application/octet-stream' } });
    const id = r.headers.get('x-request-id') ?? '';
    await eventually(async () => (await call(h.url, 'GET', `/api/requests/${id}`, { token: a.key })).status === 200);

    const same = await runCli(['replay', id, '--to', `${app.url}/again?z=9`], e.env);
    expect(same.code).toBe(0);
    expect(same.stdout).toMatch(new RegExp(`^PUT ${app.url}/again\\?z=9 → 202 {2}\\d+ ms\\n\\{"received":true\\}\\n$`));
    expect(app.arrived[0]).toMatchObject({ method: 'PUT', target: '/again?z=9', body: BINARY });
    expect(app.arrived[0]?.headers['x-drop']).toBe('d');

    const file = join(e.configHome, 'body.bin');
    writeFileSync(file, new Uint8Array([1, 2, 3, 0, 255]));
    const changed = await runCli(['replay', id, '--to', `${app.url}/changed`, '-H', 'x-drop:', '-H', 'X-New: yes', '--body', `@${file}`, '--json'], e.env);
    expect(changed.code).toBe(0);
    expect(JSON.parse(changed.stdout)).toMatchObject({ status: 202, body: '{"received":true}\n', bodyEncoding: 'utf8' });
    expect(app.arrived[1]?.body).toEqual(new Uint8Array([1, 2, 3, 0, 255]));
    expect(app.arrived[1]?.headers['x-drop']).toBeUndefined();
    expect(app.arrived[1]?.headers['x-new']).toBe('yes');
    expect(app.arrived[1]?.headers['x-keep']).toBe('k');

    // curl's -H 'name;': the header sent present and empty (a captured one emptied, a new one added).
    const emptied = await runCli(['replay', id, '--to', `${app.url}/emptied`, '-H', 'x-drop;', '-H', 'X-Empty;'], e.env);
    expect(emptied.code, emptied.stderr).toBe(0);
    const arrived = app.arrived.at(-1);
    expect(arrived?.target).toBe('/emptied');
    expect(arrived?.headers).toMatchObject({ 'x-drop': '', 'x-empty': '', 'x-keep': 'k' });

    // Host may be set, as with curl, for an app behind name-based virtual hosts; content-length may not.
    const vhost = await runCli(['replay', id, '--to', `${app.url}/vhost`, '-H', 'Host: shop.test'], e.env);
    expect(vhost.code, vhost.stderr).toBe(0);
    expect(app.arrived.at(-1)?.headers.host).toBe('shop.test');
    const length = await runCli(['replay', id, '--to', `${app.url}/x`, '-H', 'content-length: 3'], e.env);
    expect(length.code).toBe(2);
    expect(length.stderr).toContain('-H content-length: is set by the HTTP client');

    // An app may echo what the sender chose (an error page quoting the body): printed escaped, as
    // tail prints a path, so it cannot retitle or clear the terminal; --json keeps it as it came.
    const echo = 'bad input: \u001b]0;pwned\u0007\u001b[2J\r\nline two\tend\n';
    app.answer = () => new Response(echo, { status: 400 });
    const echoed = await runCli(['replay', id, '--to', `${app.url}/echo`], e.env);
    expect(echoed.code).toBe(0);
    expect(echoed.stdout).toMatch(/ → 400 {2}\d+ ms\nbad input: \\x1b\]0;pwned\\x07\\x1b\[2J\nline two\tend\n$/);
    expect(JSON.parse((await runCli(['replay', id, '--to', `${app.url}/echo`, '--json'], e.env)).stdout).body).toBe(echo);

    const down = await runCli(['replay', id, '--to', 'http://127.0.0.1:9/'], e.env);
    expect(down.code).toBe(1);
    expect(down.stderr).toBe('error: PUT http://127.0.0.1:9/: connection refused by 127.0.0.1:9; is the app running and listening there?\n');
    // An app that takes the connection and answers after --timeout is running, only slow: the
    // hint is more time, not "is the app running?".
    app.answer = async () => {
      await Bun.sleep(3_000);
      return new Response('late');
    };
    const slow = await runCli(['replay', id, '--to', `${app.url}/slow`, '--timeout', '1'], e.env);
    expect(slow.code).toBe(1);
    expect(app.arrived.at(-1)?.target).toBe('/slow');
    expect(slow.stderr).toBe(`error: PUT ${app.url}/slow: the app did not answer within 1 s; raise --timeout if it needs longer\n`);
    const missing = await runCli(['replay', 'req_00000000000000000000000000', '--to', app.url], e.env);
    expect(missing.code).toBe(1);
    expect(missing.stderr).toContain('not found');
    // The hint says where capture ids are found, not only slugs.
    expect(missing.stderr).toContain('hookcap tail <slug> their capture ids');
  });

  test('export: NDJSON, HAR and a cURL script that sends every capture again, byte for byte; filters; progress on stderr', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'x' } })).body;
    const ids: string[] = [];
    for (let i = 0; i < 25; i++) {
      const body = i === 3 ? BINARY : `{"n":${i},"kind":"${i % 5 === 0 ? 'five' : 'other'}"}`;
      const r = await fetch(`${h.url}/w/${ep.slug}/e/${i}?i=${i}`, { method: 'POST', body, headers: { 'content-type': 'application/json' } });
      ids.push(r.headers.get('x-request-id') ?? '');
    }
    await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 25);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });

    const nd = await runCli(['export', ep.slug, '--format', 'ndjson'], e.env);
    expect(nd.code).toBe(0);
    const records = nd.stdout.trim().split('\n').map((l) => JSON.parse(l) as Capture);
    expect(records.map((r) => r.id)).toEqual(ids);
    expect(nd.stderr).toContain(`exported 25 captures of ${ep.slug}`);

    const harFile = join(e.configHome, 'all.har');
    const har = await runCli(['export', ep.slug, '--format', 'har', '-o', harFile, '--since', '1h'], e.env);
    expect(har.code).toBe(0);
    expect(har.stdout).toBe('');
    expect(har.stderr).toContain('exported 25 captures');
    const doc = JSON.parse(readFileSync(harFile, 'utf8'));
    await validateHar(doc);
    expect(doc.log.entries.length).toBe(25);

    // On a terminal narrower than the progress line, each redraw is cut to fit (a line that wrapped
    // would leave a stale row behind at every redraw, as "\r" and erase-line reach back one row).
    const narrow = new TtyCli(['export', ep.slug, '--format', 'ndjson', '-o', join(e.configHome, 'narrow.ndjson')], e.env, { columns: 40 });
    cleanups.push(() => narrow.kill());
    expect(await narrow.exited()).toBe(0);
    const draws = narrow.output.split('\r\u001b[2K').filter((d) => d.startsWith('exporting '));
    expect(draws.length, narrow.output).toBeGreaterThan(0);
    for (const d of draws) expect(Bun.stringWidth(d), d).toBeLessThan(40);
    expect(draws[0]).toBe(`exporting ${ep.slug}: 0 / 25 capture…`);
    expect(narrow.output).toContain(`exported 25 captures of ${ep.slug}`);

    const five = await runCli(['export', ep.slug, '--format', 'ndjson', '--q', 'FIVE', '--quiet'], e.env);
    expect(five.stdout.trim().split('\n').map((l) => (JSON.parse(l) as Capture).id)).toEqual([0, 5, 10, 15, 20].map((i) => ids[i] ?? ''));
    expect(five.stderr).toBe('');
    const one = await runCli(['export', ep.slug, '--format', 'curl', '--q', '"n":7,'], e.env);
    expect(one.stdout).toContain(`export of ${ep.slug}: 1 capture, oldest first.`);
    expect(one.stderr).toContain(`exported 1 capture of ${ep.slug}`);

    const app = startLocalApp();
    cleanups.push(() => app.stop());
    const script = join(e.configHome, 'replay.sh');
    const curl = await runCli(['export', ep.slug, '--format', 'curl', '--to', `${app.url}/local`, '-o', script], e.env);
    expect(curl.code).toBe(0);
    const run = Bun.spawn(['sh', script], { stdout: 'pipe', stderr: 'pipe' });
    expect(await run.exited).toBe(0);
    // Piped, the script prints each answer on its own line and no progress meter.
    expect(await new Response(run.stdout).text()).toBe('ok\n'.repeat(25));
    expect(await new Response(run.stderr).text()).toBe('');
    expect(app.arrived.map((r) => r.target)).toEqual(records.map((r) => `/local/e/${records.indexOf(r)}?i=${records.indexOf(r)}`));
    expect(app.arrived.map((r) => r.body)).toEqual(records.map((r) => bodyBytes(r)));
  });

  test('export --format curl: a body holding ESC, BEL, a bidi override or a lone CR is written as octal escapes, so printing the script cannot drive the terminal; run, it sends the same bytes', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'esc' } })).body;
    const bodies = ['{"type":"\u001b]0;pwned\u0007\u001b[2J"}', 'caf\u00e9 \u202egnp.exe', 'lone\rreturn', 'multi\r\npart\ttab\n'];
    for (const body of bodies) expect((await fetch(`${h.url}/w/${ep.slug}/t`, { method: 'POST', body, headers: { 'content-type': 'text/plain' } })).status).toBe(200);
    await eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === bodies.length);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const app = startLocalApp();
    cleanups.push(() => app.stop());
    const r = await runCli(['export', ep.slug, '--format', 'curl', '--to', app.url, '--quiet'], e.env);
    expect(r.code, r.stderr).toBe(0);
    expect(r.stdout).not.toMatch(/[\u0007\u001b\u202e]|\r(?!\n)/);
    // Text without such characters is still written as itself.
    expect(r.stdout).toContain(`printf '%s' 'multi\r\npart\ttab\n' | curl`);
    const script = join(e.configHome, 'esc.sh');
    writeFileSync(script, r.stdout);
    const run = Bun.spawn(['sh', script], { stdout: 'pipe', stderr: 'pipe' });
    expect(await run.exited).toBe(0);
    expect(app.arrived.map((x) => new TextDecoder().decode(x.body))).toEqual(bodies);
  });

  test('export: the connection lost after the count, before the first record, is said as a loss midway is: stopped after 0 captures, nothing written to -o', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'cut' } })).body;
    for (let i = 0; i < 3; i++) expect((await fetch(`${h.url}/w/${ep.slug}/c`, { method: 'POST', body: `${i}` })).status).toBe(200);
    await eventually(async () => (await call<{ count: number }>(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === 3);
    // The count (and, for curl, the endpoint) come through; the export's own request is dropped unanswered.
    const relay = await startRelay(Number(new URL(h.url).port), (head) => /^GET \S*\/requests\/export/.test(head));
    cleanups.push(() => relay.stop());
    const e = env({ HOOKCAP_API_URL: relay.url, HOOKCAP_API_KEY: a.key });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const file = join(dir, 'all.out');
    writeFileSync(file, 'an earlier export\n');
    for (const format of ['ndjson', 'har', 'curl']) {
      const r = await runCli(['export', ep.slug, '--format', format, '-o', file], e.env);
      expect(r.code, format).toBe(1);
      expect(r.stderr, format).toContain(`exporting ${ep.slug}: 0 / 3 captures`);
      expect(r.stderr, format).toMatch(new RegExp(`\\nerror: export stopped after 0 captures: cannot reach ${relay.url}: [a-z ]+; nothing written to ${file}; run the export again\\n$`));
      expect(readFileSync(file, 'utf8')).toBe('an earlier export\n');
      expect(readdirSync(dir)).toEqual(['all.out']);
    }
    expect(relay.cuts).toBeGreaterThanOrEqual(3);
  });

  test('export -o: cut off by Ctrl-C, the file an earlier export wrote stays whole (no half script); a missing folder fails before anything is fetched', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'big' } })).body;
    const N = 4000;
    const pad = 'p'.repeat(4000);
    await sendCaptures({ url: h.url, slug: ep.slug, count: N, body: (i) => `{"n":${i},"pad":"${pad}"}` });
    await eventually(async () => (await call(h.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === N, 60_000);
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const script = join(dir, 'replay.sh');
    const before = '#!/bin/sh\n# the whole export of yesterday\n';
    writeFileSync(script, before);

    const cli = new RunningCli(['export', ep.slug, '--format', 'curl', '-o', script], e.env);
    cleanups.push(() => void cli.stop('SIGKILL'));
    // Once the export is writing, freeze it, so Ctrl-C lands midway however fast the machine is.
    const writing = () => readdirSync(dir).some((f) => statSync(join(dir, f)).size > before.length || (f === 'replay.sh' && statSync(script).size !== before.length));
    while (!writing()) {
      if (cli.proc.exitCode !== null) throw new Error(`export ended before it was interrupted:\n${cli.stderr}`);
      await Bun.sleep(2);
    }
    process.kill(cli.proc.pid, 'SIGSTOP');
    process.kill(cli.proc.pid, 'SIGINT');
    process.kill(cli.proc.pid, 'SIGCONT');
    expect(await cli.proc.exited).toBe(130);
    expect(readFileSync(script, 'utf8')).toBe(before);
    expect(readdirSync(dir)).toEqual(['replay.sh']);
    expect(cli.stderr).toMatch(new RegExp(`export of ${ep.slug} stopped after [\\d,]+ captures; nothing written to ${script}\\n$`));

    const missing = join(e.configHome, 'no-such-folder', 'all.har');
    const r = await runCli(['export', ep.slug, '--format', 'har', '-o', missing], e.env);
    expect(r.code).toBe(1);
    expect(r.stderr).toBe(`error: cannot write ${missing}: there is no folder ${join(e.configHome, 'no-such-folder')}; nothing was exported; give -o a file in a folder that exists and that you can write to\n`);

    // Uninterrupted, the file is replaced by the whole export.
    const whole = await runCli(['export', ep.slug, '--format', 'curl', '-o', script, '--quiet'], e.env);
    expect(whole.code).toBe(0);
    expect(readFileSync(script, 'utf8').split('\n# req_').length - 1).toBe(N);
    expect(readdirSync(dir)).toEqual(['replay.sh']);
  }, 180_000);

  test('send: a test request through send-test, with method, headers and --data', async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 's' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const r = await runCli(['send', ep.slug, '--method', 'put', '-H', 'x-test: 1', '--data', '{"hello":"cli"}'], e.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^Sent PUT to .* → 200 {2}captured as req_/);
    const id = /captured as (req_\w+)/.exec(r.stdout)?.[1] ?? '';
    const rec = await eventually(async () => {
      const g = await call<Capture>(h.url, 'GET', `/api/requests/${id}`, { token: a.key });
      return g.status === 200 ? g.body : null;
    });
    expect(rec).toMatchObject({ method: 'PUT', body: '{"hello":"cli"}' });
    expect(rec.headers['x-test']).toBe('1');
    const json = await runCli(['send', ep.slug, '--json'], e.env);
    expect(JSON.parse(json.stdout).response.status).toBe(200);
    const binary = join(e.configHome, 'b.bin');
    writeFileSync(binary, BINARY);
    const refused = await runCli(['send', ep.slug, '--data', `@${binary}`], e.env);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain('send-test takes text bodies only');
  });

  test("send: -H 'name:' (and curl's 'name;') sends the header, empty", async () => {
    const a = await newAccount(h.url);
    const ep = (await call(h.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 's' } })).body;
    const e = env({ HOOKCAP_API_URL: h.url, HOOKCAP_API_KEY: a.key });
    const r = await runCli(['send', ep.slug, '-H', 'x-empty:', '-H', 'x-semi;', '-H', 'x-full: 1', '-H', 'user-agent:'], e.env);
    expect(r.code).toBe(0);
    const id = /captured as (req_\w+)/.exec(r.stdout)?.[1] ?? '';
    const rec = await eventually(async () => {
      const g = await call<Capture>(h.url, 'GET', `/api/requests/${id}`, { token: a.key });
      return g.status === 200 ? g.body : null;
    });
    // user-agent is one send-test fills in: given empty, it stays empty.
    expect(rec.headers).toMatchObject({ 'x-empty': '', 'x-semi': '', 'x-full': '1', 'user-agent': '' });
  });
});

describe('hookcap send, the receiver behind its public URL', () => {
  test("the line and --json name the endpoint's URL, not the loopback address the server reached its receiver at", async () => {
    const server = await startServer({ env: { RECEIVER_URL: 'https://hooks.example.test' } });
    cleanups.push(() => stopServer(server));
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 's' } })).body;
    expect(ep.url).toBe(`https://hooks.example.test/w/${ep.slug}`);
    const e = env({ HOOKCAP_API_URL: server.url, HOOKCAP_API_KEY: a.key });
    const r = await runCli(['send', ep.slug], e.env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(new RegExp(`^Sent POST to ${ep.url.replaceAll('.', '\\.')} → 200 {2}captured as req_\\w+\n$`));
    const json = JSON.parse((await runCli(['send', ep.slug, '--json'], e.env)).stdout);
    expect(json.url).toBe(ep.url);
    expect(json.response.status).toBe(200);
  }, 180_000);
});

describe('hookcap export, refused after the count (429)', () => {
  test('the refusal says nothing was written to FILE, as a loss midway does; FILE stays as it was', async () => {
    // Three API requests per key in 10 minutes: the two used here and the export's count; the export itself is refused.
    const server = await startServer({ env: { RATE_LIMIT_API: '3/600' } });
    cleanups.push(() => stopServer(server));
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.session, body: { name: 'limited' } })).body;
    // The windows are fixed (aligned to the epoch): one starting midway would let the export through.
    await clearOfWindowEdge(600_000, 30_000);
    for (let i = 0; i < 2; i++) expect((await call(server.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).status).toBe(200);
    const e = env({ HOOKCAP_API_URL: server.url, HOOKCAP_API_KEY: a.key });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const file = join(dir, 'all.har');
    writeFileSync(file, 'an earlier export\n');
    const r = await runCli(['export', ep.slug, '--format', 'har', '-o', file], e.env);
    expect(r.code).toBe(1);
    // The count came (the progress line), then the refusal.
    expect(r.stderr).toContain(`exporting ${ep.slug}: 0 / 0 captures`);
    expect(r.stderr).toMatch(new RegExp(`\\nerror: [^\\n]*; nothing written to ${file}\\n$`));
    expect((await call(server.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).status).toBe(429);
    expect(readFileSync(file, 'utf8')).toBe('an earlier export\n');
    expect(readdirSync(dir)).toEqual(['all.har']);
  }, 120_000);
});

describe('hookcap export, the server gone midway', () => {
  test('the connection lost is said in words, not as the runtime\'s advice to fetch\'s caller; nothing written to -o, exit 1', async () => {
    const server = await startServer();
    cleanups.push(() => stopServer(server));
    const a = await newAccount(server.url);
    const ep = (await call(server.url, 'POST', '/api/endpoints', { token: a.key, body: { name: 'big' } })).body;
    const N = 6000;
    const pad = 'p'.repeat(4000);
    await sendCaptures({ url: server.url, slug: ep.slug, count: N, body: (i) => `{"n":${i},"pad":"${pad}"}` });
    await eventually(async () => (await call(server.url, 'GET', `/api/search/requests/count?slug=${ep.slug}`, { token: a.key })).body.count === N, 60_000);
    const e = env({ HOOKCAP_API_URL: server.url, HOOKCAP_API_KEY: a.key });
    const dir = join(e.configHome, 'out');
    mkdirSync(dir);
    const script = join(dir, 'replay.sh');

    const cli = new RunningCli(['export', ep.slug, '--format', 'curl', '-o', script], e.env);
    cleanups.push(() => void cli.stop('SIGKILL'));
    // Once the export is writing, freeze it and kill the server, so the stream breaks midway however fast the machine is.
    // (Past the script's first lines, written before the export is asked for: the captures themselves.)
    const writing = () => readdirSync(dir).some((f) => statSync(join(dir, f)).size > 50_000);
    while (!writing()) {
      if (cli.proc.exitCode !== null) throw new Error(`export ended before the server was killed:\n${cli.stderr}`);
      await Bun.sleep(2);
    }
    process.kill(cli.proc.pid, 'SIGSTOP');
    server.proc.kill('SIGKILL');
    await server.proc.exited;
    process.kill(cli.proc.pid, 'SIGCONT');
    expect(await cli.proc.exited).toBe(1);
    expect(cli.stderr).toMatch(
      new RegExp(`\\nerror: export stopped after [\\d,]+ captures: the connection to ${server.url} was lost \\([a-z ]+\\); nothing written to ${script}; run the export again\\n$`),
    );
    expect(cli.stderr).not.toContain('verbose');
    expect(readdirSync(dir)).toEqual([]);
  }, 180_000);
});
