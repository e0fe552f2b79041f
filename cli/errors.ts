/**
 * What the CLI tells a user when something goes wrong: one line, what to do next, and an exit
 * code that means something (1 failure, 2 usage, 3 nothing there: `endpoints newest` of an endpoint
 * without captures). Never a stack trace for a user's mistake.
 */
import { getSystemErrorMap } from 'node:util';
import { HookcapError } from '../client/index';
import type { Settings } from './config';

type KeySource = Settings['sources']['key'];

/**
 * Where a new key goes. HOOKCAP_API_KEY is read before the key `hookcap login` saves, so with a
 * refused key from there "log in again" changed nothing: every command was refused as before.
 */
function putNewKey(source: KeySource | undefined): string {
  if (source === 'env') return 'set HOOKCAP_API_KEY to it (it is read before the key hookcap login saves), or unset HOOKCAP_API_KEY';
  if (source === 'flag') return 'pass it with --key';
  return 'hookcap login --key svc_…';
}

export const EXIT_OK = 0;
export const EXIT_FAILURE = 1;
export const EXIT_USAGE = 2;
/** The command worked and found nothing to print (`endpoints newest`: no capture yet). */
export const EXIT_EMPTY = 3;

/** Something went wrong that the user may fix; `hint` says how. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly hint?: string,
    readonly exitCode: number = EXIT_FAILURE,
  ) {
    super(message);
    this.name = 'CliError';
  }
}

/** The command line itself is wrong: a bad option value, a missing argument. Exit code 2. */
export class UsageError extends CliError {
  constructor(message: string, hint?: string) {
    super(message, hint, EXIT_USAGE);
    this.name = 'UsageError';
  }
}

/**
 * A command that writes a file (`export -o FILE`) failed before FILE was written: whatever the
 * failure (the server gone, an API error, the disk), its line ends `; nothing written to FILE`,
 * said here once for all of them. The cause is described as it would be alone, hint included.
 */
export const nothingWrittenTo = (file: string): string => `nothing written to ${file}`;

export class NothingWritten extends Error {
  constructor(
    readonly failure: unknown,
    readonly file: string,
  ) {
    super(nothingWrittenTo(file));
    this.name = 'NothingWritten';
  }
}

/** The API address answers, but not as hookcap does. */
export function notHookcap(apiUrl: string): CliError {
  return new CliError(
    `${apiUrl} does not answer as a hookcap API`,
    'set the address the hookcap server prints at start-up (its API, e.g. http://localhost:3000/api) with --api-url or HOOKCAP_API_URL',
  );
}

/**
 * hookcap's 404 for a route it does not have, not for a slug or id it does not know: `no route GET
 * /api/…; the API is described at /docs …` under /api (src/http/route-miss.ts), `no page GET /…;
 * the dashboard is at /, …` outside it (an --api-url with a path before /api), and a bare
 * `not found` from servers before those wordings.
 */
function isRouteMiss(message: string): boolean {
  return message === 'not found' || message.startsWith('no route ') || message.startsWith('no page ');
}

