/**
 * Parses the `from` / `to` values of search: a duration back from now (`30s`, `15m`, `2h`, `7d`,
 * `1w`), ms since the epoch (`1710072000000`), or an ISO 8601 timestamp (`2024-03-10`,
 * `2024-03-10T12:00:00Z`, `2024-03-10T13:00:00.250+01:00`). Pure: `now` is passed in.
 *
 * @example parseInstant('2h', 'from', now) === now - 7_200_000
 */

/** A value that is none of the accepted forms; `parameter` names the query parameter. */
export class TimeParseError extends Error {
  constructor(
    readonly parameter: string,
    readonly value: string,
  ) {
    super(
      `${parameter}: must be a duration back from now (30s, 15m, 2h, 7d, 1w), ms since the epoch, or an ISO 8601 ` +
        `timestamp (2024-03-10T12:00:00Z); got ${JSON.stringify(value)}`,
    );
    this.name = 'TimeParseError';
  }
}

const UNIT_MS: Readonly<Record<string, number>> = { s: 1_000, m: 60_000, h: 3_600_000, d: 86_400_000, w: 604_800_000 };

// Upper-case units are refused on purpose: `1M` reads as a month as easily as a minute.
const DURATION = /^(\d{1,9})([smhdw])$/;
const EPOCH_MS = /^\d{1,16}$/;
// Date, optional time (T, t or space), optional fraction, optional zone (Z or ±hh[:mm]).
const ISO =
  /^(\d{4})-(\d{2})-(\d{2})(?:[Tt ](\d{2}):(\d{2})(?::(\d{2})(?:[.,](\d+))?)?(?:([Zz])|([+-])(\d{2})(?::?(\d{2}))?)?)?$/;

/** 9999-12-31T23:59:59.999Z: far enough for any search, and what ISO's four-digit year can say. */
export const MAX_INSTANT_MS = 253_402_300_799_999;

/** Duration in ms, or null when `text` is not a duration. */
export function parseDuration(text: string): number | null {
  const m = DURATION.exec(text);
  if (!m) return null;
  const unit = UNIT_MS[m[2] ?? ''];
  return unit === undefined ? null : Number(m[1]) * unit;
}

function parseIso(text: string): number | null {
  const m = ISO.exec(text);
  if (!m) return null;
  const [, y, mo, d, h = '0', mi = '0', s = '0', frac = '', , sign, oh = '0', om = '0'] = m;
  const year = Number(y);
  const month = Number(mo);
  const day = Number(d);
  const hour = Number(h);
  const minute = Number(mi);
  const second = Number(s);
  const ms = Number(frac.padEnd(3, '0').slice(0, 3));
  const offsetHours = Number(oh);
  const offsetMinutes = Number(om);
  if (hour > 23 || minute > 59 || second > 59 || offsetHours > 23 || offsetMinutes > 59) return null;
  const utc = Date.UTC(year, month - 1, day, hour, minute, second, ms);
  // Date.UTC rolls 2024-02-30 over to March: a date that does not survive the round trip is invalid.
  const check = new Date(utc);
  if (check.getUTCFullYear() !== year || check.getUTCMonth() !== month - 1 || check.getUTCDate() !== day) return null;
  // No zone means UTC: the server cannot know the caller's local time.
  const offset = sign ? (sign === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinutes) * 60_000 : 0;
  return utc - offset;
}

/**
 * One instant in ms since the epoch. Durations count back from `now`; a bare integer is ms since
 * the epoch; anything else must be ISO 8601 (a missing zone means UTC).
 * @throws TimeParseError naming `parameter`
 */
export function parseInstant(raw: string, parameter: string, now: number): number {
  const text = raw.trim();
  const duration = parseDuration(text);
  const at = duration !== null ? now - duration : EPOCH_MS.test(text) ? Number(text) : parseIso(text);
  if (at === null || !Number.isSafeInteger(at) || at < 0 || at > MAX_INSTANT_MS) throw new TimeParseError(parameter, raw);
  return at;
}

export interface TimeRange {
  /** Inclusive bounds in ms; undefined = unbounded. */
  from?: number;
  to?: number;
}

export class TimeRangeError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'TimeRangeError';
  }
}

/**
 * `from` and `to` together, read against one `now` so that `from=1h&to=1h` is an empty-width
 * window rather than two slightly different instants.
 * @throws TimeParseError for a bad value, TimeRangeError when from is after to
 */
export function parseTimeRange(from: string | undefined, to: string | undefined, now: number): TimeRange {
  const range: TimeRange = {};
  if (from !== undefined && from.trim() !== '') range.from = parseInstant(from, 'from', now);
  if (to !== undefined && to.trim() !== '') range.to = parseInstant(to, 'to', now);
  if (range.from !== undefined && range.to !== undefined && range.from > range.to) {
    throw new TimeRangeError(
      `from: ${new Date(range.from).toISOString()} is after to (${new Date(range.to).toISOString()})`,
    );
  }
  return range;
}
