/**
 * Minimal structured logger: one JSON line per event on stderr.
 *
 * Nothing secret reaches a line (docs/security.md, "Log redaction"): fields named like a secret
 * are replaced whatever their value, tokens and password hashes are masked wherever they appear
 * in text, and the parameter list a failed SQL statement carries in its message is dropped.
 */
const LEVELS = { debug: 10, info: 20, warn: 30, error: 40 } as const;
type Level = keyof typeof LEVELS;

let threshold: number = LEVELS.info;

export function setLogLevel(level: Level): void {
  threshold = LEVELS[level];
}

export const REDACTED = '[redacted]';

/** Field names whose values are never logged: passwords, secrets, tokens, keys, hashes, cookies, codes sent by mail. */
const SECRET_FIELD = /(?:pass(?:word|phrase)?|secret|token|authori[sz]ation|cookie|api[-_]?key|private[-_]?key|^key|hash|otp|credential)s?$/i;

/** Our own credentials (svc_, ses_, clm_, rst_, evf_ + 32 random bytes), signing secrets and argon2 hashes, wherever they appear. */
const SECRET_TEXT = /\b(svc|ses|clm|rst|evf)_[A-Za-z0-9_-]{20,}|\bwhsec_[A-Za-z0-9+/=_-]{8,}|\$argon2(?:id|i|d)\$[^\s"',]+/g;

/** Drizzle's "Failed query: …\nparams: …": the parameters up to the stack trace, or to the end. */
const SQL_PARAMS = /\nparams: [\s\S]*?(?=\n\s+at |$)/;

function cleanText(text: string): string {
  return text.replace(SQL_PARAMS, `\nparams: ${REDACTED}`).replace(SECRET_TEXT, (m, prefix: string | undefined) => (prefix ? `${prefix}_${REDACTED}` : REDACTED));
}

const MAX_DEPTH = 6;

/** A copy of a log field safe to write: see the module comment. */
export function redact(value: unknown, depth = 0): unknown {
  if (typeof value === 'string') return cleanText(value);
  if (value instanceof Error) return describeError(value);
  if (typeof value !== 'object' || value === null) return value;
  if (depth >= MAX_DEPTH) return '[nested]';
  if (Array.isArray(value)) return value.map((v) => redact(v, depth + 1));
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) out[k] = SECRET_FIELD.test(k) && v !== null && v !== undefined ? REDACTED : redact(v, depth + 1);
  return out;
}

/**
 * An error as a log field: its name, its message without SQL parameters or secrets, a database
 * error's SQLSTATE (its cause's `code`), and its stack frames. Never the cause's message or
 * details, which can quote the rejected values.
 */
export function describeError(err: unknown): Record<string, unknown> {
  if (!(err instanceof Error)) return { message: cleanText(String(err)) };
  const cause: unknown = err.cause;
  const sqlState = cause && typeof cause === 'object' && 'code' in cause && typeof cause.code === 'string' ? cause.code : undefined;
  const frames = (err.stack ?? '').split('\n').filter((line) => /^\s+at /.test(line)).slice(0, 12).join('\n');
  // Some libraries leave `name` at "Error" (drizzle's DrizzleQueryError): the class says more.
  const name = err.name === 'Error' ? err.constructor.name : err.name;
  return { name, message: cleanText(err.message), ...(sqlState ? { sqlState } : {}), ...(frames ? { stack: frames } : {}) };
}

function emit(level: Level, msg: string, fields?: Record<string, unknown>): void {
  if (LEVELS[level] < threshold) return;
  const line = JSON.stringify({ t: new Date().toISOString(), level, msg, ...(fields ? (redact(fields) as Record<string, unknown>) : {}) });
  process.stderr.write(`${line}\n`);
}

export const log = {
  debug: (msg: string, fields?: Record<string, unknown>) => emit('debug', msg, fields),
  info: (msg: string, fields?: Record<string, unknown>) => emit('info', msg, fields),
  warn: (msg: string, fields?: Record<string, unknown>) => emit('warn', msg, fields),
  error: (msg: string, fields?: Record<string, unknown>) => emit('error', msg, fields),
};