/** One line (plus a hint) for any error; HOOKCAP_DEBUG=1 adds the stack of unexpected ones. */
export function describeError(err: unknown, apiUrl: string, keySource?: KeySource): { message: string; hint?: string; exitCode: number } {
  if (err instanceof NothingWritten) {
    const d = describeError(err.failure, apiUrl, keySource);
    return { ...d, message: `${d.message}; ${err.message}` };
  }
  if (err instanceof CliError) {
    return { message: err.message, hint: err.hint ?? (err.exitCode === EXIT_USAGE ? 'add --help for usage' : undefined), exitCode: err.exitCode };
  }
  if (err instanceof HookcapError) {
    switch (err.code) {
      case 'unauthorized':
        return { message: `the API key was refused (${err.message})`, hint: keySource === 'env' || keySource === 'flag' ? `use a valid key: ${putNewKey(keySource)}` : 'log in again: hookcap login --key svc_…', exitCode: EXIT_FAILURE };
      case 'credential_revoked':
        return { message: err.message, hint: `create a new key in the dashboard, then: ${putNewKey(keySource)}`, exitCode: EXIT_FAILURE };
      case 'access_revoked':
        // Read through a team, and no longer: removed or left, unshared, team deleted, or unpaid.
        return { message: err.message, hint: "ask the team's owner to share it again or invite you back; hookcap endpoints list shows your own endpoints", exitCode: EXIT_FAILURE };
      case 'session_expired':
        // A session token (ses_…) used as the key: it lasts SESSION_TTL_MS; keys do not expire.
        return { message: err.message, hint: `use an API key, which does not expire: create one in the dashboard, then: ${putNewKey(keySource)}`, exitCode: EXIT_FAILURE };
      case 'forbidden':
        return { message: err.message, hint: 'this key may not do that; an agent key must be claimed first', exitCode: EXIT_FAILURE };
      case 'network':
        return {
          message: err.message,
          hint: `is hookcap running at ${apiUrl}? Set the address with --api-url or HOOKCAP_API_URL`,
          exitCode: EXIT_FAILURE,
        };
      case 'not_found':
        // hookcap's answer to a route it does not have: the address is wrong, not the slug.
        if (isRouteMiss(err.message)) return describeError(notHookcap(apiUrl), apiUrl);
        return { message: err.message, hint: 'check the slug or id (hookcap endpoints list shows your endpoints, hookcap tail <slug> their capture ids)', exitCode: EXIT_FAILURE };
      case 'method_not_allowed':
        // A hookcap route, but not with the method this CLI uses: a server older than the CLI.
        return { message: err.message, hint: `the hookcap server at ${apiUrl} may be older than this CLI: upgrade it, or use a CLI of its version`, exitCode: EXIT_FAILURE };
      case 'http_404':
        return describeError(notHookcap(apiUrl), apiUrl);
      case 'proxy_error':
        // cli/api-answers.ts: a proxy's 502/503/504 page; hookcap behind it may be down or restarting.
        return { message: err.message, hint: `if hookcap runs behind that proxy, it is down or restarting: try again in a moment; else ${notHookcap(apiUrl).hint}`, exitCode: EXIT_FAILURE };
      case 'not_hookcap':
        // cli/api-answers.ts: an answer hookcap never gives; the message says what came instead.
        return { message: err.message, hint: notHookcap(apiUrl).hint, exitCode: EXIT_FAILURE };
      case 'validation':
        return { message: err.message, exitCode: EXIT_USAGE };
      default:
        return { message: err.message, exitCode: EXIT_FAILURE };
    }
  }
  // A JSON parse error: whatever answered at the API address is not hookcap.
  if (err instanceof SyntaxError) return describeError(notHookcap(apiUrl), apiUrl);
  const message = err instanceof Error ? err.message : String(err);
  // cli/api-answers.ts checks the answers the CLI reads; one it missed, read as if it were
  // hookcap's, fails as a TypeError (`x.map is not a function`): said as what it likely is.
  if (err instanceof TypeError && !process.env.HOOKCAP_DEBUG && /is not (a function|iterable|an object)|Cannot read properties of (undefined|null)/.test(message)) {
    return { message: `${apiUrl} answered in a way this CLI cannot read (${message}): does it answer as a hookcap API?`, hint: `${notHookcap(apiUrl).hint}; set HOOKCAP_DEBUG=1 for details`, exitCode: EXIT_FAILURE };
  }
  const debug = process.env.HOOKCAP_DEBUG && err instanceof Error && err.stack ? `\n${err.stack}` : '';
  return { message: `${message}${debug}`, hint: debug ? undefined : 'set HOOKCAP_DEBUG=1 for details', exitCode: EXIT_FAILURE };
}

/**
 * The OS wordings said otherwise: "illegal operation on a directory" (EISDIR, reading a folder as a
 * file) does not say what is wrong. Every other reason is the OS's own.
 */
const PLAINER: Record<string, string> = { EISDIR: 'it is a folder' };

/** A file system error's reason as the OS words it ("permission denied"), without the path node puts in its message. */
export function osReason(e: unknown): string {
  const code = e instanceof Error && 'code' in e && typeof e.code === 'string' ? e.code : '';
  const errno = e instanceof Error && 'errno' in e && typeof e.errno === 'number' ? e.errno : null;
  const words = PLAINER[code] ?? (errno === null ? undefined : getSystemErrorMap().get(errno)?.[1]);
  return words ?? (e instanceof Error ? e.message : String(e));
}
