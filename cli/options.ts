/** Option values checked as they are parsed: a bad one is a usage error (exit 2) that names it. */
import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { AppError } from '../src/errors';
import { captureIdFloor, isCaptureId, isSlug } from '../src/ids';
import { parseHeaderLine } from '../src/model/header-line';
import { parseHeaderFilter } from '../src/services/search-params';
import type { HeaderFilter } from '../src/stores/captures/types';
import { osReason, UsageError } from './errors';

export function integer(name: string, min: number) {
  return (raw: string): number => {
    if (!/^\d+$/.test(raw.trim()) || Number(raw) < min) throw new UsageError(`${name} must be a whole number ≥ ${min}, got ${JSON.stringify(raw)}`);
    return Number(raw);
  };
}

/**
 * What `raw` likely meant when it is a port (`4711`) or a host and port without the scheme
 * (`localhost:4711`, `127.0.0.1:4000/hooks`): the http:// URL, suggested, never assumed (an
 * https app, or another host, would then be reached wrongly without a word).
 */
function meantUrl(raw: string): string | null {
  const t = raw.trim();
  if (/^\d{1,5}$/.test(t)) return `http://localhost:${t}`;
  if (/^:\d{1,5}(\/\S*)?$/.test(t)) return `http://localhost${t}`;
  if (/^[a-z0-9.-]+:\d{1,5}(\/\S*)?$/i.test(t) || /^(localhost|\d{1,3}(\.\d{1,3}){3})(\/\S*)?$/i.test(t)) return `http://${t}`;
  return null;
}

export function httpUrl(name: string) {
  return (raw: string): string => {
    const meant = meantUrl(raw);
    // `localhost:4711` parses, as a URL of the scheme `localhost:`: caught here, with the rest.
    const hint = meant === null ? undefined : `did you mean ${name.startsWith('-') ? `${name} ` : ''}${meant}?`;
    let u: URL;
    try {
      u = new URL(raw);
    } catch {
      throw new UsageError(`${name} must be a URL such as http://127.0.0.1:4000/hooks, got ${JSON.stringify(raw)}`, hint);
    }
    if (u.protocol !== 'http:' && u.protocol !== 'https:') throw new UsageError(`${name} must be an http or https URL, got ${JSON.stringify(raw)}`, hint);
    return raw;
  };
}

/**
 * `hookcap listen SLUG http://…`: the URL given as a second argument, as `forward` takes it. Said
 * with the two ways to write it, where commander said only "too many arguments".
 */
export function checkListenArguments(cmd: Command): void {
  if (cmd.name() !== 'listen' || cmd.args.length <= 1) return;
  const [slug, url, ...more] = cmd.args;
  const target = more.length === 0 && url !== undefined ? (meantUrl(url) ?? url) : 'URL';
  throw new UsageError(
    `too many arguments: listen takes the endpoint alone, and where to forward with --forward (got ${cmd.args.map((a) => JSON.stringify(a)).join(' ')})`,
    `hookcap listen ${slug} --forward ${target}, or hookcap forward ${slug} ${target}`,
  );
}

export function oneOf<T extends string>(name: string, allowed: readonly T[]) {
  return (raw: string): T => {
    const found = allowed.find((a) => a === raw);
    if (found === undefined) throw new UsageError(`${name} must be one of ${allowed.join(', ')}, got ${JSON.stringify(raw)}`);
    return found;
  };
}

/**
 * `-H 'name: value'`, repeatable; `-H 'name:'` (nothing after the colon) is null: replay removes
 * that header. `-H 'name;'` is the header present and empty, curl's way of saying it (only with no
 * colon, and nothing but white space after the semicolon, as curl reads it).
 */
export function collectHeader(raw: string, previous: [string, string | null][] = []): [string, string | null][] {
  const header = parseHeaderLine(raw);
  if (header === null) throw new UsageError(`-H takes 'name: value' (or 'name;' for an empty header), got ${JSON.stringify(raw)}`);
  return [...previous, header];
}

