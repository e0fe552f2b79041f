/**
 * Where the CLI keeps what it remembers: `$XDG_CONFIG_HOME/hookcap/` (default `~/.config/hookcap/`),
 * `config.json` (API URL and key, mode 0600) and `state/<slug>.<hash>.json` (the last capture
 * `listen` handled forwarding that endpoint to one URL, for resuming; `.lock` beside it while one
 * runs). Settings come from flags, then the environment, then the file.
 */
import { chmodSync, existsSync, mkdirSync, readdirSync, readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { createHash } from 'node:crypto';
import { homedir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { createClient, DEFAULT_API_URL, type HookcapClient } from '../client/index';
import { isCaptureId } from '../src/ids';
import { CliError, osReason } from './errors';
import { httpUrl } from './options';
import { checkedFetch } from './api-answers';

export interface Settings {
  apiUrl: string;
  key: string | null;
  /** Where each came from, for `login` and error messages. */
  sources: { apiUrl: 'flag' | 'env' | 'file' | 'default'; key: 'flag' | 'env' | 'file' | 'none' };
}

interface ConfigFile {
  apiUrl?: string;
  key?: string;
}

export function configDir(env: NodeJS.ProcessEnv = process.env): string {
  const base = env.XDG_CONFIG_HOME && env.XDG_CONFIG_HOME.startsWith('/') ? env.XDG_CONFIG_HOME : join(homedir(), '.config');
  return join(base, 'hookcap');
}

export const configPath = (env: NodeJS.ProcessEnv = process.env) => join(configDir(env), 'config.json');

function readJson(path: string, hint: string): unknown {
  if (!existsSync(path)) return null;
  try {
    return JSON.parse(readFileSync(path, 'utf8'));
  } catch (err) {
    throw new CliError(`cannot read ${path}: ${osReason(err)}`, hint);
  }
}

function readConfig(env: NodeJS.ProcessEnv): ConfigFile {
  const raw = readJson(configPath(env), 'run hookcap login --key svc_… to write it anew');
  if (raw === null || typeof raw !== 'object') return {};
  const { apiUrl, key } = raw as Record<string, unknown>;
  return { apiUrl: typeof apiUrl === 'string' ? apiUrl : undefined, key: typeof key === 'string' ? key : undefined };
}

function readConfigOrNothing(env: NodeJS.ProcessEnv): ConfigFile {
  try {
    return readConfig(env);
  } catch {
    return {};
  }
}

/** The file `writePrivate` writes before renaming it to `path`: `path.<pid>.tmp`, beside it. */
const tempOf = (path: string, pid: number): string => `${path}.${pid}.tmp`;

/** Whether `name` (in `path`'s folder) is one of `path`'s temp files, by `tempOf`'s naming and no other. */
function isTempOf(path: string, name: string): boolean {
  const prefix = `${basename(path)}.`;
  return name.startsWith(prefix) && /^\d+\.tmp$/.test(name.slice(prefix.length));
}

/** Writes `data` as JSON readable by the owner only, atomically (a crash leaves the old file or the new). */
function writePrivate(path: string, data: unknown): void {
  mkdirSync(join(path, '..'), { recursive: true, mode: 0o700 });
  const tmp = tempOf(path, process.pid);
  writeFileSync(tmp, `${JSON.stringify(data, null, 2)}\n`, { mode: 0o600 });
  chmodSync(tmp, 0o600);
  renameSync(tmp, path);
}

/**
 * Flags beat the environment, which beats the config file. `replacingFile`: for `login`, which
 * writes the file anew, so one that cannot be read is no reason to refuse it.
 */
export function resolveSettings(flags: { apiUrl?: string; key?: string }, env: NodeJS.ProcessEnv = process.env, opts: { replacingFile?: boolean } = {}): Settings {
  const file = opts.replacingFile ? readConfigOrNothing(env) : readConfig(env);
  const pick = <T extends string>(flag: string | undefined, envValue: string | undefined, fileValue: string | undefined, none: T) =>
    flag ? { value: flag, source: 'flag' as const } : envValue ? { value: envValue, source: 'env' as const } : fileValue ? { value: fileValue, source: 'file' as const } : { value: null, source: none };
  const apiUrl = pick(flags.apiUrl, env.HOOKCAP_API_URL, file.apiUrl, 'default');
  // A key has no white space: around one it was pasted along (a trailing newline, quoted spaces),
  // and sent as it is it would be refused, or saved by login to be refused later.
  const trimmed = (k: string | undefined) => k?.trim() || undefined;
  const key = pick(trimmed(flags.key), trimmed(env.HOOKCAP_API_KEY), trimmed(file.key), 'none');
  // Checked as --api-url is (by its option parser): `hookcap.example.com` without http:// would
  // otherwise surface as fetch's "URL is invalid" at the first call.
  if (apiUrl.source === 'env') httpUrl('HOOKCAP_API_URL')(apiUrl.value);
  if (apiUrl.source === 'file') httpUrl(`apiUrl in ${configPath(env)}`)(apiUrl.value);
  return { apiUrl: baseUrl(apiUrl.value ?? DEFAULT_API_URL), key: key.value, sources: { apiUrl: apiUrl.source, key: key.source } };
}

/**
 * The server's base address. The service prints its API as `http://host:3000/api`, so that is
 * what people paste; every route the client calls already starts with /api, so a trailing /api
 * (and trailing slashes) is dropped rather than doubled into /api/api/… and a 404.
 */
export function baseUrl(raw: string): string {
  return raw.replace(/\/+$/, '').replace(/\/api$/, '');
}

export function saveConfig(apiUrl: string, key: string, env: NodeJS.ProcessEnv = process.env): string {
  const path = configPath(env);
  writePrivate(path, { apiUrl, key });
  return path;
}

/** What `forgetConfig` removed: the file's path, and what it held as far as it could be read. */
export interface Forgotten {
  path: string;
  /** False when there was no file: nothing was saved. */
  removed: boolean;
  apiUrl?: string;
  key?: string;
  /** The file was there but not JSON: what it held is not known. */
  unreadable: boolean;
  /**
   * Temp files of a `login` that died mid-write (`config.json.<pid>.tmp`, which may hold a key),
   * removed too: their paths.
   */
  leftovers: string[];
}

/**
 * Removes the config file `login` wrote. Reads it first, leniently, to say what it held: a file
 * that cannot be parsed is removed all the same, since removing it is what was asked.
 */
export function forgetConfig(env: NodeJS.ProcessEnv = process.env): Forgotten {
  const path = configPath(env);
  const leftovers = removeLeftovers(path);
  if (!existsSync(path)) return { path, removed: false, unreadable: false, leftovers };
  let held: ConfigFile = {};
  let unreadable = false;
  try {
    held = readConfig(env);
  } catch {
    unreadable = true;
  }
  try {
    unlinkSync(path);
  } catch (e) {
    throw new CliError(`cannot remove ${path}: ${osReason(e)}`, 'nothing was removed; remove the file by hand');
  }
  return { path, removed: true, ...held, unreadable, leftovers };
}

/**
 * Removes the temp files a `login` killed between writing and renaming left beside `path`: they
 * hold the key as the file would have. Only `tempOf`'s names, so nothing else in the folder goes.
 */
function removeLeftovers(path: string): string[] {
  let names: string[];
  try {
    names = readdirSync(dirname(path));
  } catch {
    // No folder: nothing was ever saved.
    return [];
  }
  const removed: string[] = [];
  for (const name of names.filter((n) => isTempOf(path, n)).sort()) {
    const leftover = join(dirname(path), name);
    try {
      unlinkSync(leftover);
    } catch (e) {
      // Gone meanwhile (a login finishing renames it): nothing left to remove.
      if (e instanceof Error && 'code' in e && e.code === 'ENOENT') continue;
      throw new CliError(`cannot remove ${leftover}: ${osReason(e)}`, 'it may hold a saved key; remove it by hand');
    }
    removed.push(leftover);
  }
  return removed;
}

/** A client for the resolved settings; a missing key is the user's to fix. */
export function clientFor(settings: Settings): HookcapClient {
  if (!settings.key) {
    throw new CliError('no API key', 'run hookcap login --key svc_… (or set HOOKCAP_API_KEY, or pass --key)');
  }
  return apiClient(settings.apiUrl, settings.key);
}

/** A client of the API at `apiUrl` whose answers are checked to be hookcap's (cli/api-answers.ts). */
export const apiClient = (apiUrl: string, key: string): HookcapClient => createClient({ apiUrl, key, fetch: checkedFetch(apiUrl) });

const SLUG = /^[A-Za-z0-9_-]{1,100}$/;

function stateDir(slug: string, env: NodeJS.ProcessEnv): string {
  // Slugs are [a-z2-9]; anything else never becomes a path.
  if (!SLUG.test(slug)) throw new CliError(`not a slug: ${JSON.stringify(slug)}`);
  return join(configDir(env), 'state');
}

/**
 * A --forward URL as positions are keyed by: parsed (host lower-cased, default port dropped) and
 * without a trailing slash, so `http://LOCALHOST:80/hooks/` and `http://localhost/hooks` are one.
 */
function forwardKey(forward: string): string {
  const u = new URL(forward);
  return `${u.protocol}//${u.host}${u.pathname.replace(/\/+$/, '')}${u.search}`;
}

/**
 * `state/<slug>.<hash>.json`: the position of one endpoint forwarded to one URL (`hash`: 12 hex
 * digits of the SHA-256 of `forwardKey`). Two runs forwarding one endpoint to two apps each keep
 * their own: one file per endpoint let each run resume after the other's captures, skipping its own.
 */
function statePath(slug: string, forward: string, env: NodeJS.ProcessEnv, ext = 'json'): string {
  const hash = createHash('sha256').update(forwardKey(forward)).digest('hex').slice(0, 12);
  return join(stateDir(slug, env), `${slug}.${hash}.${ext}`);
}

/** Where versions before positions per --forward URL kept the one position of an endpoint: read, never written. */
const legacyStatePath = (slug: string, env: NodeJS.ProcessEnv = process.env): string => join(stateDir(slug, env), `${slug}.json`);

export interface ResumeState {
  /** The last capture handled (forwarded, or given up on and reported), or where a run started. */
  lastId: string;
  apiUrl: string;
  savedAt: number;
  /**
   * False when `lastId` is only where a run started (saved before its first capture, which was
   * then not handled): `savedAt` is that start, not a capture's handling. Files from before this
   * field are handled positions.
   */
  handled: boolean;
  /** The --forward URL it is the position of (for whoever reads the file); '' in the per-endpoint file of older versions. */
  forward: string;
  /** Read from the per-endpoint file of an older version (`legacyStatePath`), this target having none of its own. */
  legacy?: boolean;
}

const RESUME_HINT = 'delete the file to start at live, or pass --since or --no-resume';

function parseResume(raw: unknown): Omit<ResumeState, 'legacy'> | null {
  if (raw === null || typeof raw !== 'object') return null;
  const { lastId, apiUrl, savedAt, handled, forward } = raw as Record<string, unknown>;
  if (typeof lastId !== 'string' || !isCaptureId(lastId)) return null;
  return { lastId, apiUrl: typeof apiUrl === 'string' ? apiUrl : '', savedAt: typeof savedAt === 'number' ? savedAt : 0, handled: handled !== false, forward: typeof forward === 'string' ? forward : '' };
}

/**
 * The saved position of `slug` forwarded to `forward`. Without one, the per-endpoint file an older
 * version wrote stands in (marked `legacy`): a user upgrading resumes where they stopped. It is
 * left in place, for any other URL that endpoint was forwarded to, and never written again.
 */
export function loadResume(slug: string, forward: string, env: NodeJS.ProcessEnv = process.env): ResumeState | null {
  const own = readJson(statePath(slug, forward, env), RESUME_HINT);
  if (own !== null) return parseResume(own);
  const legacy = parseResume(readJson(legacyStatePath(slug, env), RESUME_HINT));
  return legacy && { ...legacy, legacy: true };
}

export function saveResume(slug: string, forward: string, state: ResumeState, env: NodeJS.ProcessEnv = process.env): void {
  const { legacy: _, ...kept } = state;
  writePrivate(statePath(slug, forward, env), { ...kept, forward: forwardKey(forward) });
}

/** Whether process `pid` exists (EPERM: it does, another user's). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return e instanceof Error && 'code' in e && e.code === 'EPERM';
  }
}

/**
 * Takes the lock of `slug` forwarded to `forward` (`state/<slug>.<hash>.lock`, created exclusively,
 * holding this pid), so that two runs never share one position: the second is refused, naming the
 * first. A lock whose pid is not running (a run killed with -9, a reboot) is taken over. Returns
 * its release, which removes the file if it is still this run's; it is also released when the
 * process exits (a second Ctrl-C exits at once).
 */
export function lockForward(slug: string, forward: string, env: NodeJS.ProcessEnv = process.env): () => void {
  const path = statePath(slug, forward, env, 'lock');
  mkdirSync(dirname(path), { recursive: true, mode: 0o700 });
  for (let tries = 0; ; tries++) {
    try {
      writeFileSync(path, `${process.pid}\n`, { flag: 'wx', mode: 0o600 });
      break;
    } catch (e) {
      if (!(e instanceof Error && 'code' in e && e.code === 'EEXIST')) throw new CliError(`cannot write ${path}: ${osReason(e)}`, 'nothing was forwarded');
    }
    let pid = Number.NaN;
    try {
      pid = Number.parseInt(readFileSync(path, 'utf8'), 10);
    } catch {
      // Removed meanwhile (the other run stopped): try again.
    }
    if (Number.isInteger(pid) && pid > 0 && pid !== process.pid && alive(pid) && tries < 3) {
      throw new CliError(
        `another hookcap listen (pid ${pid}) is already forwarding ${slug} to ${forward}; two runs would share one resume position`,
        `stop it first (Ctrl-C where it runs, or kill ${pid}); to forward to a second app, give another --forward URL. If no such run exists (pid ${pid} is another program now), remove ${path}`,
      );
    }
    if (tries >= 3) throw new CliError(`cannot take the lock ${path}: it keeps changing, or holds no pid`, `is another hookcap listen starting? Remove ${path} if not`);
    // No pid yet: another run created it and is writing its pid. Waited for briefly, never removed.
    if (Number.isNaN(pid)) {
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 100);
      continue;
    }
    // Stale: its run is gone. Removed only if it still names that pid (another run may have just taken it).
    try {
      if (Number.parseInt(readFileSync(path, 'utf8'), 10) === pid) unlinkSync(path);
    } catch {
      // Gone already.
    }
  }
  const release = () => {
    process.off('exit', release);
    try {
      if (Number.parseInt(readFileSync(path, 'utf8'), 10) === process.pid) unlinkSync(path);
    } catch {
      // Gone already.
    }
  };
  process.on('exit', release);
  return release;
}