/**
 * `--header 'name:value'` as a filter (export, tail), repeatable: checked by the rule the API
 * applies (docs/search.md), so a bad one is a usage error here rather than a 400 later.
 */
export function collectHeaderFilter(raw: string, previous: HeaderFilter[] = []): HeaderFilter[] {
  try {
    const filter = parseHeaderFilter(raw);
    return filter === null ? previous : [...previous, filter];
  } catch (err) {
    // The API names the parameter as `header: …`; here the user typed a flag, so say that.
    if (err instanceof AppError) throw new UsageError(err.message.replace(/^header: /, '--header '));
    throw err;
  }
}

/** A parsed header filter back in the API's `name:value` form. */
export const headerFilterParam = (h: HeaderFilter): string => `${h.name}:${h.value}`;

const DURATION = /^(\d+)(s|m|h|d|w)$/;
const UNIT_MS = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 } as const;

/** A time as the API takes it: a duration back from now (15m, 7d), ms since the epoch, or ISO 8601. */
export function timeBound(name: string) {
  return (raw: string): string => {
    const t = raw.trim();
    // `--since 10` meant ten of something: read as ms since 1970 (or by Date.parse as a year) it
    // would quietly reach back to the start of time. `0` says that on purpose: everything.
    if (/^\d{1,9}$/.test(t) && t !== '0') throw new UsageError(`${name} ${t} has no unit: write ${t}m, ${t}h or ${t}d (a bare number is ms since the epoch, 10 digits or more, or 0 for everything)`);
    if (DURATION.test(t) || /^\d{10,}$/.test(t) || !Number.isNaN(Date.parse(t))) return t;
    throw new UsageError(`${name} must be a duration (30s, 15m, 2h, 7d, 1w), ms since the epoch or an ISO 8601 time, got ${JSON.stringify(raw)}`);
  };
}

/**
 * A span written as the time options write one (30m, 2h, 1d, 1w), in whole seconds, within
 * `[minS, maxS]`: `endpoints create --expires`.
 */
export function duration(name: string, minS: number, maxS: number) {
  const say = (s: number) => (s % 86_400 === 0 ? `${s / 86_400}d` : s % 3_600 === 0 ? `${s / 3_600}h` : s % 60 === 0 ? `${s / 60}m` : `${s}s`);
  return (raw: string): number => {
    const d = DURATION.exec(raw.trim());
    if (!d) throw new UsageError(`${name} must be a duration such as 30m, 2h, 1d or 1w, got ${JSON.stringify(raw)}`);
    const seconds = (Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS]) / 1000;
    if (seconds < minS || seconds > maxS) throw new UsageError(`${name} must be from ${say(minS)} to ${say(maxS)}, got ${JSON.stringify(raw)}`);
    return seconds;
  };
}

/** A time bound as ms since the epoch. */
export function boundMs(t: string, now = Date.now()): number {
  const d = DURATION.exec(t);
  if (d) return now - Number(d[1]) * UNIT_MS[d[2] as keyof typeof UNIT_MS];
  if (/^\d+$/.test(t)) return Number(t);
  return Date.parse(/[zZ]|[+-]\d\d:?\d\d$/.test(t) || !t.includes('T') ? t : `${t}Z`);
}

/** `--since`: a capture id (start after it), or a time (start at it); the Last-Event-ID to resume from. */
export function since(raw: string): string {
  const t = raw.trim();
  if (isCaptureId(t)) return t;
  return captureIdFloor(boundMs(timeBound('--since')(t)));
}

/** `@file`, `@-` (stdin) or the text itself, as bytes. */
export function bodySource(name: string, raw: string): Uint8Array {
  if (!raw.startsWith('@')) return new TextEncoder().encode(raw);
  const path = raw.slice(1);
  try {
    return new Uint8Array(readFileSync(path === '-' ? 0 : path));
  } catch (err) {
    // Said in words, with the file named: the runtime's "EISDIR: illegal operation on a directory, read" names none.
    throw new UsageError(`${name}: cannot read ${path === '-' ? 'stdin' : path}: ${osReason(err)}`);
  }
}

/**
 * An endpoint's slug, or its capture URL pasted whole (`http://host/w/<slug>/…`, what `endpoints
 * create` prints): anything else is refused here rather than sent, where `..` or an empty slug
 * would make another URL and a 404 that blames the address.
 */
export function slugArg(raw: string): string {
  const t = raw.trim();
  const slug = /^https?:\/\/[^/]+\/w\/([^/?#]+)/.exec(t)?.[1] ?? t;
  if (!isSlug(slug)) {
    throw new UsageError(`not an endpoint slug: ${JSON.stringify(raw)}`, 'a slug is 12 lower-case letters and digits, as hookcap endpoints list shows (the capture URL works too)');
  }
  return slug;
}

/**
 * `endpoints create NAME`: a name given empty or blank is refused, where the API would quietly
 * call the endpoint "Untitled endpoint". Typed on purpose it is rare; `"$NAME"` with NAME unset is
 * not, and a CI job would then make endpoints no one can tell apart. Left out, the API's default
 * stands.
 */
export function endpointNameArg(raw: string): string {
  if (raw.trim() !== '') return raw;
  throw new UsageError(
    `the endpoint name is ${raw === '' ? 'empty' : 'only white space'} (${JSON.stringify(raw)})`,
    'an unset shell variable? Give a name, or leave NAME out for the default "Untitled endpoint"',
  );
}

/** A capture id, as listen, tail and the dashboard show it. */
export function captureIdArg(raw: string): string {
  const t = raw.trim();
  if (!isCaptureId(t)) throw new UsageError(`not a capture id: ${JSON.stringify(raw)}`, 'capture ids look like req_01M87QT79D0TXE58ZWRX5DQ3MV (hookcap tail shows them)');
  return t;
}

/**
 * `listen`'s target may not be the endpoint's own capture URL (what `endpoints create` prints, so
 * the one at hand): every capture forwarded there is captured again and forwarded again, a loop
 * that filled an endpoint with 1,400 copies in 3 s. Judged by the path alone, since the same
 * server answers as localhost, 127.0.0.1 or a public name, and no local app has `/w/<slug>`.
 */
export function checkForwardTarget(slug: string, forward: string): void {
  const segments = new URL(forward).pathname.split('/');
  const at = segments.findIndex((s, i) => s === 'w' && segments[i + 1] === slug);
  if (at < 0) return;
  throw new UsageError(
    `${forward} is the capture URL of ${slug} itself: every capture forwarded there would be captured again and forwarded again, without end`,
    'forward to your app instead, e.g. --forward http://127.0.0.1:4000/hooks',
  );
}

/**
 * Options a command cannot go without (`listen --forward`, `replay --to`, `export --format`).
 * Commander checks its own mandatory options before the arguments, so `hookcap listen`, missing
 * its slug too, was told about `--forward` first; these are checked after the arguments
 * (`checkRequiredOptions`, in a preAction hook), so the slug comes first, as the usage line has it.
 */
const REQUIRED = new WeakSet<Option>();

/** An option `checkRequiredOptions` insists on; its help says `required:` first. */
export function requiredOption(flags: string, description: string): Option {
  const option = new Option(flags, `required: ${description}`);
  REQUIRED.add(option);
  return option;
}

/** Refuses, as commander refuses a missing argument (exit 2), the first required option `cmd` was not given. */
export function checkRequiredOptions(cmd: Command): void {
  const missing = cmd.options.find((o) => REQUIRED.has(o) && cmd.getOptionValue(o.attributeName()) === undefined);
  if (missing) cmd.error(`error: required option '${missing.flags}' not specified`, { code: 'commander.missingMandatoryOptionValue', exitCode: 2 });
}
